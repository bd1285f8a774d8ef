/// Byte classes of RFC 3261's grammar (section 25.1), and a cursor over a header value's UTF-8 bytes.
enum SIPSyntax {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09

    /// `token` characters: alphanumerics and `-.!%*_+`'~`.
    static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "%"), UInt8(ascii: "*"),
            UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "`"), UInt8(ascii: "'"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    static func isAlpha(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    /// Control characters other than horizontal tab, which never belong in a header line.
    static func isForbiddenControl(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != tab) || byte == 0x7F }

    static func isToken(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isToken)
    }

    /// Splits a header value into its comma-separated elements, ignoring commas inside quoted strings and
    /// angle brackets; empty elements are dropped.
    static func splitList(_ value: String) -> [String] {
        var elements: [String] = []
        var current: [UInt8] = []
        var inQuotes = false
        var escaped = false
        var angleDepth = 0
        for byte in value.utf8 {
            if inQuotes {
                current.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inQuotes = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inQuotes = true
                current.append(byte)
            case UInt8(ascii: "<"):
                angleDepth += 1
                current.append(byte)
            case UInt8(ascii: ">"):
                angleDepth = max(0, angleDepth - 1)
                current.append(byte)
            case UInt8(ascii: ",") where angleDepth == 0:
                let element = trimmed(current)
                if !element.isEmpty { elements.append(element) }
                current.removeAll(keepingCapacity: true)
            default:
                current.append(byte)
            }
        }
        let element = trimmed(current)
        if !element.isEmpty { elements.append(element) }
        return elements
    }

    static func trimmed(_ bytes: some Collection<UInt8>) -> String {
        let slice = Array(bytes)
        var lower = 0
        var upper = slice.count
        while lower < upper, isWhitespace(slice[lower]) { lower += 1 }
        while upper > lower, isWhitespace(slice[upper - 1]) { upper -= 1 }
        return String(decoding: slice[lower..<upper], as: UTF8.self)
    }

    static func trimmed(_ text: some StringProtocol) -> String {
        trimmed(Array(text.utf8))
    }

    /// ASCII-only lowercasing: header names, schemes and parameter names are ASCII.
    static func lowercased(_ text: some StringProtocol) -> String {
        String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    static func equalsIgnoringCase(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        lhs.utf8.count == rhs.utf8.count
            && zip(lhs.utf8, rhs.utf8).allSatisfy { a, b in
                (a >= 0x41 && a <= 0x5A ? a | 0x20 : a) == (b >= 0x41 && b <= 0x5A ? b | 0x20 : b)
            }
    }

    /// A non-negative decimal that fits `UInt32` (delta-seconds, CSeq numbers), or nil.
    static func parseUInt32(_ text: some StringProtocol) -> UInt32? {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= 10, bytes.allSatisfy(isDigit) else { return nil }
        var value: UInt64 = 0
        for byte in bytes { value = value * 10 + UInt64(byte - UInt8(ascii: "0")) }
        return value <= UInt64(UInt32.max) ? UInt32(value) : nil
    }

    /// `text` as a `quoted-string`, with `"` and `\` escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text.unicodeScalars {
            switch character {
            case "\"", "\\":
                result.append("\\")
                result.unicodeScalars.append(character)
            case "\r", "\n":
                result.append(" ")
            default:
                result.unicodeScalars.append(character)
            }
        }
        result.append("\"")
        return result
    }
}

/// A cursor over the UTF-8 bytes of one header value.
struct SIPScanner {
    let bytes: [UInt8]
    var index: Int = 0

    init(_ text: some StringProtocol) {
        self.bytes = Array(text.utf8)
    }

    var isAtEnd: Bool { self.index >= self.bytes.count }

    var peek: UInt8? { self.index < self.bytes.count ? self.bytes[self.index] : nil }

    mutating func skipWhitespace() {
        while let byte = self.peek, SIPSyntax.isWhitespace(byte) { self.index += 1 }
    }

    /// Consumes `byte` if it is next (after optional whitespace when `skippingWhitespace`).
    mutating func consume(_ byte: UInt8, skippingWhitespace: Bool = true) -> Bool {
        let saved = self.index
        if skippingWhitespace { self.skipWhitespace() }
        if self.peek == byte {
            self.index += 1
            return true
        }
        self.index = saved
        return false
    }

    mutating func readWhile(_ predicate: (UInt8) -> Bool) -> String {
        let start = self.index
        while let byte = self.peek, predicate(byte) { self.index += 1 }
        return String(decoding: self.bytes[start..<self.index], as: UTF8.self)
    }

    mutating func readToken() -> String? {
        let token = self.readWhile(SIPSyntax.isToken)
        return token.isEmpty ? nil : token
    }

    /// Reads a `quoted-string` starting at the opening quote and returns its unescaped content, or nil if
    /// it is not closed.
    mutating func readQuotedString() -> String? {
        guard self.peek == UInt8(ascii: "\"") else { return nil }
        var index = self.index + 1
        var content: [UInt8] = []
        while index < self.bytes.count {
            let byte = self.bytes[index]
            if byte == UInt8(ascii: "\\") {
                guard index + 1 < self.bytes.count else { return nil }
                content.append(self.bytes[index + 1])
                index += 2
            } else if byte == UInt8(ascii: "\"") {
                self.index = index + 1
                return String(decoding: content, as: UTF8.self)
            } else {
                content.append(byte)
                index += 1
            }
        }
        return nil
    }

    /// The rest of the value.
    mutating func readRest() -> String {
        defer { self.index = self.bytes.count }
        return String(decoding: self.bytes[min(self.index, self.bytes.count)...], as: UTF8.self)
    }

    /// A short excerpt around the cursor for error messages.
    var excerpt: String {
        let end = min(self.bytes.count, self.index + 24)
        let start = min(self.index, end)
        let text = String(decoding: self.bytes[start..<end], as: UTF8.self)
        return text.isEmpty ? "end of value" : "'\(text)'"
    }
}
