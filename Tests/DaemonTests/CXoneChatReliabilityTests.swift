import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

// The CXone chat's reliability and bad-input branches through the real daemon (CXoneChatDaemonTests has
// the helpers), and the chat on the desktop.
extension CXoneChatDaemonTests {
    // MARK: Reliability

    @Test func missingPongsAndDroppedSocketsAreReconnectedAndTheThreadRecovered() async throws {
        let simulator = try await Simulator(["--cxone-auto-reply"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(
            simulator,
            scratch: scratch,
            bus: bus,
            extra: "heartbeat-interval = \"1s\"\npong-timeout = \"500ms\""
        )
        await #expect(try Self.chat(["send", "First"], bus: bus).status == 0)
        try await eventually("the reply") { await Self.texts(try Self.threads(bus: bus).first).count == 2 }
        let recoveries = try await Self.receivedEvents(simulator).filter { $0 == "RecoverThread" }.count

        // Heartbeats go unanswered: the connection is given up and opened again, with backoff.
        _ = try await simulator.control("POST", "/control/cxone/fault?kind=missing-pongs")
        #expect(await daemon.waitForLog("lost the connection to ws://127.0.0.1:"), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("/chat-gateway: no pong within 0.5 s; reconnecting (attempt 1)"), "\(daemon.stderr)")
        _ = try await simulator.control("POST", "/control/cxone/clear-faults")
        try await eventually("the thread recovered after the reconnect") {
            try await Self.receivedEvents(simulator).filter { $0 == "RecoverThread" }.count > recoveries
        }
        try await eventually("ready again") { try await Self.status(bus: bus)["state"] == "ready" }

        // The gateway drops the socket: the same.
        let before = try await Self.receivedEvents(simulator).filter { $0 == "RecoverThread" }.count
        _ = try await simulator.control("POST", "/control/cxone/drop")
        try await eventually("the thread recovered after the drop") {
            try await Self.receivedEvents(simulator).filter { $0 == "RecoverThread" }.count > before
        }
        try await eventually("ready after the drop") { try await Self.status(bus: bus)["state"] == "ready" }
        await #expect(try Self.chat(["send", "Second"], bus: bus).status == 0)
        try await eventually("the second reply") { await Self.texts(try Self.threads(bus: bus).first).count == 4 }
        await #expect(try TokenDaemonTests.channel("chat", bus: bus)["state"] as? String == "listening")
        await Self.stop(daemon)
    }

    @Test func aMessageSentWhileTheGatewayIsDownSurvivesAKillAndReachesTheAgentExactlyOnce() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        var daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "Before the outage"], bus: bus).status == 0)
        try await eventually("the first message at the gateway") { await Self.gatewayTexts(try Self.gatewayThreads(simulator).first).count == 1 }

        // The gateway goes down; the message waits in the outbox (in the state database).
        _ = try await simulator.control("POST", "/control/cxone/fault?kind=down")
        try await eventually("the chat reconnecting") { try await Self.status(bus: bus)["state"] == "connecting" }
        let sent = try await Self.chat(["send", "Written during the outage"], bus: bus)
        #expect(sent.status == 0, "\(sent.output)")
        await #expect(try Self.status(bus: bus)["outbox"] == "1")

        // The daemon is killed, started again while the gateway is still down, then the gateway returns.
        daemon.signal(SIGKILL)
        _ = await daemon.waitForExit()
        daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        #expect(await daemon.waitForLog("1 message(s) wait in the outbox from before"), "\(daemon.stderr)")
        _ = try await simulator.control("POST", "/control/cxone/clear-faults")
        try await Self.waitForListening(bus, daemon)
        try await eventually("the outbox delivered") { await Self.gatewayTexts(try Self.gatewayThreads(simulator).first).count == 2 }
        await #expect(Self.gatewayTexts(try Self.gatewayThreads(simulator).first) == ["Before the outage", "Written during the outage"])
        try await eventually("the outbox empty") { try await Self.status(bus: bus)["outbox"] == "0" }

        // Another restart sends nothing again.
        await Self.stop(daemon)
        daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(Self.gatewayTexts(try Self.gatewayThreads(simulator).first) == ["Before the outage", "Written during the outage"])
        await #expect(try Self.receivedEvents(simulator).filter { $0 == "SendMessage" }.count == 2)
        await Self.stop(daemon)
    }

    /// Multi-thread: a conversation the agent opens while the gateway is down is met after the reconnect
    /// (the thread list fetched again, as the SDK does), recorded as a contact and its message alerted.
    /// Benchmarks/fault_campaign.py found it never met: the reconnect recovered only the open threads.
    @Test func aConversationTheAgentOpensWhileTheGatewayIsDownIsMetAfterTheReconnect() async throws {
        let simulator = try await Simulator(["--cxone-multi-thread"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "Hello"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let customer = try #require(try await Self.gatewayThreads(simulator).first?["customer"] as? String)

        _ = try await simulator.control("POST", "/control/cxone/fault?kind=down")
        try await eventually("the chat reconnecting") { try await Self.status(bus: bus)["state"] == "connecting" }
        let opened = try await simulator.controlJSON("POST", "/control/cxone/agent?customer=\(customer)&text=News%20while%20you%20were%20away")
        let threadID = try #require(opened["thread_id"] as? String).lowercased()
        _ = try await simulator.control("POST", "/control/cxone/clear-faults")

        try await eventually("the new conversation's message") { daemon.stderr.contains("in thread \(threadID), from-agent") }
        try await eventually("the new conversation in the contact history") {
            let (status, output) = try await TokenDaemonTests.ctl(["contacts", "--json"], bus: bus)
            return status == 0 && output.lowercased().contains(threadID)
        }
        let threads = try await Self.threads(bus: bus).compactMap { ($0["id"] as? String)?.lowercased() }
        #expect(threads.contains(threadID), "\(threads)")
        await Self.stop(daemon)
    }

    // MARK: Errors from the server

    @Test func operationAndServerErrorsReachTheUserAsTypedErrors() async throws {
        let simulator = try await Simulator(["--cxone-multi-thread"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "Hello"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let threadID = try await #require(try Self.gatewayThreads(simulator).first?["id"] as? String)

        // An operation error ({error: {errorCode, errorMessage}}) answering EndContact.
        _ = try await simulator.control("POST", "/control/cxone/fault?kind=operation-error&event=EndContact&code=ContactNotFound")
        let (status, output) = try await TokenDaemonTests.ctl(["chat", "end", "--json"], bus: bus)
        #expect(status == 1, "\(output)")
        #expect(output.contains("ServerError"), "\(output)")
        #expect(output.contains("the chat server refused an operation (ContactNotFound)"), "\(output)")

        // A server error ({message, requestId}) answering RecoverThread, when the user opens the thread.
        _ = try await simulator.control("POST", "/control/cxone/clear-faults")
        _ = try await simulator.control("POST", "/control/cxone/fault?kind=server-error&event=RecoverThread")
        let opened = try await Self.chat(["open", threadID], bus: bus)
        #expect(opened.status == 1, "\(opened.output)")
        #expect(opened.output.contains("the chat server failed: "), "\(opened.output)")
        _ = try await simulator.control("POST", "/control/cxone/clear-faults")
        await #expect(try Self.chat(["open", threadID], bus: bus).status == 0)
        await #expect(try Self.chat(["end"], bus: bus).status == 0)
        await #expect(try TokenDaemonTests.channel("chat", bus: bus)["state"] as? String == "listening")

        // `chat status` shows the last error until a new chat starts: it belongs to the chat that failed.
        await #expect(try Self.status(bus: bus)["last-error"]?.hasPrefix("the chat server failed: ") == true)
        let created = try await Self.chat(["create"], bus: bus)
        #expect(created.status == 0, "\(created.output)")
        let fields = try await Self.status(bus: bus)
        #expect(fields["last-error"] == nil, "\(fields)")
        await Self.stop(daemon)
    }

    // MARK: Bad input

    @Test func malformedUnknownAndOversizedFramesAndAFailingEventInS3AreNamedAndTheChatGoesOn() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "Hello"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let threadID = try await #require(try Self.gatewayThreads(simulator).first?["id"] as? String)

        func push(_ body: String) async throws {
            let file = try scratch.write("frame", body)
            let (status, output) = try await run(
                "/usr/bin/curl",
                ["-s", "--max-time", "20", "-X", "POST", "--data-binary", "@\(file)", "http://127.0.0.1:\(simulator.httpPort)/control/cxone/push"]
            )
            #expect(status == 0, "\(output)")
        }
        try await push("{not json")
        try await push(#"{"eventId":"6f0a3c1e-0000-4000-8000-000000000001","eventType":"SomethingNew","data":{}}"#)
        try await push(#"{"eventId":"6f0a3c1e-0000-4000-8000-000000000002","eventType":"MessageCreated","data":{"brand":{"id":1386}}}"#)
        try await push("{\"eventId\":\"x\",\"eventType\":\"MessageCreated\",\"data\":\"" + String(repeating: "a", count: 1_200_000) + "\"}")
        #expect(await daemon.waitForLog("cxone-chat: ignored a frame from ws://127.0.0.1:"), "\(daemon.stderr)")
        try? await eventually("all four named") {
            daemon.stderr.contains("ignored an event of unknown type SomethingNew")
                && daemon.stderr.components(separatedBy: "cxone-chat: ignored a frame from").count - 1 == 3
        }
        let log = daemon.stderr
        #expect(log.contains("ignored an event of unknown type SomethingNew"), "\(log)")
        #expect(log.components(separatedBy: "cxone-chat: ignored a frame from").count - 1 == 3, "\(log)")
        #expect(log.contains("(9 bytes)") && log.contains("not-json"), "\(log)")
        #expect(log.contains("missing in MessageCreated"), "\(log)")
        #expect(log.contains("frame-too-large"), "\(log)")
        await #expect(try Self.status(bus: bus)["frames-rejected"] == "3")

        // A large agent message arrives as EventInS3; while the download fails it is named, then one works.
        _ = try await simulator.control("POST", "/control/cxone/fault?kind=s3-failure")
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Big&size=200000")
        #expect(await daemon.waitForLog("could not download a large chat event from http://127.0.0.1:"), "\(daemon.stderr)")
        _ = try await simulator.control("POST", "/control/cxone/clear-faults")
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Bigger&size=150000")
        try await eventually("the large message in the thread") {
            await Self.texts(try Self.threads(bus: bus).first).contains { $0.hasPrefix("Bigger") && $0.utf8.count == 150_000 }
        }
        await #expect(try TokenDaemonTests.channel("chat", bus: bus)["state"] as? String == "listening")
        await #expect(try Self.status(bus: bus)["state"] == "ready")
        await Self.stop(daemon)
    }
}

/// The CXone chat with the real desktop parts: agent messages in dunst, suspend and resume from
/// python-dbusmock's logind (see DesktopSession).
@Suite(.serialized, .timeLimit(.minutes(3))) struct CXoneChatDesktopTests {
    @Test func agentMessagesAlertInDunstAndSleepDisconnectsUntilResume() async throws {
        let simulator = try await CXoneChatDaemonTests.Simulator(["--cxone-auto-reply"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let config = try scratch.write(
            "attendant.toml",
            CXoneChatDaemonTests.configuration(simulator) + "\n[session]\nbackground-on = [\"sleep\", \"lock\"]\n"
        )
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("ready: chat listening"), "\(daemon.stderr)")
        try #require(await daemon.waitForLog("notification server present"), "\(daemon.stderr)")
        func chat(_ arguments: [String]) async throws -> (Int32, String) {
            try await run(TokenDaemonTests.attendantctl, ["chat"] + arguments, environment: desktop.toolEnvironment)
        }
        func channelState() async throws -> String? {
            let (_, output) = try await run(TokenDaemonTests.attendantctl, ["channels", "--json"], environment: desktop.toolEnvironment)
            let channels = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
            return channels.first { $0["name"] as? String == "chat" }?["state"] as? String
        }
        /// In the background the chat is disconnected: `background`, neither listening nor a problem.
        func expectBackground() async throws {
            try await eventually("the channel in the background") { try await channelState() == "background" }
            let (status, line) = try await run(TokenDaemonTests.attendantctl, ["health"], environment: desktop.toolEnvironment)
            #expect(status == 0, "\(line)")
            #expect(line.hasPrefix("ATTENDANT OK - 0 channels listening, 1 background |"), "\(line)")
            #expect(line.contains(" listening=0;"), "\(line)")
        }
        func status() async throws -> [String: String] {
            let (_, output) = try await chat(["status", "--json"])
            return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String] ?? [:]
        }

        // The agent's answer is a notification: "New message from Ada Lovelace", the transcript line as body.
        await #expect(try chat(["view", "Orders", "https://shop.example/orders"]).0 == 0)
        await #expect(try chat(["send", "Where is my <b>parcel</b>?"]).0 == 0)
        try await eventually("the agent's message in dunst") { desktop.printed.contains { $0.summary == "New message from Ada Lovelace" } }
        let shown = try #require(desktop.printed.first { $0.summary == "New message from Ada Lovelace" })
        // The remote text shows literally (dunst draws Pango's parse of the escaped body).
        let text = try await desktop.shownText(shown.formatted)
        #expect(text.contains("Ada Lovelace: You wrote: Where is my <b>parcel</b>?"), "dunst draws: \(text)")
        #expect(!text.contains("Grace"), "the customer's own message is not an alert: \(text)")

        // Suspend: the page view ends and the socket closes; the delay lock is released.
        let recoveries = try await CXoneChatDaemonTests.receivedEvents(simulator).filter { $0 == "RecoverThread" }.count
        try await desktop.prepareForSleep(true)
        try await eventually("the socket closed for sleep") {
            try await simulator.controlJSON("GET", "/control/cxone/status")["connections"] as? Int == 0
        }
        try await eventually("the page view ended") {
            await (try simulator.controlJSON("GET", "/control/cxone/status")["analytics_types"] as? [String] ?? []).contains("TimeSpentOnPage")
        }
        await #expect(try status()["state"] == "prepared")
        try await eventually("the delay lock released") { try await desktop.inhibitors().isEmpty }
        // Background is not a loss, but the chat does not listen: the channel says `background`.
        try await expectBackground()

        // Resume: connected again at once, the thread recovered.
        try await desktop.prepareForSleep(false)
        try await eventually("ready after resume") { try await status()["state"] == "ready" }
        await #expect(try CXoneChatDaemonTests.receivedEvents(simulator).filter { $0 == "RecoverThread" }.count == recoveries + 1)
        await #expect(try simulator.controlJSON("GET", "/control/cxone/status")["connections"] as? Int == 1)
        try await eventually("listening after resume") { try await channelState() == "listening" }

        // Locked, with `background-on` naming the lock: the same until unlocked.
        try await desktop.lock()
        try await eventually("the socket closed for the lock") {
            try await simulator.controlJSON("GET", "/control/cxone/status")["connections"] as? Int == 0
        }
        try await expectBackground()
        try await desktop.unlock()
        try await eventually("ready after unlock") { try await status()["state"] == "ready" }
        try await eventually("listening after unlock") { try await channelState() == "listening" }
        await CXoneChatDaemonTests.stop(daemon)
    }
}
