import AttendantControl
import Glibc

/// One line of the conversation as the view shows it.
struct TalkEntry: Sendable, Hashable {
    enum Style: Sendable, Hashable {
        /// Written by the person at this desk.
        case ours
        /// Written by an agent or a bot.
        case theirs
        /// A notice of the conversation (an agent joined or left, a pushed page, an idle warning).
        case notice
        /// Something of this view the person should know (a message not sent, the daemon gone).
        case problem
    }

    var id: String
    /// Unix seconds.
    var time: Int64
    var sender: String
    var text: String
    var style: Style
    /// Ours, sent but not answered yet.
    var pending = false
    /// Ours as this view wrote it down, until the channel reports its own copy (matched by id or text).
    var local = false
    /// The answers the message offers, shown under it as buttons.
    var choices: [ChatChoiceRecord] = []
    /// Whether its choices are the ones `/1`…`/9` answer (the latest message that offers any): numbered.
    var numbered = false
    /// The files that came with it, shown under it.
    var attachments: [ChatAttachmentRecord] = []

    /// A message of the thread as the view shows it: its kind decides notices from messages.
    init(_ message: ChatMessageRecord) {
        self.id = message.id
        self.time = message.sentAt
        self.text = message.text
        self.choices = message.choices ?? []
        self.attachments = message.attachments ?? []
        let isMessage = message.kind == "message" || message.kind.isEmpty
        switch (isMessage, message.direction) {
        case (true, "to-agent"):
            self.style = .ours
            self.sender = message.sender.isEmpty ? "You" : message.sender
        case (true, _):
            self.style = .theirs
            self.sender = message.sender.isEmpty ? (message.senderAddress.isEmpty ? "Agent" : message.senderAddress) : message.sender
        default:
            self.style = .notice
            self.sender = message.sender
            self.text = Self.notice(kind: message.kind, sender: message.sender, text: message.text)
        }
    }

    init(id: String, time: Int64, sender: String, text: String, style: Style, pending: Bool = false) {
        self.id = id
        self.time = time
        self.sender = sender
        self.text = text
        self.style = style
        self.pending = pending
        self.local = pending
    }

    /// A notice in words: "Ada Lovelace joined", "Ada Lovelace pushed https://…".
    static func notice(kind: String, sender: String, text: String) -> String {
        let who = sender.isEmpty ? "The agent" : sender
        switch kind {
        case "joined": return "\(who) joined"
        case "left": return "\(who) left"
        case "push-url": return "\(who) sent a page: \(text)"
        case "idle-alert": return text.isEmpty ? "The conversation is idle and will close" : text
        default: return text.isEmpty ? "\(who): \(kind)" : (sender.isEmpty ? text : "\(who): \(text)")
        }
    }
}

/// One row of the transcript area, before styling.
struct TranscriptLine: Sendable, Hashable {
    var text: String
    var style: TalkEntry.Style
    /// Whether the row starts an entry (its time and sender are on it).
    var first: Bool
    /// The place of its entry in the entries laid out.
    var entry = 0
}

/// Lays the transcript out for a width: `HH:MM Sender: text` (the date too for another day), notices as
/// `HH:MM -- text`, wrapped at spaces (a word longer than the line is cut) with the continuation rows
/// indented under the text. A message's choices follow as buttons (`[1] Billing  [2] Orders`, numbered
/// when `/1`…`/9` answer them; a link with its URL), and its files as `[file] NAME (TYPE, SIZE)`. No I/O;
/// the clock is given.
enum TranscriptLayout {
    static func lines(_ entries: [TalkEntry], width: Int, clock: (Int64) -> String) -> [TranscriptLine] {
        var result: [TranscriptLine] = []
        for (number, entry) in entries.enumerated() {
            let stamp = clock(entry.time)
            let head: String
            switch entry.style {
            case .ours, .theirs: head = "\(stamp) \(TextWidth.printable(entry.sender)): "
            case .notice: head = "\(stamp) -- "
            case .problem: head = "\(stamp) !! "
            }
            let indent = width >= 24 ? TextWidth.of(stamp) + 1 : 0
            let pad = String(repeating: " ", count: indent < width / 2 ? indent : 0)
            var extras = self.attachments(entry.attachments) + self.buttons(entry.choices, numbered: entry.numbered, width: width - pad.count)
            // A message that is only a file shows the file on its first row.
            let text = entry.text.isEmpty && !extras.isEmpty ? extras.removeFirst() : entry.text
            let body = text + (entry.pending ? " (sending)" : "")
            var rows = self.wrap(head + body, width: width, indent: indent)
            for extra in extras {
                rows += self.wrap(extra, width: width - pad.count, indent: 0).map { pad + $0 }
            }
            for (index, row) in rows.enumerated() {
                result.append(TranscriptLine(text: row, style: entry.style, first: index == 0, entry: number))
            }
        }
        return result
    }

    /// The choices as rows of buttons at most `width` wide (a button wider than that gets a row of its own).
    static func buttons(_ choices: [ChatChoiceRecord], numbered: Bool, width: Int) -> [String] {
        var rows: [String] = []
        var row = ""
        for (index, choice) in choices.enumerated() {
            let label = TextWidth.printable(choice.label)
            var button = numbered ? "[\(index + 1)] \(label)" : "[\(label)]"
            if let url = choice.url { button += " <\(TextWidth.printable(url))>" }
            if row.isEmpty {
                row = button
            } else if TextWidth.of(row) + 2 + TextWidth.of(button) <= width {
                row += "  " + button
            } else {
                rows.append(row)
                row = button
            }
        }
        return row.isEmpty ? rows : rows + [row]
    }

    /// `[file] NAME (TYPE, SIZE)` for each file; numbered (`[file 2]`, as `/save 2` names it) when several.
    static func attachments(_ attachments: [ChatAttachmentRecord]) -> [String] {
        attachments.enumerated().map { index, file in
            let tag = attachments.count > 1 ? "[file \(index + 1)]" : "[file]"
            let type = file.mimeType.isEmpty ? "application/octet-stream" : file.mimeType
            return "\(tag) \(TextWidth.printable(file.name)) (\(type)\(file.size.map { ", " + Self.size($0) } ?? ""))"
        }
    }

    /// A file's size for people: bytes, KiB or MiB.
    static func size(_ bytes: Int64) -> String {
        if bytes < 1024 { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        if bytes < 1 << 20 { return "\((bytes + 512) / 1024) KiB" }
        return "\((bytes + (1 << 19)) >> 20) MiB"
    }

    /// `text` in rows of at most `width` columns; rows after the first start with `indent` spaces. Each
    /// line break of the text starts a new row; other control characters become spaces.
    static func wrap(_ text: String, width: Int, indent: Int) -> [String] {
        guard width > 0 else { return [] }
        let indent = indent < width / 2 ? indent : 0
        let pad = String(repeating: " ", count: indent)
        var rows: [String] = []
        for paragraph in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            var row = rows.isEmpty ? "" : pad
            var used = TextWidth.of(row)
            var rowHasWord = false
            for word in TextWidth.printable(paragraph).split(separator: " ", omittingEmptySubsequences: false) {
                var word = Substring(word)
                let space = rowHasWord ? 1 : 0
                if used + space + TextWidth.of(word) <= width {
                    if rowHasWord { row += " " }
                    row += word
                    used += space + TextWidth.of(word)
                    rowHasWord = true
                    continue
                }
                if rowHasWord {
                    rows.append(row)
                    row = pad
                    used = indent
                }
                // A word longer than a row is cut.
                while TextWidth.of(word) > width - used {
                    let piece = TextWidth.prefix(String(word), width: width - used)
                    if piece.isEmpty {
                        // A wide character in the last column goes to the next row; one wider than a
                        // whole row cannot be shown.
                        if used > indent {
                            rows.append(row)
                        } else {
                            word = word.dropFirst()
                        }
                        row = pad
                        used = indent
                        continue
                    }
                    rows.append(row + piece)
                    word = word.dropFirst(piece.count)
                    row = pad
                    used = indent
                }
                row += word
                used += TextWidth.of(word)
                rowHasWord = true
            }
            rows.append(row)
        }
        return rows
    }

    /// `HH:MM` in the local time zone, with the date (`YYYY-MM-DD HH:MM`) when it is not `today`'s.
    static func clock(_ unixSeconds: Int64, today: Int64) -> String {
        var time = time_t(unixSeconds)
        var parts = tm()
        var now = time_t(today)
        var nowParts = tm()
        guard localtime_r(&time, &parts) != nil, localtime_r(&now, &nowParts) != nil else { return String(unixSeconds) }
        let sameDay = parts.tm_year == nowParts.tm_year && parts.tm_yday == nowParts.tm_yday
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, sameDay ? "%H:%M" : "%Y-%m-%d %H:%M", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
