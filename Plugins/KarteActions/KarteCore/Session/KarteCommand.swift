package import AttendantPluginAPI
package import AttendantPluginKit

/// What attendantctl, D-Bus clients and notification buttons ask of a KarteActions channel, read from the
/// API's request and checked before the session sees it. Every request answers with fields (strings; JSON
/// text where a value is structured). `actions-dismiss`, `-suppress` and `-unsuppress` arrive as the
/// API's typed requests: the daemon's control bus maps them.
package enum KarteCommand: Sendable, Hashable {
    /// `actions-view`: a page view, which starts a new pv id.
    case view(name: String, title: String?, values: [String: JSONValue])
    /// `actions-track`: a custom event.
    case track(KarteEvent)
    case identify(userID: String, values: [String: JSONValue])
    case attribute([String: JSONValue])
    /// `actions-boundary`: the next event starts a new pv id.
    case boundary
    /// `actions-list`: what is shown, whether suppressed, and the ids.
    case list
    /// `actions-click` (and a notification's `link`): follows a link of a shown action, the last one shown
    /// unless `actionID` names another.
    case click(actionID: String?, link: LinkChoice)
    /// `actions-variables`: the campaign variables, after asking KARTE again with `fetch`.
    case variables(fetch: Bool)
    /// Dismisses the action shown (all of them without an id).
    case dismiss(actionID: String?)
    case suppress
    case unsuppress

    /// Which of an action's links a click follows.
    package enum LinkChoice: Sendable, Hashable {
        case url(String)
        /// The link's index among the action's links, as the caller wrote it ("0" when none was given).
        case index(String)
    }

    /// Reads `request`, or says what is wrong with it.
    package init(_ request: ChannelRequest) throws(ChannelError) {
        switch request {
        case .dismiss(let actionID): self = .dismiss(actionID: actionID)
        case .suppress: self = .suppress
        case .unsuppress: self = .unsuppress
        case .custom(let command, let arguments): self = try Self(command, arguments)
        default: throw ChannelError(.unsupported, "karte-actions does not handle \(request.name) requests; see attendantctl actions --help")
        }
    }

    init(_ command: String, _ arguments: [String: String]) throws(ChannelError) {
        let given = { (name: String) -> String? in arguments[name].flatMap { $0.isEmpty ? nil : $0 } }
        switch command {
        case "actions-view":
            guard let name = given("name") else { throw Self.invalid("a view needs a name") }
            self = .view(name: name, title: arguments["title"], values: try Self.values(arguments))
        case "actions-track":
            guard let name = given("event") else { throw Self.invalid("track needs an event name") }
            guard !name.contains("."), !name.hasPrefix("$") else { throw Self.invalid("\"\(name)\" is not an event name: no '.' and no leading '$'") }
            self = .track(KarteEvent(name: name, values: try Self.values(arguments)))
        case "actions-identify":
            guard let user = given("user_id") else { throw Self.invalid("identify needs a user id") }
            self = .identify(userID: user, values: try Self.values(arguments))
        case "actions-attribute":
            let values = try Self.values(arguments)
            guard !values.isEmpty else { throw Self.invalid("attribute needs at least one value") }
            self = .attribute(values)
        case "actions-boundary": self = .boundary
        case "actions-list": self = .list
        case "actions-click", "link":
            self = .click(actionID: given("action"), link: given("url").map(LinkChoice.url) ?? .index(arguments["link"] ?? "0"))
        case "actions-variables": self = .variables(fetch: arguments["fetch"] == "true")
        default: throw ChannelError(.unsupported, "karte-actions has no request \"\(command)\"; see attendantctl actions --help")
        }
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
}
