#if canImport(AttendantPluginKit)
import AttendantPluginKit
#endif

/// A message of the conversation, as the socket pushes it (class `StructuredMessage`) and the history
/// API pages it (`entities`). SDK `shyrka/receive/StructuredMessage.kt`.
///
/// `direction` is the customer's view turned around: `Inbound` is ours (customer → Genesys, echoed
/// back), `Outbound` the agent's or bot's.
package struct GenesysStructuredMessage: Sendable, Hashable {
    package enum Kind: String, Sendable, Hashable {
        case text = "Text"
        case event = "Event"
        case structured = "Structured"
    }

    package enum Direction: String, Sendable, Hashable {
        case inbound = "Inbound"
        case outbound = "Outbound"
    }

    /// A sender or recipient: SDK `StructuredMessage.Participant`.
    package struct Participant: Sendable, Hashable {
        package var firstName: String?
        package var lastName: String?
        package var nickname: String?
        package var image: String?

        package init(firstName: String? = nil, lastName: String? = nil, nickname: String? = nil, image: String? = nil) {
            self.firstName = firstName
            self.lastName = lastName
            self.nickname = nickname
            self.image = image
        }
    }

    /// SDK `StructuredMessage.Channel`: `time` is ISO 8601 (null in some history entries).
    package struct Channel: Sendable, Hashable {
        package var time: String?
        package var messageId: String?
        package var type: String?
        package var to: Participant?
        package var from: Participant?
    }

    package var id: String
    package var kind: Kind
    package var text: String?
    package var direction: Direction
    package var channel: Channel?
    package var content: [GenesysContent]
    package var metadata: [String: String]
    package var events: [GenesysEvent]
    /// "Human" or "Bot" for an outbound message.
    package var originatingEntity: String?
    package var originatingMessageId: String?

    package init(
        id: String,
        kind: Kind,
        text: String? = nil,
        direction: Direction,
        channel: Channel? = nil,
        content: [GenesysContent] = [],
        metadata: [String: String] = [:],
        events: [GenesysEvent] = [],
        originatingEntity: String? = nil,
        originatingMessageId: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.text = text
        self.direction = direction
        self.channel = channel
        self.content = content
        self.metadata = metadata
        self.events = events
        self.originatingEntity = originatingEntity
        self.originatingMessageId = originatingMessageId
    }

    init(_ fields: GenesysFields) throws(GenesysWireError) {
        let kindName = try fields.string("type")
        guard let kind = Kind(rawValue: kindName) else { throw .bad(fields.path("type"), "is not one of Text, Event, Structured") }
        let directionName = try fields.string("direction")
        // The SDK keeps `direction` a string and treats all but "Inbound" as outbound; a value that is
        // neither is refused here rather than shown as the agent's.
        guard let direction = Direction(rawValue: directionName) else {
            throw .bad(fields.path("direction"), "is neither Inbound nor Outbound")
        }
        var content: [GenesysContent] = []
        for (value, path) in try fields.array("content") {
            content.append(try GenesysContent(GenesysFields(value, path: path)))
        }
        var events: [GenesysEvent] = []
        for (value, path) in try fields.array("events") {
            events.append(try GenesysEvent(GenesysFields(value, path: path)))
        }
        self.init(
            id: try fields.string("id"),
            kind: kind,
            text: try fields.optionalString("text"),
            direction: direction,
            channel: try fields.optionalObject("channel").map { fields throws(GenesysWireError) in try Self.channel(fields) },
            content: content,
            metadata: try fields.stringMap("metadata"),
            events: events,
            originatingEntity: try fields.optionalString("originatingEntity"),
            originatingMessageId: try fields.optionalString("originatingMessageId")
        )
    }

    private static func channel(_ fields: GenesysFields) throws(GenesysWireError) -> Channel {
        Channel(
            time: try fields.optionalString("time"),
            messageId: try fields.optionalString("messageId"),
            type: try fields.optionalString("type"),
            to: try fields.optionalObject("to").map { fields throws(GenesysWireError) in try Self.participant(fields) },
            from: try fields.optionalObject("from").map { fields throws(GenesysWireError) in try Self.participant(fields) }
        )
    }

    private static func participant(_ fields: GenesysFields) throws(GenesysWireError) -> Participant {
        Participant(
            firstName: try fields.optionalString("firstName"),
            lastName: try fields.optionalString("lastName"),
            nickname: try fields.optionalString("nickname"),
            image: try fields.optionalString("image")
        )
    }
}

// MARK: What the SDK reads out of a message

extension GenesysStructuredMessage {
    /// An `Event` message whose metadata says `readOnly` (SDK `handleAsEvent(metadata["readOnly"].toBoolean())`):
    /// with a `Disconnect` presence it makes the conversation read-only.
    package var isReadOnly: Bool { self.metadata["readOnly"]?.lowercased() == "true" }

    /// The conversation ended: an outbound `Presence` `Disconnect` (SDK `Event.ConversationDisconnect`).
    package var isConversationDisconnect: Bool {
        self.direction == .outbound && self.events.contains(.presence(.disconnect))
    }

    /// The attachments in `content`.
    package var attachments: [GenesysReceivedAttachment] {
        self.content.compactMap { if case .attachment(let file) = $0 { file } else { nil } }
    }

    /// The choices a reply can make, as the SDK offers them (`MessageExtension.kt`): the quick replies
    /// (type "QuickReply"), else the `ButtonResponse` contents of that type; each answers this message.
    package var quickReplies: [GenesysButtonResponse] {
        let replies = self.content.compactMap { content -> GenesysButtonResponse? in
            guard case .quickReply(let text, let payload, _) = content else { return nil }
            return GenesysButtonResponse(text: text, payload: payload, type: "QuickReply", originatingMessageId: self.id)
        }
        if !replies.isEmpty { return replies }
        return self.content.compactMap { content -> GenesysButtonResponse? in
            guard case .buttonResponse(let response) = content, response.type.lowercased() == "quickreply" else { return nil }
            return GenesysButtonResponse(text: response.text, payload: response.payload, type: "QuickReply", originatingMessageId: self.id)
        }
    }

    /// The cards of `Card` and `Carousel` contents, in order.
    package var cards: [GenesysCard] {
        self.content.flatMap { content -> [GenesysCard] in
            switch content {
            case .card(let card): [card]
            case .carousel(let cards): cards
            default: []
            }
        }
    }
}
