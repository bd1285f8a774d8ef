import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

// Issue 33 through the real daemon, plugin and simulator (CXoneChatDaemonTests has the helpers): what an
// agent offers (rich messages, the inactivity popup) reaches the control interface as choices, and
// `attendantctl chat choose` answers as the CXone SDK does.
extension CXoneChatDaemonTests {
    /// `busctl call` on the daemon's interface, as any D-Bus client calls it (JSON).
    static func busctl(_ bus: PrivateBus, _ method: String, _ signature: String, _ arguments: [String]) async throws -> String {
        let (status, stdout, stderr) = try await runTool(
            "busctl",
            [
                "--address=\(bus.address)", "--json=short", "call", "org.attendant.Attendant1", "/org/attendant/Attendant1",
                "org.attendant.Attendant1", method, signature,
            ]
                + arguments,
            environment: ProcessInfo.processInfo.environment
        )
        guard status == 0 else { throw FixtureError("busctl \(method) failed (\(status)): \(stderr)") }
        return stdout
    }

    /// The gateway's messages of its first thread, as `/control/cxone/threads` lists them.
    static func gatewayMessages(_ simulator: Simulator) async throws -> [[String: Any]] {
        try await Self.gatewayThreads(simulator).first?["messages"] as? [[String: Any]] ?? []
    }

    /// The agent's rich message of `kind` in `thread`; its id as the daemon knows it.
    static func offer(_ simulator: Simulator, thread: String, kind: String) async throws -> String {
        let answer = try await simulator.controlJSON("POST", "/control/cxone/rich?thread=\(thread)&kind=\(kind)")
        return try #require(answer["message_id"] as? String).lowercased()
    }

    @Test func anAgentsChoicesReachTheBusAndChatChooseAnswersWithTheButtonsPostback() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "Hello"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let thread = try #require(try await Self.gatewayThreads(simulator).first?["id"] as? String)

        // Quick replies: the message and its buttons, as choices, on the bus.
        let replies = try await Self.offer(simulator, thread: thread, kind: "quick-replies")
        try await eventually("the quick replies in the thread") { await Self.texts(try Self.threads(bus: bus).first).contains("Which topic?") }
        let listed = try await Self.busctl(bus, "ChatListThreads", "s", ["chat"])
        for part in [#""Choices""#, #""Billing""#, #""Delivery""#] { #expect(listed.contains(part), "\(part) in \(listed)") }

        // Chosen by its label: the gateway gets the button's text with its postback.
        let chosen = try await Self.chat(["choose", replies, "Delivery"], bus: bus)
        #expect(chosen.status == 0, "\(chosen.output)\n\(daemon.stderr.suffix(2000))")
        #expect(chosen.output == "Chose 2 for \(replies) on chat.\n", "\(chosen.output)")
        try await eventually("the answer at the gateway") { try await Self.gatewayMessages(simulator).last?["text"] as? String == "Delivery" }
        var answer = try #require(try await Self.gatewayMessages(simulator).last)
        #expect(answer["direction"] as? String == "inbound")
        #expect(answer["postback"] as? String == #"{"topic":"delivery"}"#)
        #expect(answer["inactivity_popup_answer"] == nil)

        // A choice the message does not offer: refused, saying what it offers.
        let wrong = try await Self.chat(["choose", replies, "Returns"], bus: bus)
        #expect(wrong.status != 0)
        #expect(wrong.output.contains("offers no choice Returns; it offers 1, 2"), "\(wrong.output)")

        // The inactivity popup: an idle alert with refresh and expire. Staying sends the refresh button's
        // postback as the popup's answer, and the chat goes on.
        let stay = try await Self.offer(simulator, thread: thread, kind: "inactivity-popup")
        try await eventually("the popup in the thread") {
            await Self.texts(try Self.threads(bus: bus).first).contains { $0.hasPrefix("Are you still there?") }
        }
        let popup = try await Self.busctl(bus, "ChatListThreads", "s", ["chat"])
        #expect(popup.contains(#""Kind":{"type":"s","data":"idle-alert"}"#), "\(popup)")
        await #expect(try Self.chat(["choose", stay, "refresh"], bus: bus).status == 0)
        try await eventually("the popup's answer at the gateway") {
            try await Self.gatewayMessages(simulator).last?["text"] as? String == "I'm still here"
        }
        answer = try #require(try await Self.gatewayMessages(simulator).last)
        #expect(answer["postback"] as? String == #"{"action":"refresh","isExpired": false}"#)
        #expect(answer["inactivity_popup_answer"] as? Bool == true)
        #expect(try await Self.gatewayThreads(simulator).first?["status"] as? String != "closed")

        // Leaving: the expire button's answer, and the gateway closes the conversation.
        let leave = try await Self.offer(simulator, thread: thread, kind: "inactivity-popup")
        try await eventually("the second popup in the thread") {
            try await Self.threads(bus: bus).first.map { ($0["lastMessages"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == leave } }
                == true
        }
        await #expect(try Self.chat(["choose", leave, "expire"], bus: bus).status == 0)
        try await eventually("the thread closed") { try await Self.threads(bus: bus).first?["state"] as? String == "closed" }
        answer = try #require(try await Self.gatewayMessages(simulator).last)
        #expect(answer["postback"] as? String == #"{"action":"expire","isExpired": true}"#)
        #expect(answer["inactivity_popup_answer"] as? Bool == true)
        await Self.stop(daemon)
    }

    @Test func markReadOverTheBusSendsMessageSeenByCustomer() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "Hello"], bus: bus).status == 0)
        try await eventually("the thread ready") { try await Self.threads(bus: bus).first?["state"] as? String == "ready" }
        await #expect(try Self.receivedEvents(simulator).filter { $0 == "MessageSeenByCustomer" }.isEmpty)
        _ = try await Self.busctl(bus, "ChatMarkRead", "sss", ["chat", "", ""])
        try await eventually("MessageSeenByCustomer at the gateway") {
            try await Self.receivedEvents(simulator).filter { $0 == "MessageSeenByCustomer" }.count == 1
        }
        await Self.stop(daemon)
    }
}

extension CXoneChatDaemonTests {
    /// The texts of the thread a `busctl` ChatLoadOlder answered, in order.
    static func pageTexts(_ json: String) throws -> [String] {
        let answer = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
        let thread = (answer["data"] as? [Any])?.first as? [String: Any] ?? [:]
        let messages = (thread["LastMessages"] as? [String: Any])?["data"] as? [[String: Any]] ?? []
        return messages.compactMap { ($0["Text"] as? [String: Any])?["data"] as? String }
    }

    @Test func olderMessagesArePagedWithTheScrollTokenUntilThereAreNoMore() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "One"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let thread = try #require(try await Self.gatewayThreads(simulator).first?["id"] as? String)
        for text in ["Two", "Three", "Four", "Five"] {
            _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(thread)&text=\(text)")
        }
        try await eventually("the agent's messages in the thread") { await Self.texts(try Self.threads(bus: bus).first).last == "Five" }

        // The gateway recovers two messages at a time: the thread opened again holds the latest two and a
        // scroll token; each ChatLoadOlder gives the page before, oldest first, then nothing.
        _ = try await simulator.control("POST", "/control/cxone/page-size?messages=2")
        let opened = try await Self.chat(["open", thread.lowercased()], bus: bus)
        #expect(opened.status == 0, "\(opened.output)")
        var pages: [[String]] = []
        for _ in 0..<3 { pages.append(try Self.pageTexts(try await Self.busctl(bus, "ChatLoadOlder", "ss", ["chat", ""]))) }
        #expect(pages == [["Two", "Three"], ["One"], []], "\(pages)")
        await #expect(try Self.receivedEvents(simulator).filter { $0 == "LoadMoreMessages" }.count == 2)
        await Self.stop(daemon)
    }
}
