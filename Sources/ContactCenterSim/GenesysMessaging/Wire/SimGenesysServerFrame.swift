import Foundation

/// A frame the service sends: `{"type": "response"|"message", "class": …, "code": …, "body": …,
/// "tracingId"?: …}` (the SDK's `WebMessagingMessage.kt`; `MessageClassName.kt` lists the classes).
/// Answers to a request are `response`s carrying its tracingId; pushes are `message`s (the SDK's test
/// fixtures, `transport/util/Response.kt`).
struct SimGenesysServerFrame: Sendable, Hashable {
    var type: String
    var className: String
    var code: Int
    var body: GMSJSON
    var tracingId: String?

    static func response(_ className: String, _ body: GMSJSON, code: Int = 200, tracingId: String?) -> SimGenesysServerFrame {
        SimGenesysServerFrame(type: "response", className: className, code: code, body: body, tracingId: tracingId)
    }

    static func message(_ className: String, _ body: GMSJSON, tracingId: String? = nil) -> SimGenesysServerFrame {
        SimGenesysServerFrame(type: "message", className: className, code: 200, body: body, tracingId: tracingId)
    }

    /// A refusal: class `string`, the error code as `code`, the text as `body` (`Response.kt`:
    /// `{"type":"response","class":"string","code":4006,"body":"session expired error message"}`).
    static func error(_ error: SimGenesysWireError, tracingId: String?) -> SimGenesysServerFrame {
        .response("string", .string(error.description), code: error.code, tracingId: tracingId)
    }

    /// The JSON text, keys sorted.
    var encoded: [UInt8] {
        var object: [String: GMSJSON] = ["type": .string(self.type), "class": .string(self.className), "code": .int(self.code), "body": self.body]
        if let tracingId = self.tracingId { object["tracingId"] = .string(tracingId) }
        return GMSJSON.object(object).encoded
    }
}

/// A message of a conversation as the service stores it and sends it (`shyrka/receive/StructuredMessage.kt`):
/// `{"id", "type": Text|Structured|Event, "text"?, "direction": Inbound|Outbound, "channel": {"time",
/// "messageId", "type"?, "from"?}, "content": […], "events": […], "metadata"?, "originatingEntity"?}`.
struct SimGenesysMessage: Sendable, Hashable {
    var id: String
    var type: String
    var text: String?
    /// `Inbound` (the customer's) or `Outbound` (the agent's or a bot's).
    var direction: String
    var time: Date
    var content: [GMSJSON] = []
    var events: [GMSJSON] = []
    var metadata: [String: String] = [:]
    /// `Human`, `Bot` or nil (`StructuredMessage.originatingEntity`).
    var originatingEntity: String?
    /// The agent's `channel.from` participant (`nickname`, `firstName`, `image`).
    var from: GMSJSON?

    var isInbound: Bool { self.direction == "Inbound" }

    var json: GMSJSON {
        var channel: [String: GMSJSON] = ["time": .string(SimGenesysTime.format(self.time)), "messageId": .string(self.id)]
        if !self.isInbound { channel["type"] = "Private" }
        if let from = self.from { channel["from"] = from }
        var object: [String: GMSJSON] = [
            "id": .string(self.id),
            "type": .string(self.type),
            "direction": .string(self.direction),
            "channel": .object(channel),
            "content": .array(self.content),
        ]
        if let text = self.text { object["text"] = .string(text) }
        if !self.events.isEmpty { object["events"] = .array(self.events) }
        if !self.metadata.isEmpty { object["metadata"] = .object(self.metadata.mapValues { .string($0) }) }
        if let entity = self.originatingEntity { object["originatingEntity"] = .string(entity) }
        return .object(object)
    }

    /// A Presence event (`StructuredMessageEvent.kt`: `{"eventType": "Presence", "presence": {"type": …}}`).
    static func presence(_ type: String) -> GMSJSON { ["eventType": "Presence", "presence": ["type": .string(type)]] }

    /// A Typing event (`Response.kt`: `{"eventType": "Typing", "typing": {"type": "On", "duration": 5000}}`).
    static func typing(durationMilliseconds: Int) -> GMSJSON {
        ["eventType": "Typing", "typing": ["type": "On", "duration": .int(durationMilliseconds)]]
    }
}

/// Web messaging ids (lower-case UUIDs without dashes, as the history fixtures' `5befde6373a23f32f20b59b4e1cba0e6`)
/// and times (ISO 8601 UTC with milliseconds, `2022-08-22T19:24:26.704Z`).
enum SimGenesysTime {
    static func id() -> String { UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") }

    static func format(_ date: Date) -> String { SimCXoneTime.format(date) }
}
