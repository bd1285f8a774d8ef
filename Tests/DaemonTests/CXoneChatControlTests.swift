import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

// What `attendantctl chat send` and `chat end` tell the user, and the contact history of chats, through
// the real daemon, plugin and simulator (CXoneChatDaemonTests has the helpers).
extension CXoneChatDaemonTests {
    // MARK: Sent, queued or refused

    @Test func chatSendSaysSentOrQueuedAndTheServersRefusalIsAServerError() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        let first = try await Self.chat(["send", "Hello"], bus: bus)
        #expect(first.status == 0 && first.output == "Sent on chat.\n", "\(first.output)")
        try await eventually("the first message at the gateway") { await Self.gatewayTexts(try Self.gatewayThreads(simulator).first).count == 1 }

        // An operation error answering SendMessage: refused, exit 1, the server's reason; the message is
        // not kept (sending it again would be refused again).
        _ = try await simulator.control("POST", "/control/cxone/fault?kind=operation-error&event=SendMessage&code=MessageRejected")
        let refused = try await Self.chat(["send", "--json", "Refused"], bus: bus)
        #expect(refused.status == 1, "\(refused.output)")
        #expect(refused.output.contains("ServerError"), "\(refused.output)")
        #expect(
            refused.output.contains("the chat server refused message ") && refused.output.contains("(MessageRejected): injected fault"),
            "\(refused.output)"
        )
        #expect(refused.output.contains("was not sent and is removed from the outbox"), "\(refused.output)")
        await #expect(try Self.status(bus: bus)["outbox"] == "0")

        // A server error answering SendMessage: the gateway failed; exit 1, and the message stays in the
        // outbox for the next connection.
        _ = try await simulator.control("POST", "/control/cxone/clear-faults")
        _ = try await simulator.control("POST", "/control/cxone/fault?kind=server-error&event=SendMessage")
        let failed = try await Self.chat(["send", "Retried"], bus: bus)
        #expect(failed.status == 1, "\(failed.output)")
        #expect(
            failed.output.contains("the chat server failed to take message ") && failed.output.contains("Internal server error"),
            "\(failed.output)"
        )
        #expect(failed.output.contains("stays in the outbox and is sent again when the chat reconnects"), "\(failed.output)")
        await #expect(try Self.status(bus: bus)["outbox"] == "1")
        _ = try await simulator.control("POST", "/control/cxone/clear-faults")
        _ = try await simulator.control("POST", "/control/cxone/drop")
        try await eventually("the kept message delivered after the reconnect") {
            await Self.gatewayTexts(try Self.gatewayThreads(simulator).first) == ["Hello", "Retried"]
        }
        try await eventually("the outbox empty") { try await Self.status(bus: bus)["outbox"] == "0" }

        // The gateway is down: the message is queued (exit 0, said so) and goes out once it is back.
        _ = try await simulator.control("POST", "/control/cxone/fault?kind=down")
        try await eventually("the chat reconnecting") { try await Self.status(bus: bus)["state"] == "connecting" }
        let queued = try await Self.chat(["send", "--json", "Later"], bus: bus)
        #expect(queued.status == 0, "\(queued.output)")
        let answer = try JSONSerialization.jsonObject(with: Data(queued.output.utf8)) as? [String: Any] ?? [:]
        #expect(answer["delivery"] as? String == "queued", "\(queued.output)")
        #expect((answer["reason"] as? String ?? "").contains("/chat-gateway is connecting; it is sent once the chat is ready"), "\(queued.output)")
        _ = try await simulator.control("POST", "/control/cxone/clear-faults")
        try await eventually("the queued message delivered") {
            await Self.gatewayTexts(try Self.gatewayThreads(simulator).first) == ["Hello", "Retried", "Later"]
        }
        await Self.stop(daemon)
    }

    // MARK: chat end's default thread

    @Test func chatEndWithoutAThreadEndsTheOneCreatedOrOpenedLast() async throws {
        let simulator = try await Simulator(["--cxone-multi-thread"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        var ids: [String] = []
        for text in ["Billing question", "Delivery question"] {
            let (status, output) = try await Self.chat(["create", "--json"], bus: bus)
            #expect(status == 0, "\(output)")
            let created = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
            ids.append(try #require(created["id"] as? String))
            await #expect(try Self.chat(["send", text], bus: bus).status == 0)
        }
        try await eventually("both threads at the gateway") { try await Self.gatewayThreads(simulator).count == 2 }
        func states() async throws -> [String: String] {
            await Dictionary(
                uniqueKeysWithValues: try Self.threads(bus: bus).compactMap { thread in
                    (thread["id"] as? String).map { ($0, thread["state"] as? String ?? "") }
                }
            )
        }

        // Two open threads: the one created last is ended.
        let ended = try await Self.chat(["end"], bus: bus)
        #expect(ended.status == 0, "\(ended.output)")
        await #expect(try states() == [ids[0]: "ready", ids[1]: "closed"])

        // The first, once opened, is the default.
        await #expect(try Self.chat(["open", ids[0]], bus: bus).status == 0)
        await #expect(try Self.chat(["end"], bus: bus).status == 0)
        await #expect(try states() == [ids[0]: "closed", ids[1]: "closed"])
        await Self.stop(daemon)
    }

    // MARK: Chats in the contact history

    @Test func aThreadTheAgentWritesInIsOneChatContactAlsoAcrossRestarts() async throws {
        let simulator = try await Simulator(["--cxone-multi-thread"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        var daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        func contacts() async throws -> [[String: Any]] {
            let (status, output) = try await TokenDaemonTests.ctl(["contacts", "--json"], bus: bus)
            guard status == 0 else { throw FixtureError("contacts failed (\(status)): \(output)") }
            return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
        }
        await #expect(try Self.chat(["send", "Is my order on its way?"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let gateway = try await #require(try Self.gatewayThreads(simulator).first)
        let threadID = try #require(gateway["id"] as? String).lowercased()
        let customer = try #require(gateway["customer"] as? String)
        // The person's own message is no contact.
        await #expect(try contacts().isEmpty)

        // The agent answers twice: one contact, the thread, from the agent.
        for text in ["Let%20me%20look", "It%20left%20today"] {
            _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=\(text)")
        }
        try await eventually("both agent messages") { daemon.stderr.components(separatedBy: "from-agent from Ada Lovelace").count - 1 == 2 }
        var list = try await contacts()
        #expect(list.count == 1, "\(list)")
        #expect(list.first?["id"] as? String == threadID)
        #expect(list.first?["kind"] as? String == "chat")
        #expect(list.first?["from"] as? String == "Ada Lovelace", "\(list)")
        #expect(list.first?["summary"] as? String == "Conversation with Ada Lovelace", "\(list)")
        #expect(daemon.stderr.contains("incoming chat from Ada Lovelace"), "\(daemon.stderr)")
        await Self.stop(daemon)

        // After a restart the agent writes again (and once while the daemon was stopped): still one.
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Meanwhile")
        daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["open", threadID], bus: bus).status == 0)
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Anything%20else%3F")
        try await eventually("the new agent message") {
            let thread = try await Self.threads(bus: bus).first { $0["id"] as? String == threadID }
            return Self.texts(thread).contains("Anything else?")
        }
        await #expect(try contacts().count == 1)
        #expect(!daemon.stderr.contains("incoming chat from"), "\(daemon.stderr)")

        // An agent opening a conversation is a second contact; ending the first completes it.
        _ = try await simulator.control("POST", "/control/cxone/agent?customer=\(customer)&text=We%20have%20news")
        try await eventually("the agent's new conversation recorded") { try await contacts().count == 2 }
        await #expect(try Self.chat(["end", "--thread", threadID], bus: bus).status == 0)
        try await eventually("the first contact completed") {
            try await contacts().first { $0["id"] as? String == threadID }?["outcome"] as? String == "completed"
        }
        list = try await contacts()
        #expect(Set(list.compactMap { $0["kind"] as? String }) == ["chat"], "\(list)")
        await Self.stop(daemon)
    }
}

extension CXoneChatDesktopTests {
    @Test func aMessageWrittenWhileAsleepIsQueuedAndDeliveredOnceOnResumeAndAChatAlertsOnce() async throws {
        let simulator = try await CXoneChatDaemonTests.Simulator(["--cxone-auto-reply"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let config = try scratch.write("attendant.toml", CXoneChatDaemonTests.configuration(simulator))
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("ready: chat listening"), "\(daemon.stderr)")
        try #require(await daemon.waitForLog("notification server present"), "\(daemon.stderr)")
        func ctl(_ arguments: [String]) async throws -> (Int32, String) {
            try await run(TokenDaemonTests.attendantctl, arguments, environment: desktop.toolEnvironment)
        }
        func status() async throws -> [String: String] {
            let (_, output) = try await ctl(["chat", "status", "--json"])
            return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String] ?? [:]
        }
        func gatewayTexts() async throws -> [String] {
            await CXoneChatDaemonTests.gatewayTexts(try CXoneChatDaemonTests.gatewayThreads(simulator).first)
        }

        // The agent's answer alerts as a message (the chat contact it makes raises nothing more: below).
        await #expect(try ctl(["chat", "send", "Before sleep"]).0 == 0)
        try await eventually("the agent's message in dunst") { desktop.printed.contains { $0.summary == "New message from Ada Lovelace" } }

        // Asleep: the message is queued, not refused.
        try await desktop.prepareForSleep(true)
        try await eventually("the socket closed for sleep") {
            try await simulator.controlJSON("GET", "/control/cxone/status")["connections"] as? Int == 0
        }
        await #expect(try status()["state"] == "prepared")
        let (sent, output) = try await ctl(["chat", "send", "Written while asleep"])
        #expect(sent == 0, "\(output)")
        #expect(output.contains("Queued on chat: the desktop is asleep; it is sent when the chat connects again on resume."), "\(output)")
        await #expect(try status()["outbox"] == "1")
        await #expect(try gatewayTexts() == ["Before sleep", "You wrote: Before sleep"])

        // Resume: delivered once.
        try await desktop.prepareForSleep(false)
        try await eventually("the queued message at the gateway") { try await gatewayTexts().contains("Written while asleep") }
        try await eventually("the outbox empty") { try await status()["outbox"] == "0" }
        await #expect(try gatewayTexts().filter { $0 == "Written while asleep" }.count == 1)
        await #expect(try CXoneChatDaemonTests.receivedEvents(simulator).filter { $0 == "SendMessage" }.count == 2)
        try await eventually("the chat in the contact history") { try await ctl(["contacts"]).1.contains("Ada Lovelace") }
        #expect(!desktop.printed.contains { $0.summary.hasPrefix("New chat") }, "\(desktop.printed.map(\.summary))")
        await CXoneChatDaemonTests.stop(daemon)
    }
}
