import Foundation

/// A JSON value as the GMS server reads and writes it. The server has its own small JSON type, on
/// Foundation's `JSONDecoder`/`JSONEncoder`, and does not reuse the plugin's Bayeux codec (`GMSCore`): a
/// misreading shared by both sides would pass every test, so the two sides are kept independent.
enum GMSJSON: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([GMSJSON])
    case object([String: GMSJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([GMSJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: GMSJSON].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Parses UTF-8 JSON text; nil if it is not JSON.
    static func parse(_ bytes: some Collection<UInt8>) -> GMSJSON? {
        try? JSONDecoder().decode(GMSJSON.self, from: Data(bytes))
    }

    /// The value as an HTTP answer.
    func reply(status: Int = 200) -> HTTPReply { .encoded(self.encoded, status: status) }

    /// The compact JSON text, keys sorted.
    var encoded: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map(Array.init) ?? Array("null".utf8)
    }

    subscript(key: String) -> GMSJSON? {
        get {
            guard case .object(let object) = self else { return nil }
            return object[key]
        }
        set {
            guard case .object(var object) = self else { return }
            object[key] = newValue
            self = .object(object)
        }
    }

    var string: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// An integer, or a string holding one (GMS clients send positions either way).
    var intOrNumericString: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value.rounded() == value: return Int(value)
        case .string(let text): return Int(text.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    var array: [GMSJSON]? {
        guard case .array(let value) = self else { return nil }
        return value
    }

    var object: [String: GMSJSON]? {
        guard case .object(let value) = self else { return nil }
        return value
    }

    /// A scalar as text (`"4"` for 4 and for "4"), for logs and counters.
    var text: String? {
        switch self {
        case .string(let value): return value
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .bool(let value): return String(value)
        default: return nil
        }
    }
}

extension GMSJSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .int(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(arrayLiteral elements: GMSJSON...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, GMSJSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
