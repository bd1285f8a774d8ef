/// Free-form JSON, for the parts of the wire whose shape the client does not interpret (rich message
/// payloads, pre-contact form fields, analytics data, events of unknown type).
package enum CXoneJSON: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    /// A number written without a fraction or exponent that fits 64 bits, kept exact: a rich message's
    /// ids or amounts past 2^53 would change as a Double (the simulator's independent codec found it).
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([CXoneJSON])
    case object([String: CXoneJSON])

    /// Numbers compare by value: `5` read back is `.integer(5)`, equal to the `.number(5)` written.
    package static func == (lhs: CXoneJSON, rhs: CXoneJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.integer(let a), .number(let b)), (.number(let b), .integer(let a)): Double(exactly: a) == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        // Equal numbers hash alike: an integer as the double it equals, when there is one.
        case .integer(let value): hasher.combine(Double(exactly: value) ?? Double(value))
        case .number(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .array(let value): hasher.combine(value)
        case .object(let value): hasher.combine(value)
        }
    }

    /// The member `key` of an object, `nil` otherwise.
    package subscript(key: String) -> CXoneJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The text of a string value.
    package var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([CXoneJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: CXoneJSON].self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
