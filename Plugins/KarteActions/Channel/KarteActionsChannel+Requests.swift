import AttendantPluginAPI
import AttendantPluginKit
import KarteCore

// What attendantctl, D-Bus clients and notification buttons ask of the channel. Every request answers
// with fields (strings; JSON text where a value is structured). `actions-dismiss`, `-suppress` and
// `-unsuppress` arrive as the API's typed requests: the daemon's ControlBus maps them.

extension KarteActionsChannel {
    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        switch request {
        case .dismiss(let actionID):
            let now = self.host.now()
            return try await self.driver.request { session, id throws(ChannelError) in try session.dismiss(id, actionID: actionID, now: now) }
        case .suppress:
            let (persists, now) = (self.configuration.suppressPersists, self.host.now())
            return try await self.driver.request { session, id in session.suppress(id, persists: persists, now: now) }
        case .unsuppress:
            let persists = self.configuration.suppressPersists
            return try await self.driver.request { session, id in session.unsuppress(id, persists: persists) }
        case .custom(let command, let arguments):
            return try await self.custom(command, arguments)
        default:
            throw ChannelError(.unsupported, "karte-actions does not handle \(request.name) requests; see attendantctl actions --help")
        }
    }

    private func custom(_ command: String, _ arguments: [String: String]) async throws -> ChannelReply {
        switch command {
        case "actions-view":
            guard let name = arguments["name"], !name.isEmpty else { throw Self.invalid("a view needs a name") }
            let values = try Self.values(arguments)
            return try await self.tracking { tracking, now throws(KarteFieldError) in
                try tracking.view(name: name, title: arguments["title"], values: values, now: now)
            } reply: { keys in ["event": KarteEventName.view, "pv_id": keys.pvID, "original_pv_id": keys.originalPVID] }
        case "actions-track":
            guard let name = arguments["event"], !name.isEmpty else { throw Self.invalid("track needs an event name") }
            guard !name.contains("."), !name.hasPrefix("$") else { throw Self.invalid("\"\(name)\" is not an event name: no '.' and no leading '$'") }
            let event = KarteEvent(name: name, values: try Self.values(arguments))
            return try await self.tracking { tracking, now throws(KarteFieldError) in try tracking.track(event, now: now) } reply: { keys in
                ["event": name, "pv_id": keys.pvID]
            }
        case "actions-identify":
            guard let user = arguments["user_id"], !user.isEmpty else { throw Self.invalid("identify needs a user id") }
            let values = try Self.values(arguments)
            return try await self.tracking { tracking, now throws(KarteFieldError) in try tracking.identify(userID: user, values: values, now: now) } reply: { keys in
                ["event": KarteEventName.identify, "pv_id": keys.pvID]
            }
        case "actions-attribute":
            let values = try Self.values(arguments)
            guard !values.isEmpty else { throw Self.invalid("attribute needs at least one value") }
            return try await self.tracking { tracking, now throws(KarteFieldError) in try tracking.attribute(values, now: now) } reply: { keys in
                ["event": KarteEventName.attribute, "pv_id": keys.pvID]
            }
        case "actions-boundary":
            return try await self.tracking { tracking, _ in tracking.markBoundary() } reply: { keys in ["pv_id": keys.pvID] }
        case "actions-list":
            return .fields(self.driver.withSession { $0.listFields } ?? [:])
        case "actions-click", "link":
            return .fields(try await self.click(arguments))
        case "actions-variables":
            let (fetch, timeout, now) = (arguments["fetch"] == "true", self.configuration.requestTimeout + .seconds(1), self.host.now())
            return try await self.driver.request { session, id in session.variables(id, fetch: fetch, timeout: timeout, now: now) }
        default:
            throw ChannelError(.unsupported, "karte-actions has no request \"\(command)\"; see attendantctl actions --help")
        }
    }

    // MARK: Tracking

    /// Runs a tracking step (refused input changes nothing) and answers with the keys it left.
    private func tracking(
        _ body: @escaping (inout KarteTrackingMachine, UnixTime) throws(KarteFieldError) -> [KarteTrackingMachine.Action],
        reply: @escaping (KarteKeys) -> [String: String]
    ) async throws -> ChannelReply {
        let now = self.host.now()
        return try await self.driver.request { session, id throws(ChannelError) in try session.track(id, now: now, body, reply: reply) }
    }

    /// `values` (a JSON object's text) as event values.
    static func values(_ arguments: [String: String]) throws(ChannelError) -> [String: JSONValue] {
        guard let text = arguments["values"], !text.isEmpty else { return [:] }
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(Array(text.utf8))
        } catch {
            throw Self.invalid("the values are not JSON: \(error)")
        }
        guard case .object(let values) = parsed else { throw Self.invalid("the values must be a JSON object, not \(parsed.typeDescription)") }
        return values
    }

    static func invalid(_ message: String) -> ChannelError { ChannelError(.invalidArgument, message) }

    // MARK: Presentation

    /// Follows a link of a shown action: `message_click`, a soft reset unless the link's target is
    /// `_blank` (the iOS order: reset first), then the host opens it by the desktop's link policy.
    private func click(_ arguments: [String: String]) async throws -> [String: String] {
        let shown = self.driver.withSession { $0.actions.shown } ?? []
        let (action, link) = try { () throws(ChannelError) -> (KarteActionsMachine.ShownAction, KarteActionContent.Link) in
            let wanted = arguments["action"].flatMap { $0.isEmpty ? nil : $0 }
            guard let action = wanted.map({ id in shown.first { $0.message.actionID == id } }) ?? shown.last else {
                throw ChannelError(.illegalState, wanted.map { "no action \($0) is shown; see attendantctl actions list" } ?? "no action is shown")
            }
            let links = action.content.links
            if let url = arguments["url"], !url.isEmpty {
                guard let link = links.first(where: { $0.url == url }) else {
                    throw Self.invalid("action \(action.message.actionID) has no link to \(url)")
                }
                return (action, link)
            }
            let index = Int(arguments["link"] ?? "0") ?? -1
            guard links.indices.contains(index) else {
                throw Self.invalid(links.isEmpty ? "action \(action.message.actionID) has no links" : "action \(action.message.actionID) has links 0 to \(links.count - 1), not \(arguments["link"] ?? "")")
            }
            return (action, links[index])
        }()
        let now = self.host.now()
        self.driver.step { $0.linkClicked(actionID: action.message.actionID, url: link.url, target: link.target, now: now) }
        let outcome = await self.host.openURL(link.url)
        return [
            "action": action.message.actionID, "url": link.url, "target": link.target,
            "opened": outcome.name, "detail": outcome.detail, "reset": link.keepsActionOpen ? "false" : "true",
        ]
    }
}
