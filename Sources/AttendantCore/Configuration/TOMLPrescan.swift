/// What a configuration file's text is looked at for before TOMLKit reads it: the invalid TOML on which
/// toml++ 3.4 (the C++ parser under TOMLKit) fails one of its own assertions instead of reporting an error.
/// An assertion aborts the process: `--check-config`, the daemon's start, and, worst, a running daemon's
/// reload after the person saved a typo. Each case here was found by `scripts/fuzz toml`, and each is
/// invalid TOML 1.0.0, so no valid file is refused.
///
/// - A table header whose key starts with neither a key character nor a quote (`[=]`, `[#]`, `[é]`, `[`
///   and a control character): TOML allows only a bare key (A-Z, a-z, 0-9, `-`, `_`) or a quoted one there,
///   after optional spaces or tabs; toml++ asserts in `parse_key`.
/// - A date-like value followed by a space and one digit, then the value's end (`d = 1979-05-27 7`,
///   `c = 1979-05-2= 7`): toml++ takes the space for a date-time's `T`, reads the digit, and scans on from
///   the value's end (`parse_value`'s `scan`, which asserts it is not there). A time needs two-digit hours,
///   so this is never a date-time.
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
            var depth = 0
            while self.index < self.bytes.count {
                let byte = self.bytes[self.index]
                switch byte {
                case UInt8(ascii: "\n"):
                    self.newline()
                    if depth == 0 { inValue = false }
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    self.skipString()
                    continue
                case UInt8(ascii: "#"):
                    self.skipComment()
                    continue
                case UInt8(ascii: "0")...UInt8(ascii: "9") where self.startsToken:
                    if self.dateThenLoneDigit() {
                        return (self.line, self.column, "a date is followed by a space and one digit; a date-time is DATE HH:MM:SS")
                    }
                    // The rest of the token (a date's digits never start another), up to what this loop
                    // still has to see.
                    while let next = self.at(0), !Self.endsValue(next), !"=[{\"'".utf8.contains(next) { self.index += 1 }
                    continue
                case UInt8(ascii: "=") where !inValue:
                    inValue = true
                case UInt8(ascii: "[") where inValue, UInt8(ascii: "{") where inValue:
                    depth += 1
                case UInt8(ascii: "]") where inValue, UInt8(ascii: "}") where inValue:
                    depth = max(0, depth - 1)
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

        /// toml++'s test (`parse_value`): ten characters besides underscores, a digit first and `-` fifth
        /// and eighth, then one space and a digit; here also the value's end right after that digit, the
        /// case it asserts on.
        func dateThenLoneDigit() -> Bool {
            var characters: [UInt8] = []
            var offset = 0
            while let byte = self.at(offset), !Self.endsValue(byte), characters.count <= 10 {
                if byte != UInt8(ascii: "_") { characters.append(byte) }
                offset += 1
            }
            guard characters.count == 10, characters[4] == UInt8(ascii: "-"), characters[7] == UInt8(ascii: "-") else { return false }
            guard self.at(offset) == UInt8(ascii: " "), let digit = self.at(offset + 1), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit)
            else { return false }
            return self.at(offset + 2).map(Self.endsValue) ?? false
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
