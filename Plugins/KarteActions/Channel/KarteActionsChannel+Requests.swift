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
            return .fields(try self.dismiss(actionID))
        case .suppress:
            return .fields(try self.suppress())
        case .unsuppress:
            return .fields(try self.unsuppress())
        case .custom(let command, let arguments):
            return .fields(try await self.custom(command, arguments))
        default:
            throw ChannelError(.unsupported, "karte-actions does not handle \(request.name) requests; see attendantctl actions --help")
        }
    }

    private func custom(_ command: String, _ arguments: [String: String]) async throws -> [String: String] {
        switch command {
        case "actions-view":
            guard let name = arguments["name"], !name.isEmpty else { throw Self.invalid("a view needs a name") }
            let values = try Self.values(arguments)
            return try self.tracking { tracking, now throws(KarteFieldError) in
                try tracking.view(name: name, title: arguments["title"], values: values, now: now)
            } reply: { keys in ["event": KarteEventName.view, "pv_id": keys.pvID, "original_pv_id": keys.originalPVID] }
        case "actions-track":
            guard let name = arguments["event"], !name.isEmpty else { throw Self.invalid("track needs an event name") }
            guard !name.contains("."), !name.hasPrefix("$") else { throw Self.invalid("\"\(name)\" is not an event name: no '.' and no leading '$'") }
            let event = KarteEvent(name: name, values: try Self.values(arguments))
            return try self.tracking { tracking, now throws(KarteFieldError) in try tracking.track(event, now: now) } reply: { keys in
                ["event": name, "pv_id": keys.pvID]
            }
        case "actions-identify":
            guard let user = arguments["user_id"], !user.isEmpty else { throw Self.invalid("identify needs a user id") }
            let values = try Self.values(arguments)
            return try self.tracking { tracking, now throws(KarteFieldError) in try tracking.identify(userID: user, values: values, now: now) } reply: { keys in
                ["event": KarteEventName.identify, "pv_id": keys.pvID]
            }
        case "actions-attribute":
            let values = try Self.values(arguments)
            guard !values.isEmpty else { throw Self.invalid("attribute needs at least one value") }
            return try self.tracking { tracking, now throws(KarteFieldError) in try tracking.attribute(values, now: now) } reply: { keys in
                ["event": KarteEventName.attribute, "pv_id": keys.pvID]
            }
        case "actions-boundary":
            return try self.tracking { tracking, _ in tracking.markBoundary() } reply: { keys in ["pv_id": keys.pvID] }
        case "actions-list":
            return self.list()
        case "actions-click", "link":
            return try await self.click(arguments)
        case "actions-variables":
            return try await self.variables(fetch: arguments["fetch"] == "true")
        default:
            throw ChannelError(.unsupported, "karte-actions has no request \"\(command)\"; see attendantctl actions --help")
        }
    }

    // MARK: Tracking

    /// Runs a tracking step (refused input changes nothing) and answers with the keys it left.
    private func tracking(
        _ body: (inout KarteTrackingMachine, UnixTime) throws(KarteFieldError) -> [KarteTrackingMachine.Action],
        reply: (KarteKeys) -> [String: String]
    ) throws -> [String: String] {
        let now = self.host.now()
        let keys: KarteKeys = try self.step { (state, effects) throws(ChannelError) -> KarteKeys in
            guard state.listening, state.tracking != nil else { throw Self.notListening }
            do {
                let actions = try body(&state.tracking!, now)
                self.handle(actions, state: &state, effects: &effects)
            } catch {
                throw Self.invalid("\(error)")
            }
            return state.tracking!.keys
        }
        return reply(keys)
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

    static var notListening: ChannelError {
        ChannelError(.illegalState, "the channel is not listening yet (no app key, or it is starting); see attendantctl channels")
    }

    // MARK: Presentation

    private func list() -> [String: String] {
        self.withState { state in
            let actions = state.actions.shown.map { shown -> JSONValue in
                .object([
                    "id": .string(shown.message.actionID),
                    "campaign_id": .string(shown.message.campaignID),
                    "shorten_id": .string(shown.message.shortenID),
                    "title": .string(shown.content.title),
                    "body": .string(shown.content.body),
                    "links": .array(shown.content.links.map { .object(["label": .string($0.label), "url": .string($0.url), "target": .string($0.target)]) }),
                ])
            }
            let keys = state.tracking?.keys
            return [
                "actions": JSONValue.array(actions).text,
                "suppressed": state.actions.isSuppressed ? "true" : "false",
                "visitor_id": keys?.visitorID ?? "",
                "pv_id": keys?.pvID ?? "",
                "original_pv_id": keys?.originalPVID ?? "",
            ]
        }
    }

    private func dismiss(_ actionID: String?) throws -> [String: String] {
        try self.step { (state, effects) throws(ChannelError) -> [String: String] in
            let before = state.actions.shown.count
            if let actionID, !state.actions.shown.contains(where: { $0.message.actionID == actionID }) {
                throw ChannelError(.illegalState, "no action \(actionID) is shown; see attendantctl actions list")
            }
            self.handle(state.actions.dismiss(actionID: actionID), state: &state, effects: &effects)
            return ["dismissed": String(before - state.actions.shown.count)]
        }
    }

    private func suppress() throws -> [String: String] {
        self.step { state, effects in
            let before = state.actions.shown.count
            self.handle(state.actions.suppress(), state: &state, effects: &effects)
            if self.configuration.suppressPersists { effects.append(.store("true", key: StoreKey.suppressed)) }
            effects.append(.log(.info, "suppressed: actions are not shown until unsuppress"))
            return ["suppressed": "true", "dismissed": String(before)]
        }
    }

    private func unsuppress() throws -> [String: String] {
        self.step { state, effects in
            state.actions.unsuppress()
            if self.configuration.suppressPersists { effects.append(.store(nil, key: StoreKey.suppressed)) }
            effects.append(.log(.info, "unsuppressed: actions are shown again"))
            return ["suppressed": "false"]
        }
    }

    /// Follows a link of a shown action: `message_click`, a soft reset unless the link's target is
    /// `_blank` (the iOS order: reset first), then the host opens it by the desktop's link policy.
    private func click(_ arguments: [String: String]) async throws -> [String: String] {
        let (action, link) = try self.withState { (state) throws(ChannelError) -> (KarteActionsMachine.ShownAction, KarteActionContent.Link) in
            let wanted = arguments["action"].flatMap { $0.isEmpty ? nil : $0 }
            guard let action = wanted.map({ id in state.actions.shown.first { $0.message.actionID == id } }) ?? state.actions.shown.last else {
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
        }
        self.step { state, effects in
            self.handle(state.actions.linkClicked(actionID: action.message.actionID, url: link.url, target: link.target), state: &state, effects: &effects)
        }
        let outcome = await self.host.openURL(link.url)
        return [
            "action": action.message.actionID, "url": link.url, "target": link.target,
            "opened": outcome.name, "detail": outcome.detail, "reset": link.keepsActionOpen ? "false" : "true",
        ]
    }

    // MARK: Variables

    private func variables(fetch: Bool) async throws -> [String: String] {
        var fetched = false
        if fetch {
            let now = self.host.now()
            fetched = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let refused: Bool = self.step { state, effects in
                    guard state.listening, state.tracking != nil else { return true }
                    state.nextWaiter += 1
                    let id = state.nextWaiter
                    state.fetchWaiters[id] = continuation
                    let actions = (try? state.tracking!.track(KarteEvent(name: KarteEventName.fetchVariables), now: now)) ?? []
                    self.handle(actions, state: &state, effects: &effects)
                    self.expireFetch(id, after: self.configuration.requestTimeout + .seconds(1))
                    return false
                }
                if refused { continuation.resume(returning: false) }
            }
        }
        let variables = self.withState { $0.actions.variables }
        return ["variables": KarteActionsMachine.json(of: variables).text, "fetched": fetched ? "true" : "false"]
    }

    /// A fetch caller whose request never ended (the channel stopped) hears "not fetched".
    private func expireFetch(_ id: UInt64, after delay: Duration) {
        self.fetchDeadlines.arm(id, after: delay) { [weak self] timer in
            self?.step { state, effects in
                guard self?.fetchDeadlines.consume(timer) == true, let waiter = state.fetchWaiters.removeValue(forKey: id) else { return }
                effects.append(.resume(waiter, false))
            }
        }
    }
}
