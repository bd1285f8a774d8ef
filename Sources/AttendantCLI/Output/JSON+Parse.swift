// Reading JSON text, for the in-app action commands: `--value` and `--values` arguments, and the
// JSON-text fields of the daemon's replies (`actions`, `variables`), which --json embeds as JSON.
// A reader of its own, not the plugin kit's JSONValue: attendantctl does not link the plugin API
// (issue 11), and this one keeps integers exact for output.

extension JSON {
    /// Why a text is not JSON: what was expected and at which character (counted from 1).
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public var position: Int
        public var expected: String
        public var description: String { "expected \(self.expected) at character \(self.position)" }
    }

    /// The one JSON value `text` holds (RFC 8259; surrounding white space is allowed). Integers that
    /// fit in 64 bits are ``int(_:)``, other numbers ``double(_:)``; object keys keep their order.
    public static func parse(_ text: String) throws(ParseError) -> JSON {
        var parser = Parser(Array(text.utf8))
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.error("the end of the text") }
        return value
    }

    /// The members of an object, or nil for another value.
    public var members: [(String, JSON)]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The member `key` of an object (the last one, if it occurs twice).
    public subscript(key: String) -> JSON? {
        self.members?.last { $0.0 == key }?.1
    }

    /// The text of a string value, or nil.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        /// Deep enough for any real payload, shallow enough that nesting cannot exhaust the stack.
        static let maximumDepth = 256

        func error(_ expected: String) -> ParseError { ParseError(position: self.index + 1, expected: expected) }

        mutating func skipSpace() {
            while self.index < self.bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(self.bytes[self.index]) { self.index += 1 }
        }

        mutating func take(_ literal: String, as value: JSON) throws(ParseError) -> JSON {
            let literalBytes = Array(literal.utf8)
            guard self.bytes[self.index...].starts(with: literalBytes) else { throw self.error("a JSON value") }
            self.index += literalBytes.count
            return value
        }

        mutating func value(depth: Int) throws(ParseError) -> JSON {
            guard depth < Self.maximumDepth else { throw self.error("at most \(Self.maximumDepth) nested arrays and objects") }
            self.skipSpace()
            guard self.index < self.bytes.count else { throw self.error("a JSON value") }
            switch self.bytes[self.index] {
            case UInt8(ascii: "{"): return try self.object(depth: depth)
            case UInt8(ascii: "["): return try self.array(depth: depth)
            case UInt8(ascii: "\""): return .string(try self.string())
            case UInt8(ascii: "t"): return try self.take("true", as: .bool(true))
            case UInt8(ascii: "f"): return try self.take("false", as: .bool(false))
            case UInt8(ascii: "n"): return try self.take("null", as: .null)
            default: return try self.number()
            }
        }

        mutating func object(depth: Int) throws(ParseError) -> JSON {
            self.index += 1
            var members: [(String, JSON)] = []
            self.skipSpace()
            if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "}") {
                self.index += 1
                return .object(members)
            }
            while true {
                self.skipSpace()
                guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "\"") else { throw self.error("a quoted key") }
                let key = try self.string()
                self.skipSpace()
                guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ":") else { throw self.error("\":\"") }
                self.index += 1
                members.append((key, try self.value(depth: depth + 1)))
                self.skipSpace()
                guard self.index < self.bytes.count else { throw self.error("\",\" or \"}\"") }
                self.index += 1
                switch self.bytes[self.index - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "}"): return .object(members)
                default:
                    self.index -= 1
                    throw self.error("\",\" or \"}\"")
                }
            }
        }

        mutating func array(depth: Int) throws(ParseError) -> JSON {
            self.index += 1
            var values: [JSON] = []
            self.skipSpace()
            if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "]") {
                self.index += 1
                return .array(values)
            }
            while true {
                values.append(try self.value(depth: depth + 1))
                self.skipSpace()
                guard self.index < self.bytes.count else { throw self.error("\",\" or \"]\"") }
                self.index += 1
                switch self.bytes[self.index - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return .array(values)
                default:
                    self.index -= 1
                    throw self.error("\",\" or \"]\"")
                }
            }
        }

        mutating func string() throws(ParseError) -> String {
            self.index += 1
            var scalars = String.UnicodeScalarView()
            var run: [UInt8] = []  // unescaped bytes, decoded as UTF-8 at the next escape or the end
            func flush() {
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
                run.removeAll(keepingCapacity: true)
            }
            while self.index < self.bytes.count {
                let byte = self.bytes[self.index]
                self.index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    flush()
                    scalars.append(try self.escape())
                case 0..<0x20:
                    self.index -= 1
                    throw self.error("a control character to be escaped")
                default:
                    run.append(byte)
                }
            }
            throw self.error("a closing quote")
        }

        mutating func escape() throws(ParseError) -> Unicode.Scalar {
            guard self.index < self.bytes.count else { throw self.error("an escape") }
            let byte = self.bytes[self.index]
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
                let unit = try self.hex4()
                if (0xD800..<0xDC00).contains(unit), self.bytes[self.index...].starts(with: Array("\\u".utf8)) {
                    let mark = self.index
                    self.index += 2
                    let low = try self.hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
                    }
                    self.index = mark
                }
                return Unicode.Scalar(unit) ?? "\u{FFFD}"  // a lone surrogate
            default:
                self.index -= 1
                throw self.error("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u")
            }
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard self.index + 4 <= self.bytes.count,
                let value = UInt32(String(decoding: self.bytes[self.index..<self.index + 4], as: UTF8.self), radix: 16)
            else { throw self.error("four hexadecimal digits") }
            self.index += 4
            return value
        }

        mutating func number() throws(ParseError) -> JSON {
            let start = self.index
            func digits(_ parser: inout Parser) -> Int {
                let from = parser.index
                while parser.index < parser.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.index]) {
                    parser.index += 1
                }
                return parser.index - from
            }
            func skip(_ parser: inout Parser, _ characters: String) -> Bool {
                guard parser.index < parser.bytes.count, characters.utf8.contains(parser.bytes[parser.index]) else { return false }
                parser.index += 1
                return true
            }
            _ = skip(&self, "-")
            let integerStart = self.index
            let integerDigits = digits(&self)
            guard integerDigits > 0 else {
                self.index = start
                throw self.error("a JSON value")
            }
            guard integerDigits == 1 || self.bytes[integerStart] != UInt8(ascii: "0") else {
                self.index = integerStart
                throw self.error("a number without leading zeros")
            }
            var integral = true
            if skip(&self, ".") {
                integral = false
                guard digits(&self) > 0 else { throw self.error("digits after the decimal point") }
            }
            if skip(&self, "eE") {
                integral = false
                _ = skip(&self, "+-")
                guard digits(&self) > 0 else { throw self.error("the exponent's digits") }
            }
            let text = String(decoding: self.bytes[start..<self.index], as: UTF8.self)
            if integral, let value = Int64(text) { return .int(value) }
            guard let value = Double(text), value.isFinite else {
                self.index = start
                throw self.error("a number that fits in a double")
            }
            return .double(value)
        }
    }
}
