// The conversation view drawn: the header, the transcript's rows on the screen, the status line and the
// input line, for the terminal's size.
extension TalkView {
    /// Rows of the transcript area: the screen less the header, the status line and the input line.
    var transcriptRows: Int { max(0, self.size.rows - 3) }

    var pageRows: Int { max(1, self.transcriptRows - 1) }

    func frame() -> Frame {
        let width = max(1, self.size.columns)
        var rows: [String] = []
        guard self.size.rows >= 2 else {
            let input = self.editor.visible(width: max(1, width - 2))
            return Frame(rows: ["> " + input.text], cursorRow: 0, cursorColumn: min(width - 1, 2 + input.cursorColumn))
        }
        rows.append(Self.styled(self.header, width: width, sgr: "7"))
        let shown = self.shownLines()
        rows.append(contentsOf: Array(repeating: "", count: self.transcriptRows - shown.count))
        for line in shown { rows.append(Self.styled(line, width: width)) }
        if self.size.rows >= 3 {
            rows.append(Self.styled(self.statusLine, width: width, sgr: self.scrollBack > 0 || self.agentTyping != nil ? "1" : "2"))
        }
        let input = self.editor.visible(width: max(1, width - 2))
        rows.append("> " + input.text)
        return Frame(rows: rows, cursorRow: rows.count - 1, cursorColumn: min(width - 1, 2 + input.cursorColumn))
    }

    var header: String {
        let thread = self.threadTitle.map { "thread \($0)" } ?? "no thread yet: what you send starts one"
        return " \(self.channel) · \(thread)\(self.threadState.map { " · \($0)" } ?? "")"
    }

    var statusLine: String {
        if self.scrollBack > 0 { return "-- \(self.scrollBack) more below: PgDn --" + (self.status.map { " " + $0 } ?? "") }
        if let who = self.agentTyping { return "\(who) is typing…" }
        if let status = self.status { return status }
        return "Enter sends · PgUp/PgDn scroll · /help · Ctrl-D, Ctrl-C or /quit leaves"
    }

    /// The transcript's rows on the screen.
    func shownLines() -> ArraySlice<TranscriptLine> {
        let lines = TranscriptLayout.lines(self.entries, width: max(1, self.size.columns), clock: self.clock)
        let end = max(0, lines.count - self.scrollBack)
        return lines[max(0, end - self.transcriptRows)..<end]
    }

    static func styled(_ line: TranscriptLine, width: Int) -> String {
        let text = TextWidth.prefix(line.text, width: width)
        switch line.style {
        case .ours: return "\u{1B}[1m" + text + "\u{1B}[0m"
        case .theirs: return text
        case .notice: return "\u{1B}[2m" + text + "\u{1B}[0m"
        case .problem: return "\u{1B}[31m" + text + "\u{1B}[0m"
        }
    }

    static func styled(_ text: String, width: Int, sgr: String) -> String {
        let shown = TextWidth.prefix(TextWidth.printable(text), width: width)
        let pad = sgr == "7" ? String(repeating: " ", count: max(0, width - TextWidth.of(shown))) : ""
        return "\u{1B}[\(sgr)m" + shown + pad + "\u{1B}[0m"
    }
}
