// Rich messages (CXone mobile SDK 3.3.0) and the inactivity popup (3.1.0), read from a message's
// `messageContent` as the SDK reads them: `Sources/Enums/Internal/Message/MessageContentDTOType.swift`,
// `Sources/Models/Internal/Message/RichContent/*DTO.swift` and
// `Sources/Models/Internal/Message/InactivityPopup/*DTO.swift` (nice-devone/nice-cxone-mobile-sdk-ios).
extension CXoneWire {
    /// What a rich message offers, by its `messageContent.type`.
    package enum RichContent: Sendable, Hashable {
        /// `QUICK_REPLIES`: `{"text": {"content"}, "actions": [REPLY_BUTTON]}`; one is chosen.
        case quickReplies(title: String, buttons: [ReplyButton])
        /// `LIST_PICKER`: `{"title": {"content"}, "text": {"content"}, "actions": [REPLY_BUTTON]}`.
        case listPicker(title: String, text: String, buttons: [ReplyButton])
        /// `RICH_LINK`: `{"title": {"content"}, "url", "media": {"fileName", "url", "mimeType"}}`.
        case richLink(title: String, url: String)
        /// `PLUGIN` whose first element is an `INACTIVITY_POPUP` (or the type `INACTIVITY_POPUP` itself).
        case inactivityPopup(InactivityPopup)
    }

    /// A `REPLY_BUTTON` (the SDK's `MessageReplyButtonDTO`): `{"type", "text", "postback"?, "description"?}`.
    package struct ReplyButton: Sendable, Hashable {
        package var text: String
        package var postback: String?
        package var description: String?

        package init(text: String, postback: String? = nil, description: String? = nil) {
            self.text = text
            self.postback = postback
            self.description = description
        }
    }

    /// "Are you still there?" (the SDK's `MessageInactivityPopupDTO`): `{"id", "elements": [TITLE, TEXT
    /// (body), TEXT (call to action), COUNTDOWN {"variables": {"startedAt", "numberOfSeconds"}}, BUTTON,
    /// BUTTON]}`.
    package struct InactivityPopup: Sendable, Hashable {
        package var id: String
        package var title: String
        package var body: String
        package var callToAction: String?
        /// How long the customer has to answer, in seconds.
        package var countdownSeconds: Int?
        /// The button that keeps the session: its postback holds `"isExpired": false`.
        package var refreshButton: PopupButton
        /// The button that ends it.
        package var expireButton: PopupButton

        package init(
            id: String,
            title: String,
            body: String,
            callToAction: String? = nil,
            countdownSeconds: Int? = nil,
            refreshButton: PopupButton,
            expireButton: PopupButton
        ) {
            self.id = id
            self.title = title
            self.body = body
            self.callToAction = callToAction
            self.countdownSeconds = countdownSeconds
            self.refreshButton = refreshButton
            self.expireButton = expireButton
        }
    }

    /// A popup's `BUTTON`: `{"id", "text", "postback"}` (the SDK's `InactivityPopupButtonElementDTO`).
    package struct PopupButton: Sendable, Hashable {
        package var id: String
        package var text: String
        package var postback: String

        package init(id: String, text: String, postback: String) {
            self.id = id
            self.text = text
            self.postback = postback
        }

        /// The SDK's `isSessionRefresh`: the postback matches `"isExpired"\s*:\s*false`.
        package var isSessionRefresh: Bool {
            var rest = Substring(self.postback)
            while let key = rest.firstRange(of: "\"isExpired\"") {
                let after = rest[key.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
                if after.first == ":" {
                    let value = after.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
                    if value.hasPrefix("false") { return true }
                }
                rest = rest[key.upperBound...]
            }
            return false
        }
    }
}

extension CXoneWire.MessageContent {
    /// The rich content of a `QUICK_REPLIES`, `LIST_PICKER`, `RICH_LINK`, `PLUGIN` (inactivity popup) or
    /// `INACTIVITY_POPUP` message; nil for text, for other types, and for a payload that lacks what the SDK
    /// requires (the SDK then shows the message as unsupported, with its fallback text).
    package var richContent: CXoneWire.RichContent? {
        let payload = self.payload
        switch self.type {
        case "QUICK_REPLIES":
            guard let title = payload["text"]?["content"]?.string, let buttons = Self.replyButtons(payload["actions"]) else { return nil }
            return .quickReplies(title: title, buttons: buttons)
        case "LIST_PICKER":
            guard let title = payload["title"]?["content"]?.string, let text = payload["text"]?["content"]?.string,
                let buttons = Self.replyButtons(payload["actions"])
            else { return nil }
            return .listPicker(title: title, text: text, buttons: buttons)
        case "RICH_LINK":
            guard let title = payload["title"]?["content"]?.string, let url = payload["url"]?.string else { return nil }
            return .richLink(title: title, url: url)
        case "PLUGIN":
            // `MessagePluginDTO`: the first of `elements` is the plugin; only the inactivity popup is known.
            guard case .array(let elements)? = payload["elements"], let first = elements.first else { return nil }
            return Self.inactivityPopup(first).map { .inactivityPopup($0) }
        case "INACTIVITY_POPUP":
            return Self.inactivityPopup(payload).map { .inactivityPopup($0) }
        default:
            return nil
        }
    }

    /// `actions`: every element a `REPLY_BUTTON` with text (the SDK refuses the message otherwise).
    private static func replyButtons(_ actions: CXoneJSON?) -> [CXoneWire.ReplyButton]? {
        guard case .array(let elements)? = actions else { return nil }
        var buttons: [CXoneWire.ReplyButton] = []
        for element in elements {
            guard element["type"]?.string == "REPLY_BUTTON", let text = element["text"]?.string else { return nil }
            buttons.append(CXoneWire.ReplyButton(text: text, postback: element["postback"]?.string, description: element["description"]?.string))
        }
        return buttons
    }

    /// `{"id", "elements": [...]}`: the title, the first text (body), the next text (call to action), the
    /// countdown and two buttons, as the SDK picks them by type; the button whose postback keeps the
    /// session is the refresh button.
    private static func inactivityPopup(_ json: CXoneJSON) -> CXoneWire.InactivityPopup? {
        guard let id = json["id"]?.string, case .array(let elements)? = json["elements"] else { return nil }
        var title: String?
        var texts: [String] = []
        var seconds: Int?
        var buttons: [CXoneWire.PopupButton] = []
        for element in elements {
            switch element["type"]?.string {
            case "TITLE": if title == nil { title = element["text"]?.string }
            case "TEXT": if let text = element["text"]?.string { texts.append(text) }
            case "COUNTDOWN":
                switch element["variables"]?["numberOfSeconds"] {
                case .integer(let value)?: seconds = Int(exactly: value)
                case .number(let value)?: seconds = Int(exactly: value)
                default: break
                }
            case "BUTTON":
                guard let id = element["id"]?.string, let text = element["text"]?.string, let postback = element["postback"]?.string else {
                    return nil
                }
                buttons.append(CXoneWire.PopupButton(id: id, text: text, postback: postback))
            default: break
            }
        }
        guard let title, let body = texts.first, buttons.count >= 2 else { return nil }
        let refreshFirst = buttons[0].isSessionRefresh
        return CXoneWire.InactivityPopup(
            id: id,
            title: title,
            body: body,
            callToAction: texts.count > 1 ? texts[1] : nil,
            countdownSeconds: seconds,
            refreshButton: refreshFirst ? buttons[0] : buttons[1],
            expireButton: refreshFirst ? buttons[1] : buttons[0]
        )
    }

    /// The customer's answer to a rich message or an inactivity popup: a `TEXT` message with the chosen
    /// button's text and postback (`OutboundMessage(text:postback:)`); an inactivity popup's answer carries
    /// `parameters: {"isInactivityPopupAnswer": true}` (`ProactiveActionService.trigger(_:)`).
    package static func answer(_ text: String, postback: String, isInactivityPopupAnswer: Bool) -> CXoneWire.MessageContent {
        var content = CXoneWire.MessageContent.text(text, postback: postback)
        if isInactivityPopupAnswer { content.parameters = .object(["isInactivityPopupAnswer": .bool(true)]) }
        return content
    }
}
