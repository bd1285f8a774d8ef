#if canImport(AttendantPluginKit)
package import AttendantPluginKit
#endif

/// A track response, `{"success","status","response":{"messages","events","options"}}`, or an error body
/// `{"success":0,"status":400,"error":"invalid request"}` (iOS `TrackResponse.swift` and its fixtures).
///
/// Decoding is strict about the shape the SDKs rely on (each message an object with an `action` and a
/// `campaign` object, the fields they read of the right type) and keeps everything else: a message's whole
/// JSON stays in ``KarteMessage/json`` for D-Bus viewers that render the campaign themselves.
package struct KarteTrackResponse: Sendable, Hashable {
    package var success: Bool
    package var status: Int
    /// An error body's `error` text. It is the server's words: log its length, not the text.
    package var error: String?
    package var messages: [KarteMessage]
    /// `response.events`: the server's echo of the events it evaluated, kept as they came.
    package var events: [JSONValue]
    /// `response.options` (`user_id`, `session_id`, `response_timestamp`), kept as they came.
    package var options: [String: JSONValue]
    /// Paths of fields in the envelope (the top level, `response`, each message) that the SDKs do not
    /// read, sorted: they are ignored, and the driver names them (names only) in a debug log line. The
    /// insides of `action` and `campaign` are not listed: KARTE puts many widget fields there.
    package var unknownFields: [String] = []

    package init(
        success: Bool = true,
        status: Int = 200,
        error: String? = nil,
        messages: [KarteMessage] = [],
        events: [JSONValue] = [],
        options: [String: JSONValue] = [:]
    ) {
        self.success = success
        self.status = status
        self.error = error
        self.messages = messages
        self.events = events
        self.options = options
    }

    /// Large enough for many campaigns with their HTML; a body past it is refused before parsing.
    package static let defaultSizeLimit = 2 << 20

    /// Reads a response body. Errors say what is wrong and where (size, parse offset, field path and
    /// type), never what the body says.
    package static func decode(_ bytes: some Collection<UInt8>, sizeLimit: Int = defaultSizeLimit) throws(KarteDecodeError) -> KarteTrackResponse {
        guard bytes.count <= sizeLimit else { throw .tooLarge(bytes.count, limit: sizeLimit) }
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw .notJSON(error, size: bytes.count)
        }
        return try KarteTrackResponse(json: json)
    }

    package init(json: JSONValue) throws(KarteDecodeError) {
        guard case .object(let top) = json else { throw .wrong("(top level)", json, expected: "an object") }
        var unknown = top.keys.filter { !Self.knownTop.contains($0) }
        switch top["success"] {
        case .bool(let value): self.success = value
        case .number(let value): self.success = value != 0
        case let other: throw .wrong("success", other, expected: "0, 1 or a boolean")
        }
        guard let status = top["status"]?.integerValue else { throw .wrong("status", top["status"], expected: "an integer") }
        self.status = Int(status)
        self.error = try JSONFields.string(top, "error", path: "error")
        self.messages = []
        self.events = []
        self.options = [:]
        defer { self.unknownFields = unknown.sorted() }
        guard let responseValue = top["response"], responseValue != .null else { return }
        guard case .object(let response) = responseValue else { throw .wrong("response", responseValue, expected: "an object") }
        unknown += response.keys.filter { !Self.knownResponse.contains($0) }.map { "response.\($0)" }
        if let messages = try JSONFields.array(response, "messages", path: "response.messages") {
            for (index, message) in messages.enumerated() {
                let path = "response.messages[\(index)]"
                self.messages.append(try KarteMessage(json: message, path: path))
                let keys = message.objectValue.map { Array($0.keys) } ?? []
                unknown += keys.filter { !Self.knownMessage.contains($0) }.map { "\(path).\($0)" }
            }
        }
        self.events = try JSONFields.array(response, "events", path: "response.events") ?? []
        self.options = try JSONFields.object(response, "options", path: "response.options") ?? [:]
    }

    static let knownTop: Set<String> = ["success", "status", "response", "error"]
    static let knownResponse: Set<String> = ["status", "messages", "events", "options", "auto_track_definition"]
    static let knownMessage: Set<String> = ["action", "campaign", "trigger"]
}

/// Optional typed members: absent or null gives nil, another type than expected an error naming the path.
enum JSONFields {
    static func string(_ object: [String: JSONValue], _ key: String, path: String) throws(KarteDecodeError) -> String? {
        switch object[key] {
        case nil, .null?: nil
        case .string(let value)?: value
        case let other: throw .wrong(path, other, expected: "a string")
        }
    }

    static func bool(_ object: [String: JSONValue], _ key: String, path: String) throws(KarteDecodeError) -> Bool? {
        switch object[key] {
        case nil, .null?: nil
        case .bool(let value)?: value
        case let other: throw .wrong(path, other, expected: "a boolean")
        }
    }

    static func array(_ object: [String: JSONValue], _ key: String, path: String) throws(KarteDecodeError) -> [JSONValue]? {
        switch object[key] {
        case nil, .null?: nil
        case .array(let value)?: value
        case let other: throw .wrong(path, other, expected: "an array")
        }
    }

    static func object(_ object: [String: JSONValue], _ key: String, path: String) throws(KarteDecodeError) -> [String: JSONValue]? {
        switch object[key] {
        case nil, .null?: nil
        case .object(let value)?: value
        case let other: throw .wrong(path, other, expected: "an object")
        }
    }
}
