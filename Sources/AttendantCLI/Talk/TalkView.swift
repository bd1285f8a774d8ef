import AttendantControl

/// The conversation view's state and rules: the transcript of one thread, the agent's typing, the input
/// line, the scroll position and when to tell the agent that the person types; the commands of the input
/// line (``TalkCommand``: choices, files), which messages the person has seen, and the older pages asked
/// for at the top. It takes keys, messages, sizes, ticks and the answers to its requests, returns
/// ``Action``s for the session to carry out, and draws itself as a ``Frame`` (`TalkView+Drawing.swift`).
/// No I/O, no clock of its own: tested without a terminal.
struct TalkView: Sendable {
    typealias Instant = ContinuousClock.Instant

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
    /// When the last typing event of the other side came: ``agentTypingTimeout`` after it, the typing is
    /// over even if no `typing-stopped` came.
    private var agentTypingSince: Instant?
    /// A passing word for the status line (what happened last), cleared by the next key.
    private(set) var status: String?
    private(set) var editor = LineEditor()
    /// How many rows of the transcript are below the view (0: following the newest).
    private(set) var scrollBack = 0
    private(set) var typing = TypingLimiter()
    /// Cleared when the channel answers that it takes no typing events.
    private(set) var typingSupported = true
    private(set) var history = History.more
    /// The newest agent's message the channel was told the person has seen.
    private(set) var readUpTo: String?
    /// Cleared when the channel answers that it takes no read receipts.
    private(set) var readSupported = true
    private var localMessages = 0
    /// Something was sent after the thread closed: the channel may start a new conversation for it (GMS
    /// starts a chat with the first send after the end, GMSChat README), and the next thread named in its
    /// events is that one, which the view then shows. Cleared by a refusal (CXone's single thread).
    private(set) var followsNextThread = false

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
        case .pageUp: return self.back(by: self.pageRows)
        case .pageDown: self.scroll(by: -self.pageRows)
        case .up: return self.back(by: 1)
        case .down: self.scroll(by: -1)
        case .redraw: break
        case .interrupt: return self.leave(now: now)
        case .endOfInput:
            if self.editor.isEmpty { return self.leave(now: now) }
            self.editor.deleteForward()
        case .enter: return self.enter(now: now, time: time)
        }
        guard self.editor.text != before else { return [] }
        // A command is no typing for the agent to see.
        return self.typingActions(self.typing.edited(at: now, empty: self.editor.isEmpty || self.editor.text.hasPrefix("/")))
    }

    /// How long the other side's typing shows after its last typing event when no `typing-stopped` comes
    /// (the agent's window closed, the event was lost in a reconnect). Neither vendor states one: the CXone
    /// SDK passes SenderTypingStarted/Ended to the app as they come (`CXoneChatDelegate.onAgentTyping`,
    /// iOS SDK 3.3.1, `ChatThreadListService.processAgentTypingEvent`, with no timer) and GMS's chat API v2
    /// sends `TypingStarted`/`TypingStopped` rows. 10 s is our choice.
    static let agentTypingTimeout = Duration.seconds(10)

    /// A message of the channel (from its `message-received` event) at `now`; another thread's is ignored.
    /// The first message of a view without a thread names the thread.
    mutating func message(_ message: ChatMessageRecord, now: Instant) {
        if self.threadID == nil, !message.threadID.isEmpty { self.threadID = message.threadID }
        self.follow(message.threadID, time: message.sentAt)
        guard message.threadID.isEmpty || message.threadID == self.threadID else { return }
        switch message.kind {
        case "typing-started", "typing-stopped":
            // Our own typing comes back from some servers (GMS echoes the customer's rows): not shown.
            guard message.direction != "to-agent" else { return }
            let started = message.kind == "typing-started"
            self.agentTyping = started ? (message.sender.isEmpty ? "The agent" : message.sender) : nil
            self.agentTypingSince = started ? now : nil
        default:
            if message.direction != "to-agent" {
                self.agentTyping = nil
                self.agentTypingSince = nil
            }
            self.add(message)
        }
    }

    /// The thread's state changed (its `thread-updated` event, at `time`).
    mutating func threadUpdated(id: String, name: String, state: String, time: Int64) {
        if self.threadID == nil { self.threadID = id }
        if state != "closed" { self.follow(id, time: time) }
        guard id == self.threadID else { return }
        // The closed conversation goes on in its own thread (CXone's single thread): nothing to follow.
        if state != "closed" { self.followsNextThread = false }
        self.threadTitle = ChatThreadRecord(id: id, name: name, state: state).title
        if state == "closed", self.threadState != "closed" { self.status = "The conversation is closed." }
        self.threadState = state
    }

    mutating func resized(_ size: Size) {
        self.size = size
        self.scroll(by: 0)
    }

    /// Time passed: our typing may be due to be told, the agent's may be over (``agentTypingTimeout``).
    mutating func tick(now: Instant) -> [Action] {
        if let since = self.agentTypingSince, now - since >= Self.agentTypingTimeout {
            self.agentTyping = nil
            self.agentTypingSince = nil
        }
        return self.typingActions(self.typing.tick(at: now))
    }

    /// What became of a message sent: queued (`reason`), or refused; refused text goes back into an empty
    /// input line so it can be sent again.
    mutating func sendAnswered(text: String, delivery: String?, message: String? = nil, reason: String?, error: String?, time: Int64) {
        guard let error else {
            self.delivered(text, message: message)
            if delivery == "queued" { self.status = "Queued: \(reason ?? "it goes out once the chat is connected again")." }
            return
        }
        self.removePending(text)
        self.followsNextThread = false
        self.problem("Not sent: \(error)", time: time)
        if self.editor.isEmpty { self.editor = LineEditor(text) }
    }

    /// What became of a choice: its label stays as ours, or goes with the channel's refusal. A prompt's
    /// answer, never shown as ours, is said on the status line.
    mutating func chooseAnswered(label: String, error: String?, time: Int64) {
        guard let error else {
            // Said unless something newer is (the thread closed by that very answer).
            if !self.entries.contains(where: { $0.pending && $0.text == label }), self.status == nil || self.status?.hasPrefix("Answering: ") == true
            {
                self.status = "Answered: \(TextWidth.printable(label))."
            }
            return self.delivered(label, message: nil)
        }
        self.removePending(label)
        self.problem("Not chosen: \(label): \(error)", time: time)
    }

    /// The channel refused a read receipt: with `unsupported`, no more are sent.
    mutating func readRefused(unsupported: Bool) {
        if unsupported { self.readSupported = false }
    }

    /// The page of older messages came: put before those shown, the view a page further back; an empty
    /// page is the start of the conversation.
    mutating func olderLoaded(_ messages: [ChatMessageRecord]) {
        guard !messages.isEmpty else {
            self.history = .complete("This is the start of the conversation.")
            self.status = "This is the start of the conversation."
            return
        }
        self.history = .more
        let known = Set(self.entries.map(\.id))
        let older = messages.filter { message in
            (message.threadID.isEmpty || message.threadID == self.threadID) && !known.contains(message.id)
                && message.kind != "typing-started" && message.kind != "typing-stopped"
        }
        self.entries.insert(contentsOf: older.map(TalkEntry.init), at: 0)
        self.renumber()
        self.scroll(by: self.pageRows)
        self.status = older.count == 1 ? "1 older message loaded." : "\(older.count) older messages loaded."
    }

    /// Asking for older messages failed: a channel that cannot load them is not asked again.
    mutating func olderFailed(_ error: String, unsupported: Bool, time: Int64) {
        if unsupported {
            self.history = .complete("\(self.channel) cannot load older messages.")
            self.status = "\(self.channel) cannot load older messages."
        } else {
            self.history = .more
            self.problem("Older messages not loaded: \(error)", time: time)
        }
    }

    /// A file was saved: said in the transcript, with where it is. (Here and for the other outcomes of a
    /// file, the status line's "Saving …"/"Sending …" goes: the transcript has the outcome.)
    mutating func saved(path: String, mimeType: String, size: Int64, time: Int64) {
        self.status = nil
        self.note("Saved \(path) (\(mimeType.isEmpty ? "application/octet-stream" : mimeType), \(TranscriptLayout.size(size)))", time: time)
    }

    mutating func notSaved(name: String, error: String, time: Int64) {
        self.status = nil
        self.problem("Not saved: \(name): \(error)", time: time)
    }

    /// A file was sent: shown as ours, with the channel's id of its message when it gives one.
    mutating func fileSent(name: String, mimeType: String, size: Int64, message: String?, time: Int64) {
        self.localMessages += 1
        var entry = TalkEntry(id: message ?? "local-\(self.localMessages)", time: time, sender: "You", text: "", style: .ours)
        entry.local = message == nil
        entry.attachments = [ChatAttachmentRecord(id: "", name: name, mimeType: mimeType, size: size)]
        self.status = nil
        self.append(entry)
    }

    mutating func fileNotSent(path: String, error: String, time: Int64) {
        self.status = nil
        self.followsNextThread = false
        self.problem("Not sent: \(path): \(error)", time: time)
    }

    /// What the channel should be told the person has seen: the newest agent's message on the screen, when
    /// it is newer than the last one told. Nil when there is nothing new, or the channel takes no receipts.
    mutating func readReceipt() -> Action? {
        guard self.readSupported, let thread = self.threadID else { return nil }
        let shown = self.shownLines().map(\.entry).filter { self.entries[$0].style == .theirs }
        guard let newest = shown.max() else { return nil }
        if let read = self.readUpTo, let told = self.entries.firstIndex(where: { $0.id == read }), told >= newest { return nil }
        self.readUpTo = self.entries[newest].id
        return .markRead(message: self.entries[newest].id, thread: thread)
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

    // MARK: Helpers

    private mutating func enter(now: Instant, time: Int64) -> [Action] {
        var text = self.editor.text
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else { return [] }
        if let command = TalkCommand(trimmed) {
            guard case .message(let message) = command else {
                if command == .quit { return self.leave(now: now) }
                _ = self.editor.take()
                return self.typingActions(self.typing.sent(at: now)) + self.run(command, time: time)
            }
            text = message
        }
        _ = self.editor.take()
        let stop = self.typingActions(self.typing.sent(at: now))
        self.addPending(text, time: time)
        if self.threadState == "closed" { self.followsNextThread = true }
        return stop + [.send(text, thread: self.threadID)]
    }

    /// After a send to a closed thread, the first other thread the channel names becomes the view's: said
    /// in the transcript, which keeps the closed conversation above it.
    private mutating func follow(_ id: String, time: Int64) {
        guard self.followsNextThread, !id.isEmpty, id != self.threadID else { return }
        self.followsNextThread = false
        self.threadID = id
        self.threadTitle = ChatThreadRecord(id: id, name: "", state: "").title
        self.threadState = nil
        self.readUpTo = nil
        // Its messages all came while it was shown: nothing older to load.
        self.history = .complete("This is the start of the conversation.")
        self.note("A new conversation started: thread \(id)", time: time)
    }

    private mutating func run(_ command: TalkCommand, time: Int64) -> [Action] {
        switch command {
        case .quit, .message: return []
        case .help: self.status = TalkCommand.list
        case .invalid(let words): self.status = words
        case .choose(let number): return self.choose(number, time: time)
        case .save(let number): return self.save(number)
        case .sendFile(let path):
            self.status = "Sending \(path)…"
            if self.threadState == "closed" { self.followsNextThread = true }
            return [.sendFile(path: path, thread: self.threadID)]
        }
        return []
    }

    /// Choice `number` of the latest message that offers choices; a link's URL is shown, not chosen.
    private mutating func choose(_ number: Int, time: Int64) -> [Action] {
        guard let offering = self.entries.last(where: { !$0.choices.isEmpty }) else {
            self.status = "No message offers choices to answer with."
            return []
        }
        guard number <= offering.choices.count else {
            self.status = "Choose 1 to \(offering.choices.count): /1 … /\(offering.choices.count)."
            return []
        }
        let choice = offering.choices[number - 1]
        if let url = choice.url {
            self.status = "\(TextWidth.printable(choice.label)) is a link: \(TextWidth.printable(url))"
            return []
        }
        // The answer to an idle prompt (a notice that offers choices: CXone's inactivity popup) is no message:
        // the SDK sends it with `isInactivityPopupAnswer` and never shows it (ChatThreadService.send, 3.3.1).
        if offering.style == .notice {
            self.status = "Answering: \(TextWidth.printable(choice.label))…"
        } else {
            self.addPending(choice.label, time: time)
        }
        return [.choose(message: offering.id, choice: choice.id, label: choice.label, thread: self.threadID)]
    }

    /// File `number` of the latest message from the other side that came with files.
    private mutating func save(_ number: Int) -> [Action] {
        guard let message = self.entries.last(where: { !$0.attachments.isEmpty && $0.style != .ours }) else {
            self.status = "No file came to save."
            return []
        }
        guard number <= message.attachments.count else {
            self.status = "The latest message has \(message.attachments.count) files: /save 1 … /save \(message.attachments.count)."
            return []
        }
        let attachment = message.attachments[number - 1]
        self.status = "Saving \(TextWidth.printable(attachment.name))…"
        return [.save(message: message.id, attachment: attachment, thread: self.threadID)]
    }

    /// Ours, shown at once as sending; the view follows the newest.
    private mutating func addPending(_ text: String, time: Int64) {
        self.localMessages += 1
        self.scrollBack = 0
        self.append(TalkEntry(id: "local-\(self.localMessages)", time: time, sender: "You", text: text, style: .ours, pending: true))
    }

    private mutating func delivered(_ text: String, message: String?) {
        guard let index = self.entries.firstIndex(where: { $0.pending && $0.text == text }) else { return }
        self.entries[index].pending = false
        // The channel's id, so its own copy of the message replaces this one.
        if let message, !message.isEmpty { self.entries[index].id = message }
    }

    private mutating func removePending(_ text: String) {
        guard let index = self.entries.lastIndex(where: { $0.pending && $0.text == text }) else { return }
        let rows = self.rows(of: [self.entries[index]])
        self.entries.remove(at: index)
        if self.scrollBack > 0 { self.scrollBack = max(0, self.scrollBack - rows) }
    }

    /// PgUp or Up: back through what is loaded; at its top, the page before it is asked for.
    private mutating func back(by rows: Int) -> [Action] {
        let atTop = self.scrollBack >= max(0, self.rows(of: self.entries) - self.transcriptRows)
        self.scroll(by: rows)
        guard atTop else { return [] }
        switch self.history {
        case .more:
            guard self.threadID != nil else { return [] }
            self.history = .loading
            self.status = "Loading older messages…"
            return [.loadOlder(thread: self.threadID)]
        case .loading:
            self.status = "Loading older messages…"
        case .complete(let why):
            self.status = why
        }
        return []
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
            return self.renumber()
        }
        if entry.style == .ours, let index = self.entries.firstIndex(where: { $0.local && $0.text == message.text }) {
            if entry.sender.isEmpty { entry.sender = self.entries[index].sender }
            self.entries[index] = entry
            return self.renumber()
        }
        self.append(entry)
    }

    /// Appends an entry; while scrolled back, the view stays where it is.
    private mutating func append(_ entry: TalkEntry) {
        self.entries.append(entry)
        if !entry.choices.isEmpty { self.renumber() }
        if self.scrollBack > 0 { self.scrollBack += self.rows(of: [entry]) }
    }

    /// Numbers the choices of the latest message that offers any: those `/1`…`/9` answer.
    private mutating func renumber() {
        let latest = self.entries.lastIndex { !$0.choices.isEmpty }
        for index in self.entries.indices where self.entries[index].numbered != (index == latest) {
            self.entries[index].numbered = index == latest
        }
    }

    private func rows(of entries: [TalkEntry]) -> Int {
        TranscriptLayout.lines(entries, width: max(1, self.size.columns), clock: self.clock).count
    }

    private mutating func scroll(by rows: Int) {
        let total = self.rows(of: self.entries)
        let most = max(0, total - self.transcriptRows)
        self.scrollBack = min(most, max(0, self.scrollBack + rows))
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
