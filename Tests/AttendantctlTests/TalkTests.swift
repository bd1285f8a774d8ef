import AttendantControl
import Testing

@testable import AttendantCLI

/// `chat talk`'s pure parts: the keys, the input line, the typing limiter, the transcript's layout and the
/// view's rules, without a terminal or a daemon (ChatTalkTests drives the whole in tmux).
@Suite struct TalkTests {
    typealias Instant = ContinuousClock.Instant

    static let start = ContinuousClock.now

    static func at(_ seconds: Double) -> Instant { self.start + .milliseconds(Int(seconds * 1000)) }

    // MARK: Keys

    @Test func theDecoderReadsTextControlsAndTheCursorAndPagingSequences() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("héllo 🙂".utf8)) == [.text("héllo 🙂")])
        #expect(
            decoder.feed([0x03, 0x04, 0x0D, 0x7F, 0x15, 0x17, 0x0C, 0x01, 0x05]) == [
                .interrupt, .endOfInput, .enter, .backspace, .eraseToStart, .eraseWord, .redraw, .home, .end,
            ]
        )
        #expect(
            decoder.feed(Array("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D\u{1B}[H\u{1B}[F\u{1B}OH\u{1B}OF".utf8)) == [
                .up, .down, .right, .left, .home, .end, .home, .end,
            ]
        )
        #expect(decoder.feed(Array("\u{1B}[5~\u{1B}[6~\u{1B}[3~\u{1B}[1~\u{1B}[4~".utf8)) == [.pageUp, .pageDown, .delete, .home, .end])
        // xterm's modified keys (Ctrl-Right) and sequences not known are dropped whole.
        #expect(decoder.feed(Array("a\u{1B}[1;5Cb\u{1B}[200~c".utf8)) == [.text("a"), .right, .text("b"), .text("c")])
    }

    @Test func aSequenceOrCharacterSplitAcrossReadsWaitsForItsRest() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.feed(Array("[5".utf8)).isEmpty)
        #expect(decoder.feed(Array("~x".utf8)) == [.pageUp, .text("x")])
        let e = Array("é".utf8)
        #expect(decoder.feed([e[0]]).isEmpty)
        #expect(decoder.feed([e[1]]) == [.text("é")])
        // An Escape before a key (Alt-x) is dropped; the key stays.
        #expect(decoder.feed(Array("\u{1B}x".utf8)) == [.text("x")])
    }

    // MARK: The input line

    @Test func theLineEditsAtTheCursor() {
        var line = LineEditor()
        line.insert("helo world")
        for _ in 0..<7 { line.left() }
        line.insert("l")
        #expect(line.text == "hello world" && line.cursor == 4)
        line.end()
        line.eraseWord()
        #expect(line.text == "hello ")
        line.backspace()
        line.home()
        line.deleteForward()
        #expect(line.text == "ello" && line.cursor == 0)
        line.right()
        line.right()
        line.eraseToStart()
        #expect(line.text == "lo" && line.cursor == 0)
        line.insert("a\u{1B}[31mb\tc")
        #expect(line.text == "a[31mbclo", "control characters never reach the line")
        #expect(line.take() == "a[31mbclo" && line.isEmpty && line.cursor == 0)
        #expect(!line.backspace() && !line.deleteForward())
    }

    @Test func aLongLineScrollsSidewaysToKeepTheCursorInView() {
        var line = LineEditor(String(repeating: "x", count: 30) + "END")
        let end = line.visible(width: 10)
        #expect(end.text == "xxxxxxEND" && end.cursorColumn == 9)
        line.home()
        let start = line.visible(width: 10)
        #expect(start.text == "xxxxxxxxxx" && start.cursorColumn == 0)
        let wide = LineEditor("日本語").visible(width: 5)
        #expect(wide.text == "本語" && wide.cursorColumn == 4)
    }

    // MARK: Typing

    @Test func typingStartsOnceStopsAfterFiveQuietSecondsAndOnSend() {
        var limiter = TypingLimiter()
        #expect(limiter.edited(at: Self.at(0), empty: false) == .started)
        #expect(limiter.edited(at: Self.at(1), empty: false) == nil)
        #expect(limiter.edited(at: Self.at(4), empty: false) == nil)
        #expect(limiter.tick(at: Self.at(8.9)) == nil, "4 s after the last key")
        #expect(limiter.deadline == Self.at(9))
        #expect(limiter.tick(at: Self.at(9)) == .stopped)
        #expect(limiter.tick(at: Self.at(20)) == nil && limiter.deadline == nil)
        #expect(limiter.edited(at: Self.at(21), empty: false) == .started)
        #expect(limiter.sent(at: Self.at(22)) == .stopped)
        #expect(limiter.sent(at: Self.at(22)) == nil, "never a stop without a start")
    }

    @Test func atMostOneStartedInFiveSecondsTheNextWaitsForItsTime() {
        var limiter = TypingLimiter()
        #expect(limiter.edited(at: Self.at(0), empty: false) == .started)
        #expect(limiter.sent(at: Self.at(1)) == .stopped)
        #expect(limiter.edited(at: Self.at(2), empty: false) == nil, "held: the last started is 2 s old")
        #expect(limiter.tick(at: Self.at(4)) == nil)
        #expect(limiter.deadline == Self.at(5))
        #expect(limiter.tick(at: Self.at(5)) == .started, "still typing when the 5 s are over")
        #expect(limiter.toldTyping)
        // Emptying the line stops; a held start that the person gave up on is never sent.
        #expect(limiter.edited(at: Self.at(6), empty: true) == .stopped)
        #expect(limiter.edited(at: Self.at(7), empty: false) == nil)
        #expect(limiter.edited(at: Self.at(8), empty: true) == nil)
        #expect(limiter.tick(at: Self.at(30)) == nil && !limiter.toldTyping)
    }

    // MARK: Layout

    @Test func wrappingBreaksAtSpacesCutsLongWordsAndIndentsTheRest() {
        #expect(TranscriptLayout.wrap("10:00 Ada: one two three four", width: 16, indent: 6) == ["10:00 Ada: one", "      two three", "      four"])
        #expect(TranscriptLayout.wrap("ab abcdefghijkl", width: 8, indent: 2) == ["ab", "  abcdef", "  ghijkl"])
        #expect(TranscriptLayout.wrap("first\nsecond", width: 20, indent: 3) == ["first", "   second"])
        #expect(TranscriptLayout.wrap("bell\u{07}and\u{1B}[2J", width: 40, indent: 0) == ["bell and [2J"], "controls become spaces")
        #expect(TranscriptLayout.wrap("日本語日本語", width: 5, indent: 0) == ["日本", "語日", "本語"])
        for width in 1...12 {
            for row in TranscriptLayout.wrap("10:00 Grace Hopper: a message 日本語 with words", width: width, indent: 6) {
                #expect(TextWidth.of(row) <= width, "\(row) at \(width)")
            }
        }
    }

    // MARK: The view

    static func view(rows: Int = 10, columns: Int = 40, messages: [ChatMessageRecord] = []) -> TalkView {
        let thread = ChatThreadRecord(id: "t1", name: "Billing", state: "ready", lastMessages: messages)
        return TalkView(channel: "desk", thread: thread, size: .init(rows: rows, columns: columns)) { _ in "10:00" }
    }

    static func agent(_ text: String, id: String, kind: String = "message", thread: String = "t1") -> ChatMessageRecord {
        ChatMessageRecord(
            id: id,
            threadID: thread,
            kind: kind,
            direction: kind == "message" ? "from-agent" : "notice",
            sender: "Ada",
            text: text,
            sentAt: 0
        )
    }

    static func type(_ text: String, into view: inout TalkView, at seconds: Double = 0) -> [TalkView.Action] {
        view.key(.text(text), now: Self.at(seconds), time: 0)
    }

    @Test func theFrameShowsTheHeaderTheTranscriptTheStatusAndTheInput() {
        var view = Self.view(messages: [Self.agent("Hello, how can I help?", id: "m1"), Self.agent("", id: "m0", kind: "joined")])
        _ = Self.type("hi", into: &view)
        let frame = view.frame()
        #expect(frame.rows.count == 10)
        #expect(frame.rows[0].contains(" desk · thread t1 \"Billing\" · ready"))
        #expect(frame.rows[7].contains("10:00 -- Ada joined"))
        #expect(frame.rows[6].contains("10:00 Ada: Hello, how can I help?"))
        #expect(frame.rows[8].contains("Enter sends"))
        #expect(frame.rows[9] == "> hi" && frame.cursorRow == 9 && frame.cursorColumn == 4)
    }

    @Test func enterSendsTellsTheAgentTypingStoppedAndTheChannelsCopyReplacesOurs() {
        var view = Self.view()
        #expect(Self.type("Hi there", into: &view) == [.typing(started: true, thread: "t1")])
        #expect(view.key(.enter, now: Self.at(1), time: 0) == [.typing(started: false, thread: "t1"), .send("Hi there", thread: "t1")])
        #expect(view.editor.isEmpty)
        #expect(view.entries.map(\.text) == ["Hi there"] && view.entries[0].pending)
        view.sendAnswered(text: "Hi there", delivery: "sent", message: "srv-1", reason: nil, error: nil, time: 0)
        #expect(!view.entries[0].pending)
        view.message(
            ChatMessageRecord(id: "srv-1", threadID: "t1", direction: "to-agent", sender: "Grace", text: "Hi there", sentAt: 0),
            now: Self.at(0)
        )
        #expect(view.entries.count == 1 && view.entries[0].sender == "Grace")
        // Without an id in the answer, the copy with the same text replaces ours.
        _ = Self.type("Again", into: &view, at: 10)
        _ = view.key(.enter, now: Self.at(11), time: 0)
        view.message(
            ChatMessageRecord(id: "srv-2", threadID: "t1", direction: "to-agent", sender: "Grace", text: "Again", sentAt: 0),
            now: Self.at(0)
        )
        #expect(view.entries.map(\.id) == ["srv-1", "srv-2"] && !view.entries[1].pending)
        // Blank lines are not sent.
        _ = Self.type("   ", into: &view, at: 20)
        #expect(view.key(.enter, now: Self.at(21), time: 0).filter { if case .send = $0 { true } else { false } }.isEmpty)
    }

    @Test func aRefusedMessageIsReportedAndComesBackToTheInputLine() {
        var view = Self.view()
        _ = Self.type("Lost", into: &view)
        _ = view.key(.enter, now: Self.at(1), time: 0)
        view.sendAnswered(text: "Lost", delivery: nil, reason: nil, error: "channel desk: the chat is closed", time: 0)
        #expect(view.entries.map(\.text) == ["Not sent: channel desk: the chat is closed"])
        #expect(view.entries[0].style == .problem)
        #expect(view.editor.text == "Lost")
        view.sendAnswered(text: "Later", delivery: "queued", reason: "the desktop is asleep", error: nil, time: 0)
        #expect(view.statusLine == "Queued: the desktop is asleep.")
    }

    @Test func theAgentsTypingShowsOnTheStatusLineOursAndOtherThreadsDoNot() {
        var view = Self.view()
        view.message(Self.agent("", id: "n1", kind: "typing-started"), now: Self.at(0))
        #expect(view.statusLine == "Ada is typing…")
        #expect(view.entries.isEmpty, "typing is no line of the transcript")
        view.message(Self.agent("", id: "n2", kind: "typing-stopped"), now: Self.at(0))
        #expect(view.statusLine.hasPrefix("Enter sends"))
        view.message(
            ChatMessageRecord(id: "n3", threadID: "t1", kind: "typing-started", direction: "to-agent", sender: "Grace", text: "", sentAt: 0),
            now: Self.at(0)
        )
        #expect(view.statusLine.hasPrefix("Enter sends"), "our own typing, echoed by the server")
        view.message(Self.agent("", id: "n4", kind: "typing-started"), now: Self.at(0))
        view.message(Self.agent("Here you go", id: "m5"), now: Self.at(0))
        #expect(view.statusLine.hasPrefix("Enter sends"), "a message ends the typing")
        view.message(Self.agent("elsewhere", id: "m6", thread: "t2"), now: Self.at(0))
        #expect(view.entries.map(\.id) == ["m5"])
    }

    /// A typing-started whose typing-stopped never comes (the agent closed the tab, the event was lost in a
    /// reconnect) is over 10 s after the last typing event; a new typing-started keeps it shown.
    @Test func theAgentsTypingEndsTenSecondsAfterTheLastTypingEvent() {
        var view = Self.view()
        view.message(Self.agent("", id: "n1", kind: "typing-started"), now: Self.at(0))
        #expect(view.tick(now: Self.at(9.75)).isEmpty && view.statusLine == "Ada is typing…")
        view.message(Self.agent("", id: "n2", kind: "typing-started"), now: Self.at(8))
        _ = view.tick(now: Self.at(17.75))
        #expect(view.statusLine == "Ada is typing…", "10 s from the last typing event, not the first")
        _ = view.tick(now: Self.at(18))
        #expect(view.statusLine.hasPrefix("Enter sends"), "no stopped came: over after 10 s")
        #expect(view.agentTyping == nil)
    }

    /// GMS starts a new chat for the first line sent after the end (GMSChat README): the view follows that
    /// thread, so its messages show and ours is not left "sent" in the closed one. Before a send, and after
    /// a refusal (CXone's single thread: "create a new thread"), another thread is still not shown.
    @Test func aLineSentAfterTheConversationClosedFollowsTheThreadTheChannelStartsForIt() {
        var view = Self.view(rows: 12, messages: [Self.agent("Bye", id: "m1")])
        view.threadUpdated(id: "t1", name: "Billing", state: "closed", time: 0)
        view.message(Self.agent("elsewhere", id: "x1", thread: "t0"), now: Self.at(0))
        _ = Self.type("Refused", into: &view)
        #expect(view.key(.enter, now: Self.at(1), time: 0).contains(.send("Refused", thread: "t1")))
        view.sendAnswered(text: "Refused", delivery: nil, reason: nil, error: "the conversation in thread t1 is closed", time: 0)
        view.threadUpdated(id: "t0", name: "Other", state: "ready", time: 0)
        #expect(view.threadID == "t1" && !view.entries.contains { $0.id == "x1" }, "a refused send follows nothing")

        _ = Self.key(.eraseToStart, into: &view)
        _ = Self.type("One more thing", into: &view, at: 2)
        #expect(view.key(.enter, now: Self.at(3), time: 0).contains(.send("One more thing", thread: "t1")))
        view.sendAnswered(text: "One more thing", delivery: "sent", reason: nil, error: nil, time: 0)
        view.threadUpdated(id: "t2", name: "Chat with customer-support", state: "ready", time: 0)
        view.message(
            ChatMessageRecord(id: "t2#2", threadID: "t2", direction: "to-agent", sender: "Grace", text: "One more thing", sentAt: 0),
            now: Self.at(4)
        )
        view.message(Self.agent("Hello again", id: "t2#4", thread: "t2"), now: Self.at(4))
        #expect(view.threadID == "t2" && view.threadState == "ready", "\(view.header)")
        #expect(view.header.contains("thread t2 \"Chat with customer-support\" · ready"), "\(view.header)")
        let texts = view.entries.map(\.text)
        // Ours, which started it, then the word that it is a new conversation, then its messages.
        #expect(texts.filter { $0 == "One more thing" }.count == 1, "\(texts)")
        #expect(texts.suffix(3) == ["One more thing", "A new conversation started: thread t2", "Hello again"], "\(texts)")
        #expect(!view.entries.contains { $0.pending }, "\(view.entries)")
        // Following ends there: a third thread is another conversation again.
        view.message(Self.agent("not ours", id: "t3#1", thread: "t3"), now: Self.at(5))
        #expect(view.threadID == "t2" && !view.entries.contains { $0.id == "t3#1" })
    }

    static func key(_ key: TalkKey, into view: inout TalkView) -> [TalkView.Action] {
        view.key(key, now: Self.at(0), time: 0)
    }

    @Test func pageUpScrollsBackWithinWhatIsLoadedAndNewMessagesKeepTheViewInPlace() {
        // 10 rows: 7 for the transcript.
        var view = Self.view(messages: (1...20).map { Self.agent("message \($0)", id: "m\($0)") })
        #expect(view.frame().rows[7].contains("message 20"))
        _ = view.key(.pageUp, now: Self.at(0), time: 0)
        #expect(view.scrollBack == 6)
        #expect(view.frame().rows[7].contains("message 14"))
        #expect(view.statusLine == "-- 6 more below: PgDn --")
        view.message(Self.agent("message 21", id: "m21"), now: Self.at(0))
        #expect(view.frame().rows[7].contains("message 14"), "the view stays on what is read")
        for _ in 0..<10 { _ = view.key(.pageUp, now: Self.at(0), time: 0) }
        #expect(view.frame().rows[1].contains("message 1") && view.scrollBack == 14, "no further than the first message")
        for _ in 0..<10 { _ = view.key(.pageDown, now: Self.at(0), time: 0) }
        #expect(view.scrollBack == 0 && view.frame().rows[7].contains("message 21"))
    }

    @Test func ctrlDOnAnEmptyLineCtrlCAndSlashQuitLeaveAndStopTheTyping() {
        var view = Self.view()
        #expect(view.key(.endOfInput, now: Self.at(0), time: 0) == [.quit])
        _ = Self.type("ab", into: &view)
        view.key(.home, now: Self.at(0), time: 0).forEach { _ in }
        #expect(view.key(.endOfInput, now: Self.at(0), time: 0).isEmpty, "Ctrl-D deletes under the cursor")
        #expect(view.editor.text == "b")
        #expect(view.key(.interrupt, now: Self.at(1), time: 0) == [.typing(started: false, thread: "t1"), .quit])
        var other = Self.view()
        #expect(Self.type("/quit", into: &other, at: 10).isEmpty, "a command is no typing for the agent")
        #expect(other.key(.enter, now: Self.at(10), time: 0) == [.quit])
    }

    @Test func aChannelWithoutTypingIsNotAskedAgainAndAViewWithoutAThreadTakesTheFirstMessagesThread() {
        var view = TalkView(channel: "web", thread: nil, size: .init(rows: 8, columns: 30)) { _ in "10:00" }
        #expect(view.header.contains("no thread yet"))
        #expect(Self.type("x", into: &view) == [.typing(started: true, thread: nil)])
        view.typingRefused(unsupported: true)
        _ = view.key(.backspace, now: Self.at(1), time: 0)
        #expect(Self.type("y", into: &view, at: 10).isEmpty)
        view.message(Self.agent("Welcome", id: "w1", thread: "new"), now: Self.at(0))
        #expect(view.threadID == "new" && view.entries.map(\.text) == ["Welcome"])
    }

}
