/// One D-Bus value, with enough type information to write it back (an empty array still knows its
/// element type).
public indirect enum BusValue: Sendable, Hashable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A file descriptor. Read from a message, it is a duplicate the reader owns and must close.
    case unixFD(Int32)
    /// `a<element>`; `element` is the element's signature.
    case array(element: String, [BusValue])
    /// `a{<key><value>}`.
    case dictionary(key: String, value: String, [Entry])
    /// `(…)`.
    case structure([BusValue])
    /// `v`.
    case variant(BusValue)

    public struct Entry: Sendable, Hashable {
        public var key: BusValue
        public var value: BusValue
        public init(_ key: BusValue, _ value: BusValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value's D-Bus type signature.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let members): "(" + members.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }
}

// MARK: - Building

extension BusValue {
    /// `a{sv}`: the usual "vardict" of properties and options.
    public static func vardict(_ entries: [String: BusValue]) -> BusValue {
        .dictionary(
            key: "s",
            value: "v",
            entries.sorted { $0.key < $1.key }.map { Entry(.string($0.key), .variant($0.value)) }
        )
    }

    /// `as`.
    public static func strings(_ values: [String]) -> BusValue {
        .array(element: "s", values.map(BusValue.string))
    }
}

// MARK: - Reading

extension BusValue {
    public var string: String? {
        switch self {
        case .string(let value), .objectPath(let value), .signature(let value): value
        case .variant(let inner): inner.string
        default: nil
        }
    }

    public var bool: Bool? {
        switch self {
        case .boolean(let value): value
        case .variant(let inner): inner.bool
        default: nil
        }
    }

    /// Any integer type that fits.
    public var int64: Int64? {
        switch self {
        case .byte(let v): Int64(v)
        case .int16(let v): Int64(v)
        case .uint16(let v): Int64(v)
        case .int32(let v): Int64(v)
        case .uint32(let v): Int64(v)
        case .int64(let v): v
        case .uint64(let v): Int64(exactly: v)
        case .variant(let inner): inner.int64
        default: nil
        }
    }

    public var uint32: UInt32? { self.int64.flatMap { UInt32(exactly: $0) } }

    public var double: Double? {
        switch self {
        case .double(let v): v
        case .variant(let inner): inner.double
        default: self.int64.map(Double.init)
        }
    }

    /// The elements of an array (or the members of a structure).
    public var elements: [BusValue]? {
        switch self {
        case .array(_, let values), .structure(let values): values
        case .variant(let inner): inner.elements
        default: nil
        }
    }

    /// A dictionary with string keys, variants unwrapped (`a{sv}`, `a{ss}`, …).
    public var stringDictionary: [String: BusValue]? {
        switch self {
        case .dictionary(_, _, let entries):
            var result: [String: BusValue] = [:]
            for entry in entries {
                guard let key = entry.key.string else { return nil }
                if case .variant(let inner) = entry.value {
                    result[key] = inner
                } else {
                    result[key] = entry.value
                }
            }
            return result
        case .variant(let inner):
            return inner.stringDictionary
        default:
            return nil
        }
    }
}

extension BusValue: CustomStringConvertible {
    /// A readable form, as busctl prints values.
    public var description: String {
        switch self {
        case .byte(let v): "\(v)"
        case .boolean(let v): v ? "true" : "false"
        case .int16(let v): "\(v)"
        case .uint16(let v): "\(v)"
        case .int32(let v): "\(v)"
        case .uint32(let v): "\(v)"
        case .int64(let v): "\(v)"
        case .uint64(let v): "\(v)"
        case .double(let v): "\(v)"
        case .string(let v), .objectPath(let v), .signature(let v): "\"\(v)\""
        case .unixFD(let v): "fd \(v)"
        case .array(_, let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(_, _, let entries): "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .structure(let members): "(" + members.map(\.description).joined(separator: ", ") + ")"
        case .variant(let inner): inner.description
        }
    }
}
