#if canImport(AttendantPluginKit)
import AttendantPluginKit
#endif

/// A reply the customer picks: to a quick reply (`type` "QuickReply"), a card's button ("Button", from a
/// `Postback` action) or a time slot ("DatePicker"). SDK `core/ButtonResponse.kt`.
package struct GenesysButtonResponse: Sendable, Hashable {
    package var text: String
    package var payload: String
    package var type: String
    package var originatingMessageId: String?

    package init(text: String, payload: String, type: String, originatingMessageId: String? = nil) {
        self.text = text
        self.payload = payload
        self.type = type
        self.originatingMessageId = originatingMessageId
    }

    init(_ fields: GenesysFields) throws(GenesysWireError) {
        self.init(
            text: try fields.string("text"),
            payload: try fields.string("payload"),
            type: try fields.string("type"),
            originatingMessageId: try fields.optionalString("originatingMessageId")
        )
    }

    var json: JSONValue {
        .members([
            "text": .string(self.text), "payload": .string(self.payload), "type": .string(self.type),
            "originatingMessageId": self.originatingMessageId.map(JSONValue.string),
        ])
    }
}

/// A card's action: `Link` (with `url`) or `Postback`/`Button` (with `payload`). SDK `Content.Action`.
package struct GenesysCardAction: Sendable, Hashable {
    package var type: String
    package var text: String
    package var url: String?
    package var payload: String?

    package init(type: String, text: String, url: String? = nil, payload: String? = nil) {
        self.type = type
        self.text = text
        self.url = url
        self.payload = payload
    }

    init(_ fields: GenesysFields) throws(GenesysWireError) {
        self.init(
            type: try fields.string("type"),
            text: try fields.string("text"),
            url: try fields.optionalString("url"),
            payload: try fields.optionalString("payload")
        )
    }
}

/// SDK `Content.CardContent.Card`.
package struct GenesysCard: Sendable, Hashable {
    package var title: String
    package var description: String
    package var image: String?
    package var defaultAction: GenesysCardAction?
    package var actions: [GenesysCardAction]

    package init(title: String, description: String, image: String? = nil, defaultAction: GenesysCardAction? = nil, actions: [GenesysCardAction]) {
        self.title = title
        self.description = description
        self.image = image
        self.defaultAction = defaultAction
        self.actions = actions
    }

    init(_ fields: GenesysFields) throws(GenesysWireError) {
        var actions: [GenesysCardAction] = []
        for (value, path) in try fields.array("actions") {
            actions.append(try GenesysCardAction(GenesysFields(value, path: path)))
        }
        // The SDK's `actions` has no default: a card without the member does not decode.
        _ = try fields.required("actions")
        self.init(
            title: try fields.string("title"),
            description: try fields.string("description"),
            image: try fields.optionalString("image"),
            defaultAction: try fields.optionalObject("defaultAction").map { fields throws(GenesysWireError) in try GenesysCardAction(fields) },
            actions: actions
        )
    }
}

/// A file an agent's (or our own echoed) message carries. SDK `Content.AttachmentContent.Attachment`.
package struct GenesysReceivedAttachment: Sendable, Hashable {
    package var id: String
    package var url: String
    package var filename: String
    package var fileSize: Int?
    package var mediaType: String
    package var mime: String?
    package var sha256: String?
    package var text: String?

    package init(
        id: String,
        url: String,
        filename: String,
        fileSize: Int? = nil,
        mediaType: String,
        mime: String? = nil,
        sha256: String? = nil,
        text: String? = nil
    ) {
        self.id = id
        self.url = url
        self.filename = filename
        self.fileSize = fileSize
        self.mediaType = mediaType
        self.mime = mime
        self.sha256 = sha256
        self.text = text
    }
}

/// A time-slot picker (`DatePicker`): SDK `Content.TimeSlotPickerContent`.
package struct GenesysDatePicker: Sendable, Hashable {
    package struct Slot: Sendable, Hashable {
        package var durationMinutes: Int
        /// ISO 8601, also the payload of the `ButtonResponse` that picks it.
        package var dateTime: String
    }

    package var title: String
    package var subtitle: String?
    package var imageURL: String?
    package var availableTimes: [Slot]
}

/// One item of a message's `content`, chosen by its `contentType` (SDK `ContentSerializer`). A type
/// the SDK does not know is kept as `unknown` and shown by nobody, as the SDK's `UnknownContent`.
package enum GenesysContent: Sendable, Hashable {
    case attachment(GenesysReceivedAttachment)
    case quickReply(text: String, payload: String, action: String?)
    case buttonResponse(GenesysButtonResponse)
    case card(GenesysCard)
    case carousel([GenesysCard])
    case datePicker(GenesysDatePicker)
    case unknown(contentType: String?)

    init(_ fields: GenesysFields) throws(GenesysWireError) {
        switch try fields.optionalString("contentType") {
        case "Attachment":
            let file = try fields.object("attachment")
            self = .attachment(
                GenesysReceivedAttachment(
                    id: try file.string("id"),
                    url: try file.string("url"),
                    filename: try file.string("filename"),
                    fileSize: try file.optionalInteger("fileSize"),
                    mediaType: try file.string("mediaType"),
                    mime: try file.optionalString("mime"),
                    sha256: try file.optionalString("sha256"),
                    text: try file.optionalString("text")
                )
            )
        case "QuickReply":
            let reply = try fields.object("quickReply")
            self = .quickReply(text: try reply.string("text"), payload: try reply.string("payload"), action: try reply.optionalString("action"))
        case "ButtonResponse":
            self = .buttonResponse(try GenesysButtonResponse(fields.object("buttonResponse")))
        case "Card":
            self = .card(try GenesysCard(fields.object("card")))
        case "Carousel":
            let carousel = try fields.object("carousel")
            _ = try carousel.required("cards")
            var cards: [GenesysCard] = []
            for (value, path) in try carousel.array("cards") {
                cards.append(try GenesysCard(GenesysFields(value, path: path)))
            }
            self = .carousel(cards)
        case "DatePicker":
            let picker = try fields.object("datePicker")
            var slots: [GenesysDatePicker.Slot] = []
            for (value, path) in try picker.array("availableTimes") {
                let slot = try GenesysFields(value, path: path)
                slots.append(GenesysDatePicker.Slot(durationMinutes: try slot.integer("duration"), dateTime: try slot.string("dateTime")))
            }
            self = .datePicker(
                GenesysDatePicker(
                    title: try picker.string("title"),
                    subtitle: try picker.optionalString("subtitle"),
                    imageURL: try picker.optionalString("imageUrl"),
                    availableTimes: slots
                )
            )
        case let other:
            self = .unknown(contentType: other)
        }
    }
}

/// A presence event's type. SDK `PresenceEvent.Presence.Type`: an unknown one fails the message's
/// decoding there, and here.
package enum GenesysPresence: String, Sendable, Hashable, CaseIterable {
    /// Outbound: the conversation started (the SDK's `ConversationAutostart`); inbound: our autostart.
    case join = "Join"
    /// Outbound: the agent (or the flow) ended the conversation (`ConversationDisconnect`).
    case disconnect = "Disconnect"
    /// Inbound: our clear-conversation request; the server answers with `SessionClearedEvent`.
    case clear = "Clear"
    /// The user signed in on another device (`SignedIn`, with the `from` participant's names).
    case signIn = "SignIn"
}

/// One of an `Event` message's `events` (SDK `StructuredMessageEvent`, chosen by `eventType`).
package enum GenesysEvent: Sendable, Hashable {
    /// `typing.type` is "On" from the SDK; agents' come with a `duration` in ms (SDK fallback 5000).
    case typing(type: String, durationMilliseconds: Int?)
    case presence(GenesysPresence)
    /// Any other `eventType`: ignored, as the SDK maps it to `Unknown`.
    case unknown(eventType: String?)

    init(_ fields: GenesysFields) throws(GenesysWireError) {
        switch try fields.optionalString("eventType") {
        case "Typing":
            let typing = try fields.object("typing")
            self = .typing(type: try typing.string("type"), durationMilliseconds: try typing.optionalInteger("duration"))
        case "Presence":
            let presence = try fields.object("presence")
            let name = try presence.string("type")
            guard let type = GenesysPresence(rawValue: name) else {
                throw .bad(presence.path("type"), "is not one of Join, Disconnect, Clear, SignIn")
            }
            self = .presence(type)
        case let other:
            self = .unknown(eventType: other)
        }
    }

    var json: JSONValue {
        switch self {
        case .typing(let type, let duration):
            .object([
                "eventType": .string("Typing"),
                "typing": .members(["type": .string(type), "duration": duration.map { .number(Double($0)) }]),
            ])
        case .presence(let presence):
            .object(["eventType": .string("Presence"), "presence": .object(["type": .string(presence.rawValue)])])
        case .unknown(let eventType):
            .members(["eventType": eventType.map(JSONValue.string)])
        }
    }
}
