/// The input line of the conversation view: its text and cursor, and the edits the keys make. No I/O.
struct LineEditor: Sendable, Hashable {
    private(set) var characters: [Character] = []
    /// Where the cursor is, as the number of characters before it.
    private(set) var cursor = 0

    init(_ text: String = "") {
        self.characters = Array(text)
        self.cursor = self.characters.count
    }

    var text: String { String(self.characters) }
    var isEmpty: Bool { self.characters.isEmpty }

    /// Inserts `text` at the cursor; control characters are dropped.
    mutating func insert(_ text: String) {
        let printable = text.filter { !TextWidth.isControl($0) }
        self.characters.insert(contentsOf: printable, at: self.cursor)
        self.cursor += printable.count
    }

    /// Deletes the character before the cursor; whether there was one.
    @discardableResult
    mutating func backspace() -> Bool {
        guard self.cursor > 0 else { return false }
        self.cursor -= 1
        self.characters.remove(at: self.cursor)
        return true
    }

    /// Deletes the character under the cursor; whether there was one.
    @discardableResult
    mutating func deleteForward() -> Bool {
        guard self.cursor < self.characters.count else { return false }
        self.characters.remove(at: self.cursor)
        return true
    }

    mutating func left() { self.cursor = max(0, self.cursor - 1) }
    mutating func right() { self.cursor = min(self.characters.count, self.cursor + 1) }
    mutating func home() { self.cursor = 0 }
    mutating func end() { self.cursor = self.characters.count }

    /// Ctrl-U: erases from the start of the line to the cursor.
    mutating func eraseToStart() {
        self.characters.removeFirst(self.cursor)
        self.cursor = 0
    }

    /// Ctrl-W: erases the word before the cursor and the spaces after it.
    mutating func eraseWord() {
        var start = self.cursor
        while start > 0, self.characters[start - 1] == " " { start -= 1 }
        while start > 0, self.characters[start - 1] != " " { start -= 1 }
        self.characters.removeSubrange(start..<self.cursor)
        self.cursor = start
    }

    /// The text, and the line emptied.
    mutating func take() -> String {
        defer { self = LineEditor() }
        return self.text
    }

    /// What fits in `width` columns with the cursor in view (the line scrolls sideways when longer), and
    /// the cursor's column in it.
    func visible(width: Int) -> (text: String, cursorColumn: Int) {
        guard width > 1 else { return ("", 0) }
        // The cursor needs a column of its own at the end of the line.
        var start = 0
        var used = self.characters[..<self.cursor].reduce(0) { $0 + TextWidth.of($1) }
        while used > width - 1, start < self.cursor {
            used -= TextWidth.of(self.characters[start])
            start += 1
        }
        var shown = ""
        var columns = 0
        for character in self.characters[start...] {
            let width1 = TextWidth.of(character)
            guard columns + width1 <= width else { break }
            shown.append(character)
            columns += width1
        }
        return (shown, used)
    }
}

/// How many terminal columns text takes: 2 for East Asian wide and fullwidth characters and emoji, 1 for
/// the rest (a sane subset of Unicode's East Asian Width, UAX #11, as wcwidth implementations apply it).
enum TextWidth {
    static func of(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
            0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    static func of(_ text: some StringProtocol) -> Int { text.reduce(0) { $0 + self.of($1) } }

    /// C0 and C1 controls and DEL: never written to the terminal as they are, so text from the network
    /// cannot move the cursor or change the terminal's state.
    static func isControl(_ character: Character) -> Bool {
        character.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    /// `text` with each control character as a space (line breaks included).
    static func printable(_ text: some StringProtocol) -> String {
        String(text.map { self.isControl($0) ? " " : $0 })
    }

    /// The longest start of `text` that fits in `width` columns.
    static func prefix(_ text: String, width: Int) -> String {
        var result = ""
        var used = 0
        for character in text {
            let next = self.of(character)
            guard used + next <= width else { break }
            result.append(character)
            used += next
        }
        return result
    }
}
