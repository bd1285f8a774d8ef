import Foundation

/// The frames the gateway sends (shapes from the CXone mobile SDK's received models): the heartbeat's
/// `"pong"`, postbacks that answer a client event, pushed events, and the two error shapes.
enum SimCXoneServerFrame: Sendable, Hashable {
    case pong
    /// `{"eventId": <the request's eventId>, "postback": {"eventType": …, "data": …}}`.
    case postback(eventId: String, eventType: String, data: GMSJSON)
    /// `{"eventId", "eventType", "eventObject"?, "createdAt", "data"}`.
    case event(eventId: String, eventType: String, createdAt: Date, data: GMSJSON)
    /// `{"eventId", "error": {"errorCode", "errorMessage", "transactionId": <the request's eventId>}}`.
    case operationError(code: String, message: String, transactionId: String)
    /// `{"message", "connectionId", "requestId"?}`: what the gateway answers a frame it could not handle.
    case serverError(message: String, connectionId: String, requestId: String?)

    /// The JSON text, keys sorted.
    var encoded: [UInt8] {
        switch self {
        case .pong:
            return Array("\"pong\"".utf8)
        case .postback(let eventId, let eventType, let data):
            return GMSJSON.object(["eventId": .string(eventId), "postback": ["eventType": .string(eventType), "data": data]]).encoded
        case .event(let eventId, let eventType, let createdAt, let data):
            var object: [String: GMSJSON] = [
                "eventId": .string(eventId), "eventType": .string(eventType), "createdAt": .string(SimCXoneTime.format(createdAt)), "data": data,
            ]
            if let eventObject = Self.eventObject(eventType) { object["eventObject"] = .string(eventObject) }
            return GMSJSON.object(object).encoded
        case .operationError(let code, let message, let transactionId):
            return GMSJSON.object([
                "eventId": .string(SimCXoneID.random()),
                "error": ["errorCode": .string(code), "errorMessage": .string(message), "transactionId": .string(transactionId)],
            ]).encoded
        case .serverError(let message, let connectionId, let requestId):
            var object: [String: GMSJSON] = ["message": .string(message), "connectionId": .string(connectionId)]
            if let requestId { object["requestId"] = .string(requestId) }
            return GMSJSON.object(object).encoded
        }
    }

    /// The object an event is about, as CXone names it.
    static func eventObject(_ eventType: String) -> String? {
        switch eventType {
        case "MessageCreated": "Message"
        case "CaseCreated", "CaseStatusChanged": "Case"
        case "FireProactiveAction": "ChatWindow"
        case "ThreadRecovered", "ThreadListFetched", "ThreadMetadataLoaded", "LivechatRecovered", "MoreMessagesLoaded": "Thread"
        default: nil
        }
    }
}

/// CXone ids: UUIDs in lowercase, compared without regard to case (the services mix both).
enum SimCXoneID {
    static func random() -> String { UUID().uuidString.lowercased() }

    /// The form ids are stored and looked up under.
    static func key(_ id: String) -> String { id.lowercased() }
}

/// CXone timestamps: ISO 8601 in UTC with milliseconds (`2024-05-01T12:00:00.123Z`), as the SDK writes them.
enum SimCXoneTime {
    static func format(_ date: Date) -> String {
        // Rounded to whole milliseconds first: a formatter that truncates would write .122 for a time
        // stored as .12299999.
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let seconds = (milliseconds / 1000).rounded(.down)
        let fraction = Int(milliseconds - seconds * 1000)
        let whole = Date(timeIntervalSince1970: seconds).formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(secondsFromGMT: 0)!))
        let digits = String(fraction)
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Reads the timestamps clients send: with or without fractional seconds.
    static func parse(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
