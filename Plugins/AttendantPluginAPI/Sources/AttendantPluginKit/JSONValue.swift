/// A JSON value (RFC 8259): ``parse(_:)`` reads one, ``encoded()`` writes one.
///
/// The one JSON type of the host and its plugins: the token manager reads JWT headers and claims and
/// token endpoints' answers with it, and a plugin speaking a JSON protocol can build and read its
/// messages with it. The parser is small and of its own, with a nesting limit, so that it depends on
/// nothing and can be fuzzed alone (`Fuzz/`): any input gives a value or a ``ParseError``, never a crash.
/// Numbers are `Double`s, exact for integers up to 2⁵³.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Deeper nesting is refused rather than recursed into.
    public static let maximumDepth = 64

    public struct ParseError: Error, Hashable, CustomStringConvertible {
        public var problem: String
        /// The byte offset where it went wrong.
        public var offset: Int
        public var description: String { "\(self.problem) at byte \(self.offset)" }

        public init(problem: String, offset: Int) {
            self.problem = problem
            self.offset = offset
        }
    }

    /// Parses a whole document: one value with optional whitespace around it.
    public static func parse(_ bytes: some Collection<UInt8>) throws(ParseError) -> JSONValue {
        var parser = Parser(bytes: Array(bytes))
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.failure("text after the JSON value") }
        return value
    }

    /// The member `key` of an object; nil for other values.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// For messages: "a string", "an object", …
    public var typeDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        func failure(_ problem: String) -> ParseError { ParseError(problem: problem, offset: self.index) }

        var current: UInt8? { self.index < self.bytes.count ? self.bytes[self.index] : nil }

        mutating func skipWhitespace() {
            while let byte = self.current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                self.index += 1
            }
        }

        mutating func expect(_ literal: StaticString) throws(ParseError) {
            let text = literal.withUTF8Buffer { Array($0) }
            guard self.bytes.count - self.index >= text.count, Array(self.bytes[self.index..<self.index + text.count]) == text else {
                throw self.failure("unexpected character")
            }
            self.index += text.count
        }

        mutating func value(depth: Int) throws(ParseError) -> JSONValue {
            guard let byte = self.current else { throw self.failure("unexpected end") }
            switch byte {
            case UInt8(ascii: "{"): return try self.object(depth: depth + 1)
            case UInt8(ascii: "["): return try self.array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try self.string())
            case UInt8(ascii: "t"):
                try self.expect("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try self.expect("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try self.expect("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return .number(try self.number())
            default:
                throw self.failure("unexpected character")
            }
        }

        mutating func object(depth: Int) throws(ParseError) -> JSONValue {
            guard depth <= JSONValue.maximumDepth else { throw self.failure("nested too deeply") }
            self.index += 1
            var members: [String: JSONValue] = [:]
            self.skipWhitespace()
            if self.current == UInt8(ascii: "}") {
                self.index += 1
                return .object(members)
            }
            while true {
                self.skipWhitespace()
                guard self.current == UInt8(ascii: "\"") else { throw self.failure("expected a member name") }
                let keyOffset = self.index
                let key = try self.string()
                self.skipWhitespace()
                guard self.current == UInt8(ascii: ":") else { throw self.failure("expected ':'") }
                self.index += 1
                self.skipWhitespace()
                let value = try self.value(depth: depth)
                guard members.updateValue(value, forKey: key) == nil else {
                    throw ParseError(problem: "duplicate member name", offset: keyOffset)
                }
                self.skipWhitespace()
                switch self.current {
                case UInt8(ascii: ","): self.index += 1
                case UInt8(ascii: "}"):
                    self.index += 1
                    return .object(members)
                default: throw self.failure("expected ',' or '}'")
                }
            }
        }

        mutating func array(depth: Int) throws(ParseError) -> JSONValue {
            guard depth <= JSONValue.maximumDepth else { throw self.failure("nested too deeply") }
            self.index += 1
            var items: [JSONValue] = []
            self.skipWhitespace()
            if self.current == UInt8(ascii: "]") {
                self.index += 1
                return .array(items)
            }
            while true {
                self.skipWhitespace()
                items.append(try self.value(depth: depth))
                self.skipWhitespace()
                switch self.current {
                case UInt8(ascii: ","): self.index += 1
                case UInt8(ascii: "]"):
                    self.index += 1
                    return .array(items)
                default: throw self.failure("expected ',' or ']'")
                }
            }
        }

        mutating func number() throws(ParseError) -> Double {
            let start = self.index
            func digits(_ parser: inout Parser) -> Int {
                let from = parser.index
                while let byte = parser.current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { parser.index += 1 }
                return parser.index - from
            }
            if self.current == UInt8(ascii: "-") { self.index += 1 }
            if self.current == UInt8(ascii: "0") {
                self.index += 1
            } else if digits(&self) == 0 {
                throw self.failure("expected a digit")
            }
            if self.current == UInt8(ascii: ".") {
                self.index += 1
                guard digits(&self) > 0 else { throw self.failure("expected a digit after '.'") }
            }
            if self.current == UInt8(ascii: "e") || self.current == UInt8(ascii: "E") {
                self.index += 1
                if self.current == UInt8(ascii: "+") || self.current == UInt8(ascii: "-") { self.index += 1 }
                guard digits(&self) > 0 else { throw self.failure("expected a digit in the exponent") }
            }
            let text = String(decoding: self.bytes[start..<self.index], as: UTF8.self)
            guard let number = Double(text) else { throw ParseError(problem: "not a number", offset: start) }
            // A number past Double's range would be infinity, which JSON cannot carry back out.
            guard number.isFinite else { throw ParseError(problem: "a number out of range", offset: start) }
            return number
        }

        mutating func string() throws(ParseError) -> String {
            self.index += 1  // the opening quote
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush(_ parser: Parser) throws(ParseError) {
                guard !raw.isEmpty else { return }
                guard let text = String(validating: raw, as: UTF8.self) else { throw parser.failure("invalid UTF-8 in a string") }
                scalars.append(contentsOf: text.unicodeScalars)
                raw.removeAll(keepingCapacity: true)
            }
            while true {
                guard let byte = self.current else { throw self.failure("unterminated string") }
                switch byte {
                case UInt8(ascii: "\""):
                    try flush(self)
                    self.index += 1
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    try flush(self)
                    self.index += 1
                    scalars.append(try self.escape())
                case 0x00..<0x20:
                    throw self.failure("control character in a string")
                default:
                    raw.append(byte)
                    self.index += 1
                }
            }
        }

        mutating func escape() throws(ParseError) -> Unicode.Scalar {
            guard let byte = self.current else { throw self.failure("unterminated escape") }
            self.index += 1
            switch byte {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let first = try self.hex4()
                if (0xD800..<0xDC00).contains(first) {
                    guard self.current == UInt8(ascii: "\\") else { throw self.failure("lone surrogate") }
                    self.index += 1
                    guard self.current == UInt8(ascii: "u") else { throw self.failure("lone surrogate") }
                    self.index += 1
                    let second = try self.hex4()
                    guard (0xDC00..<0xE000).contains(second) else { throw self.failure("lone surrogate") }
                    let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    guard let scalar = Unicode.Scalar(combined) else { throw self.failure("invalid escape") }
                    return scalar
                }
                guard let scalar = Unicode.Scalar(first) else { throw self.failure("lone surrogate") }
                return scalar
            default:
                throw self.failure("invalid escape")
            }
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let byte = self.current else { throw self.failure("unterminated escape") }
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw self.failure("invalid \\u escape")
                }
                value = value << 4 | UInt32(digit)
                self.index += 1
            }
            return value
        }
    }
}

// MARK: Reading and writing

extension JSONValue {
    /// The string, or nil for other values.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The number, or nil for other values.
    public var numberValue: Double? { if case .number(let value) = self { value } else { nil } }
    /// The number if it is a whole one that fits, or nil.
    public var integerValue: Int64? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) <= 9_007_199_254_740_992 else { return nil }
        return Int64(value)
    }
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }

    /// The value as compact JSON text (UTF-8), members in key order so the same value gives the same text.
    public func encoded() -> [UInt8] {
        var output: [UInt8] = []
        self.write(to: &output)
        return output
    }

    /// ``encoded()`` as a string.
    public var text: String { String(decoding: self.encoded(), as: UTF8.self) }

    private func write(to output: inout [UInt8]) {
        switch self {
        case .null: output += Array("null".utf8)
        case .bool(let value): output += Array((value ? "true" : "false").utf8)
        case .number(let value): output += Array(Self.format(value).utf8)
        case .string(let value): Self.write(value, to: &output)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                value.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.write(key, to: &output)
                output.append(UInt8(ascii: ":"))
                members[key]!.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Whole numbers without a fraction; JSON has no NaN or infinity, so those become null.
    private static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    private static func write(_ string: String, to output: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x00..<0x20: output += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
