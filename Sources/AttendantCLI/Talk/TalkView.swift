import AttendantControl

/// The conversation view's state and rules: the transcript of one thread, the agent's typing, the input
/// line, the scroll position and when to tell the agent that the person types. It takes keys, messages,
/// sizes and ticks, returns ``Action``s for the session to carry out, and draws itself as a ``Frame``.
/// No I/O, no clock of its own: tested without a terminal.
struct TalkView: Sendable {
    typealias Instant = ContinuousClock.Instant

    struct Size: Sendable, Hashable {
        var rows: Int
        var columns: Int
    }

    /// What the session does for the view.
    enum Action: Sendable, Hashable {
        /// Send the text to the thread (nil: the channel's current thread).
        case send(String, thread: String?)
        /// Tell the agent the person started or stopped typing.
        case typing(started: Bool, thread: String?)
        /// Leave: restore the terminal and exit.
        case quit
    }

    /// The screen: one string per row (plain text with SGR styles, never wider than the terminal) and
    /// where the cursor goes (0-based).
    struct Frame: Sendable, Hashable {
        var rows: [String]
        var cursorRow: Int
        var cursorColumn: Int
    }

    let channel: String
    /// How a message's time reads (`HH:MM`, with the date for another day).
    let clock: @Sendable (Int64) -> String
    private(set) var size: Size
    private(set) var threadID: String?
    private(set) var threadTitle: String?
    private(set) var threadState: String?
    private(set) var entries: [TalkEntry] = []
    /// Who is typing on the other side, while someone is.
    private(set) var agentTyping: String?
    /// A passing word for the status line (what happened last), cleared by the next key.
    private(set) var status: String?
    private(set) var editor = LineEditor()
    /// How many rows of the transcript are below the view (0: following the newest).
    private(set) var scrollBack = 0
    private(set) var typing = TypingLimiter()
    /// Cleared when the channel answers that it takes no typing events.
    private(set) var typingSupported = true
    private var localMessages = 0

    init(channel: String, thread: ChatThreadRecord?, size: Size, clock: @escaping @Sendable (Int64) -> String) {
        self.channel = channel
        self.clock = clock
        self.size = size
        if let thread {
            self.threadID = thread.id
            self.threadTitle = thread.title
            self.threadState = thread.state
            for message in thread.lastMessages { self.add(message) }
        }
    }

    // MARK: Events

    mutating func key(_ key: TalkKey, now: Instant, time: Int64) -> [Action] {
        self.status = nil
        let before = self.editor.text
        switch key {
        case .text(let text): self.editor.insert(text)
        case .backspace: self.editor.backspace()
        case .delete: self.editor.deleteForward()
        case .left: self.editor.left()
        case .right: self.editor.right()
        case .home: self.editor.home()
        case .end: self.editor.end()
        case .eraseToStart: self.editor.eraseToStart()
        case .eraseWord: self.editor.eraseWord()
        case .pageUp: self.scroll(by: self.pageRows)
        case .pageDown: self.scroll(by: -self.pageRows)
        case .up: self.scroll(by: 1)
        case .down: self.scroll(by: -1)
        case .redraw: break
        case .interrupt: return self.leave(now: now)
        case .endOfInput:
            if self.editor.isEmpty { return self.leave(now: now) }
            self.editor.deleteForward()
        case .enter: return self.enter(now: now, time: time)
        }
        guard self.editor.text != before else { return [] }
        return self.typingActions(self.typing.edited(at: now, empty: self.editor.isEmpty))
    }

    /// A message of the channel (from its `message-received` event); another thread's is ignored. The
    /// first message of a view without a thread names the thread.
    mutating func message(_ message: ChatMessageRecord) {
        if self.threadID == nil, !message.threadID.isEmpty { self.threadID = message.threadID }
        guard message.threadID.isEmpty || message.threadID == self.threadID else { return }
        switch message.kind {
        case "typing-started", "typing-stopped":
            // Our own typing comes back from some servers (GMS echoes the customer's rows): not shown.
            guard message.direction != "to-agent" else { return }
            self.agentTyping = message.kind == "typing-started" ? (message.sender.isEmpty ? "The agent" : message.sender) : nil
        default:
            if message.direction != "to-agent" { self.agentTyping = nil }
            self.add(message)
        }
    }

    /// The thread's state changed (its `thread-updated` event).
    mutating func threadUpdated(id: String, name: String, state: String) {
        if self.threadID == nil { self.threadID = id }
        guard id == self.threadID else { return }
        self.threadTitle = ChatThreadRecord(id: id, name: name, state: state).title
        if state == "closed", self.threadState != "closed" { self.status = "The conversation is closed." }
        self.threadState = state
    }

    mutating func resized(_ size: Size) {
        self.size = size
        self.scroll(by: 0)
    }

    mutating func tick(now: Instant) -> [Action] {
        self.typingActions(self.typing.tick(at: now))
    }

    /// What became of a message sent: queued (`reason`), or refused; refused text goes back into an empty
    /// input line so it can be sent again.
    mutating func sendAnswered(text: String, delivery: String?, message: String? = nil, reason: String?, error: String?, time: Int64) {
        guard let error else {
            if let index = self.entries.firstIndex(where: { $0.pending && $0.text == text }) {
                self.entries[index].pending = false
                // The channel's id, so its own copy of the message replaces this one.
                if let message, !message.isEmpty { self.entries[index].id = message }
            }
            if delivery == "queued" { self.status = "Queued: \(reason ?? "it goes out once the chat is connected again")." }
            return
        }
        if let index = self.entries.lastIndex(where: { $0.pending && $0.text == text }) {
            let rows = self.rows(of: [self.entries[index]])
            self.entries.remove(at: index)
            if self.scrollBack > 0 { self.scrollBack = max(0, self.scrollBack - rows) }
        }
        self.problem("Not sent: \(error)", time: time)
        if self.editor.isEmpty { self.editor = LineEditor(text) }
    }

    /// The channel refused a typing event: with `unsupported`, no more are sent.
    mutating func typingRefused(unsupported: Bool) {
        if unsupported { self.typingSupported = false }
    }

    /// A line of this view in the transcript (the daemon stopped, a request failed).
    mutating func problem(_ text: String, time: Int64) {
        self.localMessages += 1
        self.append(TalkEntry(id: "local-\(self.localMessages)", time: time, sender: "", text: text, style: .problem))
    }

    /// A notice of this view in the transcript (the daemon is back).
    mutating func note(_ text: String, time: Int64) {
        self.localMessages += 1
        self.append(TalkEntry(id: "local-\(self.localMessages)", time: time, sender: "", text: text, style: .notice))
    }

    /// The channel's state changed (`ChannelStateChanged`): said on the status line.
    mutating func channelState(_ state: String, detail: String) {
        self.status = state == "listening" ? "\(self.channel) is listening." : "\(self.channel) is \(state)\(detail.isEmpty ? "" : ": " + detail)."
    }

    // MARK: Drawing

    /// Rows of the transcript area: the screen less the header, the status line and the input line.
    var transcriptRows: Int { max(0, self.size.rows - 3) }

    private var pageRows: Int { max(1, self.transcriptRows - 1) }

    func frame() -> Frame {
        let width = max(1, self.size.columns)
        var rows: [String] = []
        guard self.size.rows >= 2 else {
            let input = self.editor.visible(width: max(1, width - 2))
            return Frame(rows: ["> " + input.text], cursorRow: 0, cursorColumn: min(width - 1, 2 + input.cursorColumn))
        }
        rows.append(Self.styled(self.header, width: width, sgr: "7"))
        let lines = TranscriptLayout.lines(self.entries, width: width, clock: self.clock)
        let height = self.transcriptRows
        let end = max(0, lines.count - self.scrollBack)
        let start = max(0, end - height)
        let shown = lines[start..<end]
        rows.append(contentsOf: Array(repeating: "", count: height - shown.count))
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
        if self.scrollBack > 0 { return "-- \(self.scrollBack) more below: PgDn --" }
        if let who = self.agentTyping { return "\(who) is typing…" }
        if let status = self.status { return status }
        return "Enter sends · PgUp/PgDn scroll · Ctrl-D, Ctrl-C or /quit leaves"
    }

    // MARK: Helpers

    private mutating func enter(now: Instant, time: Int64) -> [Action] {
        let text = self.editor.text
        let trimmed = text.trimmingSpaces
        if trimmed == "/quit" || trimmed == "/exit" { return self.leave(now: now) }
        guard !trimmed.isEmpty else { return [] }
        _ = self.editor.take()
        let stop = self.typingActions(self.typing.sent(at: now))
        self.localMessages += 1
        self.scrollBack = 0
        self.append(TalkEntry(id: "local-\(self.localMessages)", time: time, sender: "You", text: text, style: .ours, pending: true))
        return stop + [.send(text, thread: self.threadID)]
    }

    private mutating func leave(now: Instant) -> [Action] {
        self.typingActions(self.typing.sent(at: now)) + [.quit]
    }

    private func typingActions(_ action: TypingLimiter.Action?) -> [Action] {
        guard let action, self.typingSupported else { return [] }
        return [.typing(started: action == .started, thread: self.threadID)]
    }

    /// Adds a message of the thread: one already shown (by id) is replaced, and ours shown while pending
    /// is replaced by the channel's copy with the same text.
    private mutating func add(_ message: ChatMessageRecord) {
        var entry = TalkEntry(message)
        if let index = self.entries.firstIndex(where: { $0.id == message.id }) {
            if self.entries[index].pending { entry.pending = true }
            self.entries[index] = entry
            return
        }
        if entry.style == .ours, let index = self.entries.firstIndex(where: { $0.local && $0.text == message.text }) {
            if entry.sender.isEmpty { entry.sender = self.entries[index].sender }
            self.entries[index] = entry
            return
        }
        self.append(entry)
    }

    /// Appends an entry; while scrolled back, the view stays where it is.
    private mutating func append(_ entry: TalkEntry) {
        self.entries.append(entry)
        if self.scrollBack > 0 { self.scrollBack += self.rows(of: [entry]) }
    }

    private func rows(of entries: [TalkEntry]) -> Int {
        TranscriptLayout.lines(entries, width: max(1, self.size.columns), clock: self.clock).count
    }

    private mutating func scroll(by rows: Int) {
        let total = self.rows(of: self.entries)
        let most = max(0, total - self.transcriptRows)
        self.scrollBack = min(most, max(0, self.scrollBack + rows))
    }

    private static func styled(_ line: TranscriptLine, width: Int) -> String {
        let text = TextWidth.prefix(line.text, width: width)
        switch line.style {
        case .ours: return "\u{1B}[1m" + text + "\u{1B}[0m"
        case .theirs: return text
        case .notice: return "\u{1B}[2m" + text + "\u{1B}[0m"
        case .problem: return "\u{1B}[31m" + text + "\u{1B}[0m"
        }
    }

    private static func styled(_ text: String, width: Int, sgr: String) -> String {
        let shown = TextWidth.prefix(TextWidth.printable(text), width: width)
        let pad = sgr == "7" ? String(repeating: " ", count: max(0, width - TextWidth.of(shown))) : ""
        return "\u{1B}[\(sgr)m" + shown + pad + "\u{1B}[0m"
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return text
    }
}
