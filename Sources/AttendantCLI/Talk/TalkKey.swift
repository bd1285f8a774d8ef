/// A key the conversation view acts on, decoded from what the terminal sends in raw mode.
enum TalkKey: Sendable, Hashable {
    /// Printable text (one key, or a paste without line breaks).
    case text(String)
    case enter, backspace, delete, left, right, home, end, up, down, pageUp, pageDown
    /// Ctrl-U: erase from the start of the line to the cursor (readline's unix-line-discard).
    case eraseToStart
    /// Ctrl-W: erase the word before the cursor.
    case eraseWord
    /// Ctrl-D: leave on an empty line, else delete the character under the cursor.
    case endOfInput
    /// Ctrl-C: leave.
    case interrupt
    /// Ctrl-L: draw the screen again.
    case redraw
}

/// Turns the bytes of a terminal in raw mode into keys: UTF-8 text, control characters and the ANSI
/// (ECMA-48) sequences xterm, tmux and the Linux console send for the cursor and paging keys (`CSI A`…`D`,
/// `CSI H`/`F`, `SS3 H`/`F`, `CSI n ~`). A sequence or character split across reads is kept until the rest
/// comes; sequences it does not know are dropped whole.
struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    init() {}

    mutating func feed(_ bytes: some Sequence<UInt8>) -> [TalkKey] {
        self.pending.append(contentsOf: bytes)
        var keys: [TalkKey] = []
        var text: [UInt8] = []
        func flushText() {
            if !text.isEmpty { keys.append(.text(String(decoding: text, as: UTF8.self))) }
            text.removeAll()
        }
        var index = 0
        let input = self.pending
        decoding: while index < input.count {
            let byte = input[index]
            switch byte {
            case 0x1B:
                flushText()
                guard let (key, length) = Self.escape(input[index...]) else { break decoding }  // incomplete
                if let key { keys.append(key) }
                index += length
            case 0x00..<0x20, 0x7F:
                flushText()
                if let key = Self.control(byte) { keys.append(key) }
                index += 1
            default:
                let length = Self.utf8Length(byte)
                guard length > 0 else {
                    index += 1  // a stray continuation byte
                    continue
                }
                guard index + length <= input.count else { break decoding }  // the rest comes with the next read
                text.append(contentsOf: input[index..<(index + length)])
                index += length
            }
        }
        flushText()
        self.pending = Array(input[index...])
        return keys
    }

    private static func control(_ byte: UInt8) -> TalkKey? {
        switch byte {
        case 0x03: .interrupt
        case 0x04: .endOfInput
        case 0x0D, 0x0A: .enter
        case 0x7F, 0x08: .backspace
        case 0x15: .eraseToStart
        case 0x17: .eraseWord
        case 0x0C: .redraw
        case 0x01: .home
        case 0x05: .end
        case 0x02: .left
        case 0x06: .right
        default: nil
        }
    }

    /// The key an escape sequence at the start of `bytes` stands for (nil for one not known) and its
    /// length; nil when the sequence is not complete yet.
    private static func escape(_ bytes: ArraySlice<UInt8>) -> (TalkKey?, Int)? {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let introducer = bytes[start + 1]
        guard introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else {
            return (nil, 1)  // ESC before another key (Alt-key): the ESC is dropped, the key read on its own
        }
        var index = start + 2
        // Parameter and intermediate bytes, then a final byte in 0x40...0x7E.
        while index < bytes.endIndex, (0x20...0x3F).contains(bytes[index]) { index += 1 }
        guard index < bytes.endIndex else { return nil }
        let final = bytes[index]
        let parameters = String(decoding: bytes[(start + 2)..<index], as: UTF8.self)
        let length = index - start + 1
        guard (0x40...0x7E).contains(final) else { return (nil, length) }
        switch (final, parameters) {
        case (UInt8(ascii: "A"), _): return (.up, length)
        case (UInt8(ascii: "B"), _): return (.down, length)
        case (UInt8(ascii: "C"), _): return (.right, length)
        case (UInt8(ascii: "D"), _): return (.left, length)
        case (UInt8(ascii: "H"), _): return (.home, length)
        case (UInt8(ascii: "F"), _): return (.end, length)
        case (UInt8(ascii: "~"), "1"), (UInt8(ascii: "~"), "7"): return (.home, length)
        case (UInt8(ascii: "~"), "4"), (UInt8(ascii: "~"), "8"): return (.end, length)
        case (UInt8(ascii: "~"), "3"): return (.delete, length)
        case (UInt8(ascii: "~"), "5"): return (.pageUp, length)
        case (UInt8(ascii: "~"), "6"): return (.pageDown, length)
        default: return (nil, length)
        }
    }

    /// The length of the UTF-8 sequence `lead` starts; 0 for a byte that starts none.
    private static func utf8Length(_ lead: UInt8) -> Int {
        switch lead {
        case 0x00..<0x80: 1
        case 0xC2..<0xE0: 2
        case 0xE0..<0xF0: 3
        case 0xF0..<0xF5: 4
        default: 0
        }
    }
}
