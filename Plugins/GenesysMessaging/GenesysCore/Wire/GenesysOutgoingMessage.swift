#if canImport(AttendantPluginKit)
import AttendantPluginKit
#endif

/// The `message` of an `onMessage` request (SDK `shyrka/send/BaseMessageProtocol.kt`: `TextMessage`,
/// `StructuredMessage`, `EventMessage`), written as kotlinx.serialization writes them: members left at
/// their default (no metadata, no content, no channel) are not written, `type` always is.
package enum GenesysOutgoingMessage: Sendable, Hashable {
    /// What a `content` item of ours can be (SDK `core/Message.Content`).
    package enum Content: Sendable, Hashable {
        /// An uploaded attachment, by the id `onAttachment` gave it: `{"contentType":"Attachment","attachment":{"id"}}`.
        case attachment(id: String)
        case buttonResponse(GenesysButtonResponse)
    }

    /// `type` "Text". `customAttributes` go in `channel.metadata.customAttributes`.
    case text(String, metadata: [String: String] = [:], content: [Content] = [], customAttributes: [String: String] = [:])
    /// `type` "Structured": how the SDK answers a card's postback (`sendCardReply`).
    case structured(String, metadata: [String: String] = [:], content: [Content] = [], customAttributes: [String: String] = [:])
    /// `type` "Event": typing, autostart (presence Join) and clear (presence Clear).
    case event([GenesysEvent], customAttributes: [String: String] = [:])

    // MARK: The messages the SDK's client sends

    /// A quick reply's answer (SDK `MessageStore.prepareMessageWith`): a Text message with empty text
    /// and the one `ButtonResponse`.
    package static func quickReply(_ response: GenesysButtonResponse, customAttributes: [String: String] = [:]) -> Self {
        .text("", content: [.buttonResponse(response)], customAttributes: customAttributes)
    }

    /// A card button's answer (SDK `preparePostbackMessage`): a Structured message carrying the button's text.
    package static func cardReply(_ response: GenesysButtonResponse, customAttributes: [String: String] = [:]) -> Self {
        .structured(response.text, content: [.buttonResponse(response)], customAttributes: customAttributes)
    }

    /// Our typing notice (SDK `UserTypingRequest`): `{"eventType":"Typing","typing":{"type":"On"}}`.
    package static let typing = Self.event([.typing(type: "On", durationMilliseconds: nil)])
    /// Autostart (SDK `AutoStartRequest`), sent after a new session when the deployment asks for it.
    package static func autostart(customAttributes: [String: String] = [:]) -> Self {
        .event([.presence(.join)], customAttributes: customAttributes)
    }
    /// Clear the conversation (SDK `ClearConversationRequest`).
    package static let clearConversation = Self.event([.presence(.clear)])

    var json: JSONValue {
        switch self {
        case .text(let text, let metadata, let content, let attributes):
            Self.message("Text", text: text, metadata: metadata, content: content, attributes: attributes)
        case .structured(let text, let metadata, let content, let attributes):
            Self.message("Structured", text: text, metadata: metadata, content: content, attributes: attributes)
        case .event(let events, let attributes):
            .members([
                "events": .array(events.map(\.json)),
                "channel": Self.channel(attributes),
                "type": .string("Event"),
            ])
        }
    }

    private static func message(
        _ type: String,
        text: String,
        metadata: [String: String],
        content: [Content],
        attributes: [String: String]
    ) -> JSONValue {
        .members([
            "text": .string(text),
            "metadata": metadata.isEmpty ? nil : .object(metadata.mapValues(JSONValue.string)),
            "content": content.isEmpty ? nil : .array(content.map(\.json)),
            "channel": Self.channel(attributes),
            "type": .string(type),
        ])
    }

    private static func channel(_ attributes: [String: String]) -> JSONValue? {
        attributes.isEmpty ? nil : .object(["metadata": .object(["customAttributes": .object(attributes.mapValues(JSONValue.string))])])
    }

    init(_ fields: GenesysFields) throws(GenesysWireError) {
        let attributes =
            try fields.optionalObject("channel").map { channel throws(GenesysWireError) in
                try channel.object("metadata").stringMap("customAttributes")
            } ?? [:]
        switch try fields.string("type") {
        case "Event":
            var events: [GenesysEvent] = []
            for (value, path) in try fields.array("events") {
                events.append(try GenesysEvent(GenesysFields(value, path: path)))
            }
            self = .event(events, customAttributes: attributes)
        case let type where type == "Text" || type == "Structured":
            var content: [Content] = []
            for (value, path) in try fields.array("content") {
                content.append(try Content(GenesysFields(value, path: path)))
            }
            let text = try fields.string("text")
            let metadata = try fields.stringMap("metadata")
            self =
                type == "Text"
                ? .text(text, metadata: metadata, content: content, customAttributes: attributes)
                : .structured(text, metadata: metadata, content: content, customAttributes: attributes)
        default:
            throw .bad(fields.path("type"), "is not one of Text, Structured, Event")
        }
    }
}

extension GenesysOutgoingMessage.Content {
    var json: JSONValue {
        switch self {
        case .attachment(let id):
            .object(["contentType": .string("Attachment"), "attachment": .object(["id": .string(id)])])
        case .buttonResponse(let response):
            .object(["contentType": .string("ButtonResponse"), "buttonResponse": response.json])
        }
    }

    init(_ fields: GenesysFields) throws(GenesysWireError) {
        switch try fields.string("contentType") {
        case "Attachment": self = .attachment(id: try fields.object("attachment").string("id"))
        case "ButtonResponse": self = .buttonResponse(try GenesysButtonResponse(fields.object("buttonResponse")))
        default: throw .bad(fields.path("contentType"), "is not one of Attachment, ButtonResponse")
        }
    }
}
