import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// `attendantctl chat talk` in a real terminal (tmux, as ChatTalkDaemonTests drives it) against the real
/// daemon with the CXoneChat and GMSChat plugins and the real `attendant-sim`'s CXone gateway and GMS
/// server: the transcript, the agent's typing (and its end when no stop comes), older messages loaded from
/// the server, a reply the simulator's agent receives, a CXone quick reply chosen in the view, and the
/// terminal left clean. Every wait is on what the pane shows or what the simulator recorded.
@Suite(.serialized, .timeLimit(.minutes(4))) struct ChatTalkSimulatorTests {
    typealias Simulator = SimulatorDaemonTests.Simulator
    typealias Tmux = ChatTalkDaemonTests.Tmux

    /// The pane's rows that end with `suffix`.
    static func rows(_ pane: [String], endingWith suffix: String) -> [String] { pane.filter { $0.hasSuffix(suffix) } }

    /// `chat talk` started in the pane, once its transcript shows `shown`.
    static func talk(_ tmux: Tmux, showing shown: String) async throws -> [String] {
        try await tmux.type("\(TokenDaemonTests.attendantctl) chat talk")
        try await tmux.press("Enter")
        return try await tmux.waitFor("the transcript") { $0.contains(shown) && $0.contains("Enter sends") }
    }

    /// PgUp until the status line says the conversation starts here; each press waits for the view's
    /// answer (a page loaded, or the start), so no press overtakes the page it asked for.
    static func pageBackToTheStart(_ tmux: Tmux) async throws -> [String] {
        var pane: [String] = []
        for _ in 0..<30 {
            try await tmux.press("PPage")
            pane = try await tmux.waitFor("an answer to PgUp") { text in
                !text.contains("Loading older messages…")
                    && (text.contains("older message") || text.contains("more below: PgDn") || text.contains("start of the conversation"))
            }
            if pane.joined(separator: "\n").contains("This is the start of the conversation.") { return pane }
        }
        throw FixtureError("PgUp never reached the start; the pane:\n\(pane.joined(separator: "\n"))")
    }

    /// The numbers of the "history N" messages on the pane, top to bottom.
    static func history(_ pane: [String]) -> [Int] {
        pane.compactMap { row in row.range(of: #": history \d+$"#, options: .regularExpression).flatMap { Int(row[$0].dropFirst(10)) } }
    }

    /// Leaves with Ctrl-C: the shell's prompt, the view's last word, the terminal as it was.
    static func leave(_ tmux: Tmux, channel: String) async throws {
        try await tmux.press("C-c")
        try await tmux.waitFor("the shell again") { $0.contains("Left the conversation on \(channel).\nshell$") }
        try await ChatTalkDaemonTests.expectSaneTerminal(tmux)
    }

    // MARK: CXone

    @Test func cxoneTheViewShowsTypingLoadsOlderPagesRepliesChoosesAQuickReplyAndLeavesCleanly() async throws {
        let simulator = try await Simulator(["--cxone-greeting", "Hello Grace, this is Ada. How can I help?"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await CXoneChatDaemonTests.listeningDaemon(simulator, scratch: scratch, bus: bus)
        try await eventually("the agent's greeting thread") {
            CXoneChatDaemonTests.texts(try await CXoneChatDaemonTests.threads(bus: bus).first).contains("Hello Grace, this is Ada. How can I help?")
        }
        let thread = try #require(try await CXoneChatDaemonTests.gatewayThreads(simulator).first?["id"] as? String)
        // 24 messages of history at the gateway, and it recovers 10 at a time: the thread opened by the view
        // holds the latest 10 and a scroll token, and PgUp pages back with LoadMoreMessages.
        for number in 1...24 {
            _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(thread)&text=history%20\(number)")
        }
        try await eventually("the history in the thread") {
            CXoneChatDaemonTests.texts(try await CXoneChatDaemonTests.threads(bus: bus).first).last == "history 24"
        }
        _ = try await simulator.control("POST", "/control/cxone/page-size?messages=10")

        let tmux = try await Tmux(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        var pane = try await Self.talk(tmux, showing: "history 24")
        #expect(pane[0].hasPrefix(" chat · thread \(thread.lowercased())") || pane[0].hasPrefix(" chat · thread "), "\(pane[0])")
        #expect(pane[0].contains(" · ready"), "\(pane[0])")
        #expect(pane[28].hasPrefix("Enter sends") && pane[29] == ">", "\(pane)")
        #expect(!Self.rows(pane, endingWith: ": history 24").isEmpty, "\(pane)")

        // The agent types: "NAME is typing…" on the status line until SenderTypingEnded.
        let brand = simulator.announcement["cxone_brand"] as? Int ?? 0
        let channel = simulator.announcement["cxone_channel"] as? String ?? ""
        func push(_ type: String) async throws {
            let agent = #"{"id":7,"firstName":"Ada","surname":"Lovelace","nickname":null,"isBotUser":false,"isSurveyUser":false}"#
            let data = #"{"brand":{"id":\#(brand)},"channel":{"id":"\#(channel)"},"thread":{"idOnExternalPlatform":"\#(thread)"},"user":\#(agent)}"#
            _ = try await simulator.control(
                "POST",
                "/control/cxone/push",
                body: #"{"eventId":"\#(UUID().uuidString)","eventType":"\#(type)","createdAt":"2026-11-28T22:00:00.000Z","data":\#(data)}"#
            )
        }
        try await push("SenderTypingStarted")
        try await tmux.waitFor("the agent typing") { $0.contains("Ada Lovelace is typing…") }
        try await push("SenderTypingEnded")
        try await tmux.waitFor("the typing ended") { !$0.contains("is typing…") && $0.contains("Enter sends") }
        // A start whose end never comes is over 10 s after it (the wait is on the pane, not on a clock).
        try await push("SenderTypingStarted")
        try await tmux.waitFor("the agent typing again") { $0.contains("Ada Lovelace is typing…") }
        try await tmux.waitFor("the typing over without an end") { !$0.contains("is typing…") && $0.contains("Enter sends") }
        try await push("SenderTypingStarted")
        try await tmux.waitFor("a new start after the time-out shows again") { $0.contains("Ada Lovelace is typing…") }
        try await push("SenderTypingEnded")
        try await tmux.waitFor("the typing ended again") { !$0.contains("is typing…") }

        // PgUp pages back through the gateway until it has no more: the greeting, then the start.
        pane = try await Self.pageBackToTheStart(tmux)
        let loads = try await CXoneChatDaemonTests.receivedEvents(simulator).filter { $0 == "LoadMoreMessages" }.count
        #expect(loads >= 2, "pages asked of the gateway: \(loads)")
        #expect(!Self.rows(pane, endingWith: "Hello Grace, this is Ada. How can I help?").isEmpty, "the oldest at the top: \(pane)")
        let atTheStart = Self.history(pane)
        #expect(atTheStart.first == 1 && atTheStart == Array(1..<(1 + atTheStart.count)), "in order, each once: \(pane)")
        try await tmux.press("NPage", "NPage", "NPage", "NPage", "NPage", "NPage", "NPage", "NPage")
        try await tmux.waitFor("back at the newest") { $0.contains(": history 24") && $0.contains("Enter sends") }

        // A reply: our typing reaches the gateway while the line is typed, Enter sends the text, and the
        // gateway's agent has it.
        try await tmux.type("My parcel has not come")
        try await eventually("our typing at the gateway") {
            try await CXoneChatDaemonTests.receivedEvents(simulator).contains("SenderTypingStarted")
        }
        try await tmux.press("Enter")
        try await eventually("the reply at the gateway") {
            try await CXoneChatDaemonTests.gatewayMessages(simulator).contains {
                $0["text"] as? String == "My parcel has not come" && $0["direction"] as? String == "inbound"
            }
        }
        pane = try await tmux.waitFor("ours sent") { $0.contains(": My parcel has not come") && !$0.contains("(sending)") }
        #expect(pane[29] == ">", "the input line is empty again: \(pane)")
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(thread)&text=Let%20me%20check%20that")
        pane = try await tmux.waitFor("the agent's answer") { $0.contains(": Let me check that") }
        let ours = try #require(pane.firstIndex { $0.hasSuffix(": My parcel has not come") }, "\(pane)")
        let answer = try #require(pane.firstIndex { $0.hasSuffix(": Let me check that") }, "\(pane)")
        #expect(ours < answer, "\(pane)")

        // A choice: the agent's quick replies show as numbered buttons, /2 answers with Delivery's
        // postback, as the SDK does.
        _ = try await simulator.control("POST", "/control/cxone/rich?thread=\(thread)&kind=quick-replies")
        pane = try await tmux.waitFor("the quick replies") { $0.contains("Which topic?") && $0.contains("[2] Delivery") }
        #expect(pane.contains { $0.contains("[1] Billing  [2] Delivery") }, "\(pane)")
        try await tmux.type("/2")
        try await tmux.press("Enter")
        try await eventually("the choice at the gateway") {
            try await CXoneChatDaemonTests.gatewayMessages(simulator).last?["text"] as? String == "Delivery"
        }
        let chosen = try #require(try await CXoneChatDaemonTests.gatewayMessages(simulator).last)
        #expect(chosen["direction"] as? String == "inbound" && chosen["postback"] as? String == #"{"topic":"delivery"}"#, "\(chosen)")
        try await tmux.waitFor("the choice as ours") { $0.contains(": Delivery\n") && !$0.contains("(sending)") }
        // What was shown was marked seen at the gateway.
        try await eventually("MessageSeenByCustomer at the gateway") {
            try await CXoneChatDaemonTests.receivedEvents(simulator).contains("MessageSeenByCustomer")
        }

        try await Self.leave(tmux, channel: "chat")
        tmux.stop()
        await CXoneChatDaemonTests.stop(daemon)
    }

    /// The inactivity popup answered in the view: the gateway gets the answer, and the view shows no
    /// message of ours for it (the CXone SDK never shows it: `ChatThreadService.shouldIgnoreMessage`,
    /// SDK 3.3.1). Its "End the chat" closes the contact; the next line the person types goes on in the
    /// same thread, as the SDK's single-thread channel does, and the gateway opens a new contact for it.
    @Test func cxoneThePopupsAnswerIsNoMessageOfOursAndAfterTheChatEndedTheNextLineGoesOn() async throws {
        let greeting = "Hello Grace, this is Ada. How can I help?"
        let simulator = try await Simulator(["--cxone-greeting", greeting])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await CXoneChatDaemonTests.listeningDaemon(simulator, scratch: scratch, bus: bus)
        try await eventually("the agent's greeting thread") {
            CXoneChatDaemonTests.texts(try await CXoneChatDaemonTests.threads(bus: bus).first).contains(greeting)
        }
        let thread = try #require(try await CXoneChatDaemonTests.gatewayThreads(simulator).first?["id"] as? String)
        let tmux = try await Tmux(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        _ = try await Self.talk(tmux, showing: greeting)

        // "Are you still there?": /1 stays. The gateway has the answer; the view says it was answered and
        // shows nothing of ours, then or when the agent writes next.
        _ = try await simulator.control("POST", "/control/cxone/rich?thread=\(thread)&kind=inactivity-popup")
        try await tmux.waitFor("the popup") { $0.contains("Are you still there?") && $0.contains("[1] I'm still here  [2] End the chat") }
        try await tmux.type("/1")
        try await tmux.press("Enter")
        try await eventually("the popup's answer at the gateway") {
            let last = try await CXoneChatDaemonTests.gatewayMessages(simulator).last
            return last?["text"] as? String == "I'm still here" && last?["inactivity_popup_answer"] as? Bool == true
        }
        try await tmux.waitFor("the answer on the status line") { $0.contains("Answered: I'm still here.") }
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(thread)&text=Good%20to%20hear")
        var pane = try await tmux.waitFor("the agent's next message") { $0.contains(": Good to hear") }
        #expect(Self.rows(pane, endingWith: ": I'm still here").isEmpty, "no message of ours for the answer: \(pane)")

        // The second popup's "End the chat": the gateway closes the contact, the view's thread is closed.
        _ = try await simulator.control("POST", "/control/cxone/rich?thread=\(thread)&kind=inactivity-popup")
        try await tmux.waitFor("the second popup") { $0.components(separatedBy: "Are you still there?").count == 3 }
        try await tmux.type("/2")
        try await tmux.press("Enter")
        try await eventually("the contact closed at the gateway") {
            try await CXoneChatDaemonTests.gatewayThreads(simulator).first?["status"] as? String == "closed"
        }
        try await tmux.waitFor("the thread closed in the view") { $0.contains(" · closed") }

        // The next line goes on in the same thread: the gateway has it under a new contact.
        try await tmux.type("Sorry, one more question")
        try await tmux.press("Enter")
        try await eventually("the line at the gateway") {
            try await CXoneChatDaemonTests.gatewayMessages(simulator).contains {
                $0["text"] as? String == "Sorry, one more question" && $0["direction"] as? String == "inbound"
            }
        }
        let threads = try await CXoneChatDaemonTests.gatewayThreads(simulator)
        #expect(threads.count == 1 && threads.first?["status"] as? String != "closed", "\(threads)")
        pane = try await tmux.waitFor("ours sent in the open thread") {
            $0.contains(": Sorry, one more question") && !$0.contains("(sending)") && $0.contains(" · ready")
        }
        #expect(!pane.joined(separator: "\n").contains("Not sent"), "\(pane)")
        #expect(Self.rows(pane, endingWith: ": End the chat").isEmpty, "\(pane)")

        try await Self.leave(tmux, channel: "chat")
        tmux.stop()
        await CXoneChatDaemonTests.stop(daemon)
    }

    // MARK: GMS

    @Test func gmsTheViewShowsTypingLoadsOlderMessagesRepliesAndLeavesCleanly() async throws {
        let simulator = try await Simulator(["--gms-greeting-delay", "0.2"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await TokenDaemonTests.daemon(GMSChatDaemonTests.configuration(simulator), scratch: scratch, bus: bus)
        try await CXoneChatDaemonTests.waitForListening(bus, daemon)
        let greeting = "Hello, this is Ada. How can I help you?"
        try await eventually("the greeting") { CXoneChatDaemonTests.texts(try await CXoneChatDaemonTests.threads(bus: bus).first).contains(greeting) }
        // 30 messages after the greeting: the thread opens with its last 20, and PgUp pages back by 20.
        for number in 1...30 {
            _ = try await simulator.control("POST", "/control/gms/agent?text=history%20\(number)")
        }
        try await eventually("the history in the thread") {
            CXoneChatDaemonTests.texts(try await CXoneChatDaemonTests.threads(bus: bus).first).last == "history 30"
        }

        let tmux = try await Tmux(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        var pane = try await Self.talk(tmux, showing: "history 30")
        #expect(pane[0].hasPrefix(" chat · thread ") && pane[0].contains(" · "), "\(pane[0])")
        #expect(pane[28].hasPrefix("Enter sends") && pane[29] == ">", "\(pane)")
        #expect(!pane.contains { $0.hasSuffix(": history 10") }, "the 11th from the end is not loaded: \(pane)")

        // The agent types (TypingStarted / TypingStopped rows); a start without a stop is over after 10 s.
        _ = try await simulator.control("POST", "/control/gms/typing?state=started")
        try await tmux.waitFor("the agent typing") { $0.contains("Ada Lovelace is typing…") }
        _ = try await simulator.control("POST", "/control/gms/typing?state=stopped")
        try await tmux.waitFor("the typing ended") { !$0.contains("is typing…") && $0.contains("Enter sends") }
        _ = try await simulator.control("POST", "/control/gms/typing?state=started")
        try await tmux.waitFor("the agent typing again") { $0.contains("Ada Lovelace is typing…") }
        try await tmux.waitFor("the typing over without a stop") { !$0.contains("is typing…") && $0.contains("Enter sends") }

        // PgUp pages back through what the session holds, to the greeting and the start.
        pane = try await Self.pageBackToTheStart(tmux)
        #expect(!Self.rows(pane, endingWith: greeting).isEmpty, "the greeting at the top: \(pane)")
        let atTheStart = Self.history(pane)
        #expect(atTheStart.first == 1 && atTheStart == Array(1..<(1 + atTheStart.count)), "in order, each once: \(pane)")
        try await tmux.press("NPage", "NPage", "NPage", "NPage", "NPage", "NPage", "NPage", "NPage", "NPage", "NPage")
        try await tmux.waitFor("back at the newest") { $0.contains(": history 30") && $0.contains("Enter sends") }

        // A reply: our typing and then the message reach GMS as the customer's rows.
        func transcript() async throws -> [[String: Any]] {
            try await GMSChatDaemonTests.gmsChats(simulator).first?["transcript"] as? [[String: Any]] ?? []
        }
        try await tmux.type("Where is my parcel?")
        try await eventually("our typing at GMS") {
            try await transcript().contains { $0["type"] as? String == "TypingStarted" && $0["party"] as? String != "agent" }
        }
        try await tmux.press("Enter")
        try await eventually("the reply at GMS") {
            try await GMSChatDaemonTests.gmsChats(simulator).first?["customer_messages"] as? [String] ?? [] == ["Where is my parcel?"]
        }
        pane = try await tmux.waitFor("ours sent") { $0.contains(": Where is my parcel?") && !$0.contains("(sending)") }
        #expect(pane[29] == ">", "\(pane)")
        _ = try await simulator.control("POST", "/control/gms/agent?text=It%20left%20today")
        pane = try await tmux.waitFor("the agent's answer") { $0.contains(": It left today") }
        let ours = try #require(pane.firstIndex { $0.hasSuffix(": Where is my parcel?") }, "\(pane)")
        let answer = try #require(pane.firstIndex { $0.hasSuffix("Ada Lovelace: It left today") }, "\(pane)")
        #expect(ours < answer, "\(pane)")
        #expect(pane.filter { $0.hasSuffix(": Where is my parcel?") }.count == 1, "shown once, not again as GMS's echo: \(pane)")

        // The agent ends the chat; a line sent after it starts a new chat (GMSChat: the first send after the
        // end), and the view follows it: its thread in the header, the agent's greeting shown.
        let ended = try #require(try await GMSChatDaemonTests.gmsChats(simulator).first?["id"] as? String)
        _ = try await simulator.control("POST", "/control/gms/end")
        pane = try await tmux.waitFor("the chat closed") { $0.contains("The conversation is closed.") }
        #expect(pane[0].contains(" · closed"), "\(pane[0])")
        let closedThread = pane[0].split(separator: " ").dropFirst(3).first.map(String.init) ?? ""
        try await tmux.type("One more thing")
        try await tmux.press("Enter")
        try await eventually("a new chat at GMS with the line") {
            try await GMSChatDaemonTests.gmsChats(simulator).contains {
                $0["id"] as? String != ended && $0["customer_messages"] as? [String] ?? [] == ["One more thing"]
            }
        }
        pane = try await tmux.waitFor("the new chat's greeting in the view") {
            $0.contains("A new conversation started: thread ") && $0.contains("Ada Lovelace: \(greeting)\nEnter sends")
        }
        #expect(!closedThread.isEmpty && pane[0].hasPrefix(" chat · thread ") && !pane[0].contains(closedThread), "\(closedThread): \(pane[0])")
        #expect(
            pane[0].contains(" · ready") && pane.contains { $0.hasSuffix("A new conversation started: thread \(pane[0].split(separator: " ")[3])") },
            "\(pane)"
        )
        let line = try #require(pane.firstIndex { $0.hasSuffix(": One more thing") }, "\(pane)")
        let started = try #require(pane.firstIndex { $0.contains("A new conversation started: thread ") }, "\(pane)")
        #expect(line < started && !pane[line].contains("(sending)"), "\(pane)")

        try await Self.leave(tmux, channel: "chat")
        tmux.stop()
        await CXoneChatDaemonTests.stop(daemon)
    }
}
