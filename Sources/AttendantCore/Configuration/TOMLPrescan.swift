/// What a configuration file's text is looked at for before TOMLKit reads it: the invalid TOML on which
/// toml++ 3.4 (the C++ parser under TOMLKit) fails one of its own assertions instead of reporting an error.
/// An assertion aborts the process: `--check-config`, the daemon's start, and, worst, a running daemon's
/// reload after the person saved a typo. Each case here was found by `scripts/fuzz toml`, and each is
/// invalid TOML 1.0.0, so no valid file is refused.
///
/// - A table header whose key starts with neither a key character nor a quote (`[=]`, `[#]`, `[é]`, `[`
///   and a control character): TOML allows only a bare key (A-Z, a-z, 0-9, `-`, `_`) or a quoted one there,
///   after optional spaces or tabs; toml++ asserts in `parse_key`.
/// - A value that starts as a date or a time (four digits and `-`, or two digits and `:`) and is not one:
///   toml++ decides a value's type from its characters, then asserts what that type's reader expects
///   (`d = 1979-05-27 7` and `c = 1979-05-2= 7` in `parse_value`'s scan, `a = 1980-05-27T\u{1E}7:` in
///   `parse_time`). Here such a value must be a date, a time or a date-time as TOML 1.0.0's grammar has
///   them (RFC 3339 with `T`, `t` or a space between), whatever its digits say.
///
/// - A `}` while an array is the innermost open value (`a=[}`, `a = [1, }`): toml++ asserts in
///   `parse_value` when an array's next value starts with it. An array ends with `]` only.
///
/// What is inside strings and comments is skipped.
enum TOMLPrescan {
    /// The first such place, as (line, column), both from 1, and what is wrong there.
    static func problem(in text: String) -> (line: Int, column: Int, problem: String)? {
        var scanner = Scanner(bytes: Array(text.utf8))
        return scanner.run()
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var lineStart = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        func at(_ offset: Int) -> UInt8? { self.index + offset < self.bytes.count ? self.bytes[self.index + offset] : nil }

        var column: Int { self.bytes[self.lineStart..<self.index].filter { $0 & 0xC0 != 0x80 }.count + 1 }

        mutating func newline() {
            self.line += 1
            self.lineStart = self.index + 1
        }

        mutating func run() -> (line: Int, column: Int, problem: String)? {
            var inValue = false
            // The arrays and inline tables open in the value, innermost last; in an inline table a key
            // comes first, then `=` and its value.
            var open: [UInt8] = []
            var expectsKey = false
            while self.index < self.bytes.count {
                let byte = self.bytes[self.index]
                switch byte {
                case UInt8(ascii: "\n"):
                    self.newline()
                    if open.isEmpty { inValue = false }
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    self.skipString()
                    continue
                case UInt8(ascii: "#"):
                    self.skipComment()
                    continue
                case UInt8(ascii: "0")...UInt8(ascii: "9") where self.startsToken:
                    if inValue && !expectsKey, let problem = self.dateOrTimeProblem() { return (self.line, self.column, problem) }
                    // A date-time with a space is one value; otherwise the rest of the token (a date's
                    // digits never start another), up to what this loop still has to see.
                    let first = self.token(at: 0)
                    if inValue && !expectsKey, first.count == 10, first[4] == UInt8(ascii: "-"), self.at(10) == UInt8(ascii: " "),
                        let next = self.at(11), (48...57).contains(next)
                    {
                        self.index += 11 + self.token(at: 11).count
                    } else {
                        while let next = self.at(0), !Self.endsValue(next), !"=[{\"'".utf8.contains(next) { self.index += 1 }
                    }
                    continue
                case UInt8(ascii: "="):
                    inValue = true
                    expectsKey = false
                case UInt8(ascii: "[") where inValue, UInt8(ascii: "{") where inValue:
                    open.append(byte)
                    expectsKey = byte == UInt8(ascii: "{")
                case UInt8(ascii: "]") where inValue, UInt8(ascii: "}") where inValue:
                    if byte == UInt8(ascii: "}") && open.last == UInt8(ascii: "[") {
                        return (self.line, self.column, "an array ends with ], not }")
                    }
                    _ = open.popLast()
                    expectsKey = false
                case UInt8(ascii: ",") where inValue:
                    expectsKey = open.last == UInt8(ascii: "{")
                case UInt8(ascii: "["):
                    self.index += self.at(1) == UInt8(ascii: "[") ? 2 : 1
                    while self.at(0) == UInt8(ascii: " ") || self.at(0) == UInt8(ascii: "\t") { self.index += 1 }
                    guard let first = self.at(0) else { return nil }
                    if !Self.isKeyStart(first) {
                        return (self.line, self.column, "a table header needs a key: bare (letters, digits, - and _) or quoted")
                    }
                    // The rest of the header: its quoted keys, then a comment or the end of the line.
                    while let next = self.at(0), next != UInt8(ascii: "\n"), next != UInt8(ascii: "#") {
                        if next == UInt8(ascii: "\"") || next == UInt8(ascii: "'") { self.skipString() } else { self.index += 1 }
                    }
                    continue
                default:
                    break
                }
                self.index += 1
            }
            return nil
        }

        /// Whether a digit here starts a token: the text's start, or after what ends one or starts a value.
        var startsToken: Bool {
            guard self.index > 0 else { return true }
            let before = self.bytes[self.index - 1]
            return Self.endsValue(before) || before == UInt8(ascii: "=") || before == UInt8(ascii: "[") || before == UInt8(ascii: "{")
        }

        /// toml++'s value terminators (whitespace, `]`, `}`, `,`, `#`), with every byte of a character
        /// outside ASCII counted as one too: toml++ also ends a value at Unicode's other spaces, and at
        /// worst this finds a problem in text that is not TOML either way.
        static func endsValue(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0B, 0x0C,
                UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ","), UInt8(ascii: "#"):
                true
            default: byte >= 0x80
            }
        }

        /// The token here, up to the value's end.
        func token(at offset: Int) -> [UInt8] {
            var token: [UInt8] = []
            while let byte = self.at(offset + token.count), !Self.endsValue(byte) { token.append(byte) }
            return token
        }

        /// What is wrong with a value that starts here as a date or a time, if it is not one.
        func dateOrTimeProblem() -> String? {
            let first = self.token(at: 0)
            func isDigits(_ bytes: ArraySlice<UInt8>) -> Bool { !bytes.isEmpty && bytes.allSatisfy { (48...57).contains($0) } }
            let startsDate = first.count >= 5 && isDigits(first[0..<4]) && first[4] == UInt8(ascii: "-")
            let startsTime = first.count >= 3 && isDigits(first[0..<2]) && first[2] == UInt8(ascii: ":")
            let shown = String(decoding: first, as: UTF8.self)
            // toml++ counts characters, not bytes: a value of ten characters with `-` as the fifth and the
            // eighth and a space after is read as a date whose time follows, whatever the other eight are,
            // and an assertion fails when they are no date (`a=197\u{FFFD}-05-2= 7`, found by fuzzing).
            var wide: [UInt8] = []
            while let byte = self.at(wide.count), byte >= 0x80 || !Self.endsValue(byte) { wide.append(byte) }
            let scalars = Array(String(decoding: wide, as: UTF8.self).unicodeScalars)
            if !startsDate, scalars.count == 10, scalars[4] == "-", scalars[7] == "-", self.at(wide.count) == UInt8(ascii: " ") {
                return "\(String(decoding: wide, as: UTF8.self)) is not a date: a date is YYYY-MM-DD"
            }
            guard startsDate || startsTime else { return nil }
            guard startsDate else {
                return Self.isTime(first[...], offset: false)
                    ? nil : "\(shown) is not a time: a local time is HH:MM:SS, with a fraction of a second if any"
            }
            let date = "a date is YYYY-MM-DD, and a date-time YYYY-MM-DDTHH:MM:SS with a fraction and Z or ±HH:MM if any (T may be a space)"
            guard first.count >= 10, isDigits(first[5..<7]), first[7] == UInt8(ascii: "-"), isDigits(first[8..<10]) else {
                return "\(shown) is not a date: \(date)"
            }
            if first.count == 10 {
                // A space and a digit make it a date-time whose time is the next token (toml++ reads it so).
                guard self.at(10) == UInt8(ascii: " "), let next = self.at(11), (48...57).contains(next) else { return nil }
                let time = self.token(at: 11)
                return Self.isTime(time[...], offset: true)
                    ? nil : "\(shown) \(String(decoding: time, as: UTF8.self)) is not a date-time: \(date)"
            }
            guard first[10] == UInt8(ascii: "T") || first[10] == UInt8(ascii: "t"), Self.isTime(first[11...], offset: true) else {
                return "\(shown) is not a date-time: \(date)"
            }
            return nil
        }

        /// HH:MM:SS, a fraction if any, and with `offset` Z or ±HH:MM if any (TOML 1.0.0: partial-time,
        /// time-offset).
        static func isTime(_ text: ArraySlice<UInt8>, offset: Bool) -> Bool {
            var rest = text
            func digits(_ count: Int) -> Bool {
                guard rest.count >= count, rest.prefix(count).allSatisfy({ (48...57).contains($0) }) else { return false }
                rest = rest.dropFirst(count)
                return true
            }
            func literal(_ byte: UInt8) -> Bool {
                guard rest.first == byte else { return false }
                rest = rest.dropFirst()
                return true
            }
            guard digits(2), literal(UInt8(ascii: ":")), digits(2), literal(UInt8(ascii: ":")), digits(2) else { return false }
            if literal(UInt8(ascii: ".")) {
                guard digits(1) else { return false }
                while let next = rest.first, (48...57).contains(next) { rest = rest.dropFirst() }
            }
            guard offset, let sign = rest.first else { return rest.isEmpty }
            if sign == UInt8(ascii: "Z") || sign == UInt8(ascii: "z") { return rest.count == 1 }
            guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return false }
            rest = rest.dropFirst()
            return digits(2) && literal(UInt8(ascii: ":")) && digits(2) && rest.isEmpty
        }

        static func isKeyStart(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "]"):
                true  // `[]` is toml++'s own error
            default: false
            }
        }

        /// Skips a string that starts here, multi-line or not; stops after it, or at the end of the line of
        /// an unterminated single-line one.
        mutating func skipString() {
            let quote = self.bytes[self.index]
            let multiline = self.at(1) == quote && self.at(2) == quote
            self.index += multiline ? 3 : 1
            while self.index < self.bytes.count {
                let byte = self.bytes[self.index]
                if byte == UInt8(ascii: "\\") && quote == UInt8(ascii: "\"") {
                    if self.at(1) == UInt8(ascii: "\n") {
                        self.index += 1
                        self.newline()
                    }
                    self.index += 2
                    continue
                }
                if byte == UInt8(ascii: "\n") {
                    guard multiline else { return }
                    self.newline()
                } else if byte == quote && (!multiline || (self.at(1) == quote && self.at(2) == quote)) {
                    self.index += multiline ? 3 : 1
                    // Up to two more quotes belong to a multi-line string's text.
                    while multiline && self.at(0) == quote && self.at(1) == quote && self.at(2) == quote { self.index += 1 }
                    return
                }
                self.index += 1
            }
        }

        mutating func skipComment() {
            while let byte = self.at(0), byte != UInt8(ascii: "\n") { self.index += 1 }
        }
    }
}
