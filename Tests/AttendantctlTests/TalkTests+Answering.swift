import AttendantControl
import Testing

@testable import AttendantCLI

/// Answering from the desktop: slash commands, numbered choices, files, read marks, older pages and a resize.
extension TalkTests {
    static func enter(_ line: String, into view: inout TalkView) -> [TalkView.Action] {
        _ = view.key(.eraseToStart, now: Self.at(0), time: 0)
        _ = Self.type(line, into: &view)
        return view.key(.enter, now: Self.at(0), time: 0)
    }

    static let menu: [ChatChoiceRecord] = [
        ChatChoiceRecord(id: "billing", label: "Billing"), ChatChoiceRecord(id: "orders", label: "Orders"),
        ChatChoiceRecord(id: "other", label: "Other"), ChatChoiceRecord(id: "help", label: "Help centre", url: "https://help.example.org/x"),
    ]

    static func offering(_ text: String, id: String, choices: [ChatChoiceRecord] = menu) -> ChatMessageRecord {
        var message = Self.agent(text, id: id)
        message.choices = choices
        return message
    }

    @Test func commandsStartWithASlashAndADoubleSlashSendsOne() {
        #expect(TalkCommand("hello") == nil)
        #expect(TalkCommand("/quit") == .quit && TalkCommand("/exit") == .quit && TalkCommand("/help") == .help)
        #expect(TalkCommand("/2") == .choose(2) && TalkCommand("/choose 3") == .choose(3))
        #expect(TalkCommand("/save") == .save(1) && TalkCommand("/save 2") == .save(2))
        #expect(TalkCommand("/send ~/My notes.txt") == .sendFile("~/My notes.txt"))
        #expect(TalkCommand("//etc is full") == .message("/etc is full"))
        #expect(TalkCommand("/choose") == .invalid("/choose needs the number of a choice, as in /choose 2"))
        #expect(TalkCommand("/0") == .invalid("No command /0; /help lists them (// starts a message with /)"))
        #expect(TalkCommand("/save x") == .invalid("/save takes the number of a file, as in /save 2, or nothing for the latest"))
        #expect(TalkCommand("/send") == .invalid("/send needs a file's path, as in /send ~/notes.pdf"))
        #expect(TalkCommand("/etc/hosts") == .invalid("No command /etc/hosts; /help lists them (// starts a message with /)"))

        var view = Self.view()
        #expect(Self.enter("//etc is full", into: &view) == [.send("/etc is full", thread: "t1")])
        #expect(Self.enter("/bogus", into: &view).isEmpty && view.statusLine.hasPrefix("No command /bogus"))
        #expect(view.editor.isEmpty, "a command leaves the input line")
        #expect(Self.enter("/help", into: &view).isEmpty && view.statusLine == TalkCommand.list)
        #expect(view.frame().rows[8].hasPrefix("\u{1B}[2m/1…/9 or /choose N answers · /save [N] s"), "cut at 40 columns")
    }

    @Test func theLatestOfferingsChoicesAreNumberedButtonsThatSlashNAnswers() {
        var view = Self.view(rows: 12, columns: 100, messages: [Self.offering("What can I help you with?", id: "m1")])
        #expect(view.frame().rows.contains { $0.contains("      [1] Billing  [2] Orders  [3] Other  [4] Help centre <https://help.example.org/x>") })
        #expect(Self.enter("/2", into: &view) == [.choose(message: "m1", choice: "orders", label: "Orders", thread: "t1")])
        #expect(view.entries.last?.text == "Orders" && view.entries.last?.pending == true && view.entries.last?.style == .ours)
        view.chooseAnswered(label: "Orders", error: nil, time: 0)
        #expect(view.entries.last?.pending == false)
        // A link is shown, not chosen; a number the message does not offer says which it does.
        #expect(Self.enter("/choose 4", into: &view).isEmpty && view.statusLine == "Help centre is a link: https://help.example.org/x")
        #expect(Self.enter("/9", into: &view).isEmpty && view.statusLine == "Choose 1 to 4: /1 … /4.")

        // A newer offering takes the numbers; the older one's buttons stay, unnumbered.
        view.message(Self.offering("Are you still there?", id: "m2", choices: [ChatChoiceRecord(id: "yes", label: "I'm here")]), now: Self.at(0))
        let rows = view.frame().rows
        #expect(rows.contains { $0.contains("      [Billing]  [Orders]  [Other]  [Help centre] <https://help.example.org/x>") }, "\(rows)")
        #expect(rows.contains { $0.contains("      [1] I'm here") })
        #expect(Self.enter("/1", into: &view) == [.choose(message: "m2", choice: "yes", label: "I'm here", thread: "t1")])
        view.chooseAnswered(label: "I'm here", error: "channel desk: the thread is closed", time: 0)
        #expect(view.entries.last?.text == "Not chosen: I'm here: channel desk: the thread is closed" && view.entries.last?.style == .problem)
        #expect(!view.entries.contains { $0.pending })

        var plain = Self.view()
        #expect(Self.enter("/1", into: &plain).isEmpty && plain.statusLine == "No message offers choices to answer with.")
    }

    /// The answer to an "are you still there?" prompt (an idle alert) is no message of ours: the CXone SDK
    /// sends it and never shows it (`ChatThreadService.send` with `isInactivityPopupAnswer`, SDK 3.3.1),
    /// and the channel reports no copy of it. The status line says it was answered.
    @Test func anIdlePromptsAnswerIsNotShownAsOursTheStatusLineSaysItWasAnswered() {
        var prompt = Self.agent("Are you still there?", id: "m1", kind: "idle-alert")
        prompt.choices = [ChatChoiceRecord(id: "refresh", label: "I'm still here"), ChatChoiceRecord(id: "expire", label: "End the chat")]
        var view = Self.view(rows: 12, columns: 60, messages: [Self.agent("Hello", id: "m0"), prompt])
        #expect(Self.enter("/1", into: &view) == [.choose(message: "m1", choice: "refresh", label: "I'm still here", thread: "t1")])
        #expect(view.entries.map(\.id) == ["m0", "m1"], "nothing of ours: \(view.entries.map(\.text))")
        #expect(view.statusLine == "Answering: I'm still here…")
        view.chooseAnswered(label: "I'm still here", error: nil, time: 0)
        #expect(view.entries.map(\.id) == ["m0", "m1"])
        #expect(view.statusLine == "Answered: I'm still here.")
        // An answer that closes the conversation: the closing is what the status line says.
        _ = Self.enter("/2", into: &view)
        view.threadUpdated(id: "t1", name: "Billing", state: "closed", time: 0)
        view.chooseAnswered(label: "End the chat", error: nil, time: 0)
        #expect(view.statusLine == "The conversation is closed.")
        // Refused: said in the transcript, as any choice.
        _ = Self.enter("/2", into: &view)
        view.chooseAnswered(label: "End the chat", error: "channel desk: offline", time: 0)
        #expect(view.entries.last?.text == "Not chosen: End the chat: channel desk: offline" && view.entries.last?.style == .problem)
    }

    /// A closed conversation that the channel takes up again in the same thread (a CXone single-thread
    /// channel: the server opens a new case in it) is still the view's: it follows no other thread after.
    @Test func aClosedConversationThatGoesOnInItsThreadIsFollowedNoFurther() {
        var view = Self.view(rows: 12, messages: [Self.agent("Bye", id: "m1")])
        view.threadUpdated(id: "t1", name: "Billing", state: "closed", time: 0)
        #expect(Self.enter("One more thing", into: &view).contains(.send("One more thing", thread: "t1")))
        view.sendAnswered(text: "One more thing", delivery: "sent", reason: nil, error: nil, time: 0)
        view.threadUpdated(id: "t1", name: "Billing", state: "ready", time: 0)
        #expect(view.threadState == "ready" && view.statusLine != "The conversation is closed.")
        view.message(Self.agent("elsewhere", id: "x1", thread: "t0"), now: Self.at(1))
        #expect(view.threadID == "t1" && !view.entries.contains { $0.id == "x1" }, "\(view.entries.map(\.text))")
    }

    @Test func filesShowWithTypeAndSizeSaveTakesTheLatestAndSendTakesAPath() {
        var message = Self.agent("Here you go", id: "m1")
        message.attachments = [ChatAttachmentRecord(id: "a1", name: "notes.txt", mimeType: "text/plain", size: 67)]
        var two = Self.agent("", id: "m2")
        two.attachments = [
            ChatAttachmentRecord(id: "b1", name: "scan.pdf", mimeType: "application/pdf", size: 2_500_000),
            ChatAttachmentRecord(id: "b2", name: "bell\u{07}.png", mimeType: "image/png"),
        ]
        var view = Self.view(rows: 12, columns: 100, messages: [message])
        #expect(view.frame().rows.contains { $0.contains("10:00 Ada: Here you go") })
        #expect(view.frame().rows.contains { $0.contains("      [file] notes.txt (text/plain, 67 bytes)") })
        #expect(Self.enter("/save", into: &view) == [.save(message: "m1", attachment: message.attachments![0], thread: "t1")])
        #expect(view.statusLine == "Saving notes.txt…")
        view.saved(path: "/home/grace/Downloads/notes (1).txt", mimeType: "text/plain", size: 67, time: 0)
        #expect(view.frame().rows.contains { $0.contains("10:00 -- Saved /home/grace/Downloads/notes (1).txt (text/plain, 67 bytes)") })
        #expect(view.statusLine.hasPrefix("Enter sends"), "saved: the status line no longer says saving")

        // A message of files only: the first on its first row, each numbered; /save N takes file N.
        view.message(two, now: Self.at(0))
        let rows = view.frame().rows
        #expect(rows.contains { $0.contains("10:00 Ada: [file 1] scan.pdf (application/pdf, 2 MiB)") }, "\(rows)")
        #expect(rows.contains { $0.contains("      [file 2] bell .png (image/png)") }, "\(rows)")
        #expect(Self.enter("/save 2", into: &view) == [.save(message: "m2", attachment: two.attachments![1], thread: "t1")])
        #expect(Self.enter("/save 3", into: &view).isEmpty && view.statusLine == "The latest message has 2 files: /save 1 … /save 2.")
        view.notSaved(name: "scan.pdf", error: "cannot create /ro/scan.pdf: Permission denied", time: 0)
        #expect(view.entries.last?.text == "Not saved: scan.pdf: cannot create /ro/scan.pdf: Permission denied")
        #expect(view.statusLine.hasPrefix("Enter sends"), "not saved: the status line no longer says saving")

        // Sending: the path as typed; once sent, ours with its file.
        #expect(Self.enter("/send ~/report 1.pdf", into: &view) == [.sendFile(path: "~/report 1.pdf", thread: "t1")])
        #expect(view.statusLine == "Sending ~/report 1.pdf…")
        view.fileSent(name: "report 1.pdf", mimeType: "application/pdf", size: 2048, message: "srv-9", time: 0)
        #expect(view.frame().rows.contains { $0.contains("10:00 You: [file] report 1.pdf (application/pdf, 2 KiB)") })
        #expect(Self.enter("/save", into: &view) == [.save(message: "m2", attachment: two.attachments![0], thread: "t1")], "ours is not saved")
        _ = Self.enter("/send ~/gone.pdf", into: &view)
        view.fileNotSent(path: "~/gone.pdf", error: "cannot read /home/grace/gone.pdf: No such file or directory", time: 0)
        #expect(view.entries.last?.text == "Not sent: ~/gone.pdf: cannot read /home/grace/gone.pdf: No such file or directory")
        #expect(view.statusLine.hasPrefix("Enter sends"), "not sent: the status line no longer says sending")

        var none = Self.view()
        #expect(Self.enter("/save", into: &none).isEmpty && none.statusLine == "No file came to save.")
        #expect(TranscriptLayout.size(1) == "1 byte" && TranscriptLayout.size(1023) == "1023 bytes" && TranscriptLayout.size(1536) == "2 KiB")
    }

    @Test func theNewestAgentMessageOnTheScreenIsMarkedReadOnceAndNotWhenUnsupported() {
        // 10 rows: 7 for the transcript.
        var view = Self.view(messages: (1...20).map { Self.agent("message \($0)", id: "m\($0)") })
        #expect(view.readReceipt() == .markRead(message: "m20", thread: "t1"))
        #expect(view.readReceipt() == nil, "told once")
        view.message(Self.agent("message 21", id: "m21"), now: Self.at(0))
        #expect(view.readReceipt() == .markRead(message: "m21", thread: "t1"))
        _ = Self.enter("mine", into: &view)
        #expect(view.readReceipt() == nil, "ours is not read by us")
        // Scrolled back, what arrives is not on the screen: not read until it shows.
        _ = view.key(.pageUp, now: Self.at(0), time: 0)
        view.message(Self.agent("message 22", id: "m22"), now: Self.at(0))
        #expect(view.readReceipt() == nil)
        for _ in 0..<5 { _ = view.key(.pageDown, now: Self.at(0), time: 0) }
        #expect(view.readReceipt() == .markRead(message: "m22", thread: "t1"))
        view.readRefused(unsupported: true)
        view.message(Self.agent("message 23", id: "m23"), now: Self.at(0))
        #expect(view.readReceipt() == nil, "a channel without read receipts is not asked again")

        var another = Self.view(messages: [Self.agent("hi", id: "m1")])
        _ = another.readReceipt()
        another.readRefused(unsupported: false)
        another.message(Self.agent("again", id: "m2"), now: Self.at(0))
        #expect(another.readReceipt() == .markRead(message: "m2", thread: "t1"), "another failure does not stop them")
    }

    @Test func pageUpAtTheTopLoadsTheOlderPageAndPrependsItUntilAPageComesBackEmpty() {
        // 10 rows: 7 for the transcript, and 5 messages fit.
        var view = Self.view(messages: (21...25).map { Self.agent("message \($0)", id: "m\($0)") })
        #expect(view.key(.pageUp, now: Self.at(0), time: 0) == [.loadOlder(thread: "t1")])
        #expect(view.history == .loading && view.statusLine == "Loading older messages…")
        #expect(view.key(.up, now: Self.at(0), time: 0).isEmpty, "asked once")
        // The page comes, with one already shown: put before the others, the view a page back.
        view.olderLoaded((5...21).map { Self.agent("message \($0)", id: "m\($0)") })
        #expect(view.entries.map(\.id) == (5...25).map { "m\($0)" } && view.history == .more)
        #expect(view.frame().rows[7].contains("message 19"), "\(view.frame().rows)")
        #expect(view.statusLine == "-- 6 more below: PgDn -- 16 older messages loaded.")
        // Not at the top yet: PgUp scrolls; at the top it asks again.
        #expect(view.key(.pageUp, now: Self.at(0), time: 0).isEmpty)
        #expect(view.key(.pageUp, now: Self.at(0), time: 0).isEmpty && view.frame().rows[1].contains("message 5"))
        #expect(view.key(.pageUp, now: Self.at(0), time: 0) == [.loadOlder(thread: "t1")])
        view.olderLoaded([])
        #expect(view.history == .complete("This is the start of the conversation."))
        #expect(view.statusLine.hasSuffix("-- This is the start of the conversation."))
        #expect(view.key(.pageUp, now: Self.at(0), time: 0).isEmpty && view.statusLine.hasSuffix("This is the start of the conversation."))

        var failing = Self.view()
        _ = failing.key(.pageUp, now: Self.at(0), time: 0)
        failing.olderFailed("channel desk: timed out", unsupported: false, time: 0)
        #expect(failing.entries.last?.text == "Older messages not loaded: channel desk: timed out" && failing.history == .more)
        #expect(failing.key(.pageUp, now: Self.at(0), time: 0) == [.loadOlder(thread: "t1")])
        failing.olderFailed("no", unsupported: true, time: 0)
        #expect(failing.history == .complete("desk cannot load older messages.") && failing.statusLine == "desk cannot load older messages.")
        #expect(failing.key(.pageUp, now: Self.at(0), time: 0).isEmpty)
    }

    @Test func everyRowFitsTheWidthAfterAResize() {
        var view = Self.view(messages: [Self.agent(String(repeating: "long words here ", count: 10), id: "m1")])
        _ = Self.type(String(repeating: "z", count: 100), into: &view)
        for (rows, columns) in [(30, 100), (5, 12), (3, 20), (1, 10), (24, 80)] {
            view.resized(.init(rows: rows, columns: columns))
            let frame = view.frame()
            #expect(frame.rows.count == rows)
            #expect(frame.cursorColumn < columns && frame.cursorRow < rows)
            for row in frame.rows {
                let plain = row.replacing(/\x1B\[[0-9;]*m/, with: "")
                #expect(TextWidth.of(plain) <= columns, "\(plain) at \(columns)")
            }
        }
    }
}
