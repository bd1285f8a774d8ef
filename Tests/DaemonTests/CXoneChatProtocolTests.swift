import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

// The CXone chat's protocol details through the real daemon, plugin and simulator (CXoneChatDaemonTests
// has the helpers): agent messages alerted exactly once whatever the resolution of the server's clock, the
// server's refusals classed by what it said.
extension CXoneChatDaemonTests {
    /// How many agent messages the daemon reported (each `message-received` is logged once, without text).
    static func agentMessagesReported(_ daemon: DaemonProcess) -> Int {
        daemon.stderr.components(separatedBy: "from-agent from Ada Lovelace").count - 1
    }

    @Test func agentMessagesInTheSameSecondAsTheLastShownAreReportedOnceAfterARestart() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        var daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "Is my order on its way?"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let threadID = try await #require(try Self.gatewayThreads(simulator).first?["id"] as? String)
        // CXone's createdAt has whole seconds: every agent message here carries the same one.
        let second = Int(Date().timeIntervalSince1970) + 1
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Let%20me%20look&at=\(second)")
        try await eventually("the first agent message") { Self.agentMessagesReported(daemon) == 1 }
        await Self.stop(daemon)

        // The agent writes twice in the same second while the daemon is stopped.
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=It%20left%20today&at=\(second)")
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Anything%20else%3F&at=\(second)")
        daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(Self.texts(try Self.threads(bus: bus).first) == ["Is my order on its way?", "Let me look", "It left today", "Anything else?"])
        try? await eventually("both missed messages reported") { Self.agentMessagesReported(daemon) == 2 }
        #expect(Self.agentMessagesReported(daemon) == 2, "\(daemon.stderr)")
        await Self.stop(daemon)

        // A third start: nothing new.
        daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(Self.texts(try Self.threads(bus: bus).first).count == 4)
        #expect(Self.agentMessagesReported(daemon) == 0, "\(daemon.stderr)")
        await Self.stop(daemon)
    }

    // MARK: Refusals classed by what the server said

    @Test func aRefusedAuthorizationWithoutOAuthIsRetriedWithTheServersReasonShown() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        _ = try await simulator.control("POST", "/control/cxone/fault?kind=operation-error&event=AuthorizeCustomer&code=ConsumerAuthorizationFailed")
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        let refused = try await TokenDaemonTests.channel("chat", bus: bus) { ($0["detail"] as? String ?? "").contains("ConsumerAuthorizationFailed") }
        let detail = refused["detail"] as? String ?? ""
        #expect(refused["state"] as? String == "recovering", "\(refused)\n\(daemon.stderr)")
        #expect(detail.contains("the chat server refused an operation (ConsumerAuthorizationFailed): injected fault"), "\(refused)")
        #expect(!detail.contains("sign-in needed") && !daemon.stderr.contains("no token source configured"), "\(daemon.stderr)")
        let health = try await TokenDaemonTests.ctl(["health"], bus: bus)
        #expect(health.status == 1, "\(health)")
        #expect(health.output.contains("chat recovering: ") && health.output.contains("ConsumerAuthorizationFailed"), "\(health)")

        // It is tried again with backoff, and listens once the server accepts the customer.
        _ = try await simulator.control("POST", "/control/cxone/clear-faults")
        try await Self.waitForListening(bus, daemon)
        await #expect(try Self.receivedEvents(simulator).filter { $0 == "AuthorizeCustomer" }.count >= 2)
        await Self.stop(daemon)
    }

    @Test func anUnsupportedSDKVersionFailsTheChannelForGoodWithTheServersWords() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        _ = try await simulator.control("POST", "/control/cxone/fault?kind=rest-error&endpoint=configuration&code=SdkVersionNotSupported&status=400")
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        let failed = try await TokenDaemonTests.channel("chat", bus: bus) { $0["state"] as? String == "failed" }
        #expect(failed["state"] as? String == "failed", "\(failed)\n\(daemon.stderr)")
        let detail = failed["detail"] as? String ?? ""
        #expect(detail.contains("SdkVersionNotSupported") && detail.contains("does not accept this client's SDK version"), "\(failed)")
        let health = try await TokenDaemonTests.ctl(["health"], bus: bus)
        #expect(health.status == 2, "\(health)")
        #expect(health.output.hasPrefix("ATTENDANT CRITICAL - chat failed: ") && health.output.contains("SdkVersionNotSupported"), "\(health)")
        await Self.stop(daemon)
    }

    // MARK: An offline live chat's retries

    @Test func anOfflineLiveChatSendsItsVisitorAndPageViewOnceWhileItIsRetried() async throws {
        let simulator = try await Simulator(["--cxone-live-chat", "--cxone-offline"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.daemon(
            simulator,
            scratch: scratch,
            bus: bus,
            extra: "page-title = \"Desk\"\npage-url = \"https://shop.example/desk\""
        )
        func status() async throws -> [String: Any] { try await simulator.controlJSON("GET", "/control/cxone/status") }
        // Three tries at least: availability asked each time.
        try await eventually("three tries of the offline live chat", within: 40) { try await status()["availability_requests"] as? Int ?? 0 >= 3 }
        let offline = try await status()
        #expect(offline["visitor_writes"] as? Int == 1, "\(offline)\n\(daemon.stderr)")
        #expect(offline["analytics_types"] as? [String] == ["VisitorVisit", "PageView"], "\(offline)")

        // An agent comes online: the next try connects; still one visitor and one page view.
        _ = try await simulator.control("POST", "/control/cxone/availability?online=1")
        try await Self.waitForListening(bus, daemon)
        await #expect(try status()["visitor_writes"] as? Int == 1)
        await #expect(try status()["analytics_types"] as? [String] == ["VisitorVisit", "PageView"])
        await Self.stop(daemon)
    }

    // MARK: Pre-signed URLs

    /// POSTs `body` to the simulator's control `path`; the JSON answer.
    static func post(_ simulator: Simulator, _ path: String, _ body: String, scratch: Scratch) async throws -> [String: Any] {
        let file = try scratch.write("body-\(UUID().uuidString)", body)
        let (status, output) = try await run(
            "/usr/bin/curl",
            ["-s", "--max-time", "20", "-X", "POST", "--data-binary", "@\(file)", "http://127.0.0.1:\(simulator.httpPort)\(path)"]
        )
        guard status == 0 else { throw FixtureError("curl \(path) failed (\(status)): \(output)") }
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
    }

    @Test func aPreSignedEventInS3URLNeverReachesTheLogTheBusOrTheDatabase() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "Hello"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let signature = "X-Amz-Signature=5e1c0ffee0ddba11"
        let query = "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE%2F20261124&X-Amz-Expires=300&\(signature)"
        func notice(_ url: String, _ type: String) -> String {
            #"{"eventId":"\#(UUID().uuidString)","eventType":"EventInS3","createdAt":"2026-11-24T22:00:00Z","data":{"s3Object":{"url":"\#(url)"},"originEvent":{"eventType":"\#(type)"}}}"#
        }
        // A large event of a type the channel does not use: downloaded, then ignored (not a failure).
        let parked = try await Self.post(
            simulator,
            "/control/cxone/s3",
            #"{"eventId":"6f0a3c1e-0000-4000-8000-00000000000a","eventType":"SomethingNew","data":{}}"#,
            scratch: scratch
        )
        let url = try #require(parked["url"] as? String)
        _ = try await Self.post(simulator, "/control/cxone/push", notice(url + query, "SomethingNew"), scratch: scratch)
        // A large event whose download fails: a warning naming the URL without its query.
        _ = try await Self.post(
            simulator,
            "/control/cxone/push",
            notice("http://127.0.0.1:\(simulator.httpPort)/s3/missing" + query, "MessageCreated"),
            scratch: scratch
        )
        #expect(
            await daemon.waitForLog("could not download a large chat event from http://127.0.0.1:\(simulator.httpPort)/s3/missing?…: "),
            "\(daemon.stderr)"
        )
        #expect(!daemon.stderr.contains("its SomethingNew event is not used"), "\(daemon.stderr)")
        #expect(!daemon.stderr.contains("from \(url)"), "the ignored event is not a warning: \(daemon.stderr)")
        await #expect(try Self.status(bus: bus)["state"] == "ready")

        // No log line, D-Bus reply or database row holds the query.
        let replies = await [
            try Self.chat(["status", "--json"], bus: bus).output,
            try Self.chat(["threads", "--json"], bus: bus).output,
            try TokenDaemonTests.ctl(["channels", "--json"], bus: bus).output,
            try TokenDaemonTests.ctl(["health"], bus: bus).output,
        ]
        await Self.stop(daemon)
        var outputs = replies + [daemon.stderr]
        for name in ["state.sqlite", "state.sqlite-wal"] {
            if let data = FileManager.default.contents(atPath: scratch.path + "/state/attendant/" + name) {
                outputs.append(String(decoding: data, as: UTF8.self))
            }
        }
        for output in outputs {
            #expect(!output.contains("X-Amz-"), "\(output)")
        }
    }

    // MARK: Internal markers

    @Test func aLiveChatHidesTheSDKsBeginConversationMarker() async throws {
        let simulator = try await Simulator(["--cxone-live-chat"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        var daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        // The mobile SDK opens a live chat thread with its marker text; then the customer writes.
        await #expect(try Self.chat(["send", "__Begin Live Chat Conversation__"], bus: bus).status == 0)
        try await eventually("the marker at the gateway") { await Self.gatewayTexts(try Self.gatewayThreads(simulator).first).count == 1 }
        await #expect(try Self.chat(["send", "Hello"], bus: bus).status == 0)
        try await eventually("both at the gateway") { await Self.gatewayTexts(try Self.gatewayThreads(simulator).first).count == 2 }
        try await eventually("the message in the thread") { await Self.texts(try Self.threads(bus: bus).first) == ["Hello"] }
        await #expect(Self.texts(try Self.threads(bus: bus).first) == ["Hello"])
        await Self.stop(daemon)

        // Recovered after a restart, and opened: still only the customer's message.
        daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        let thread = try await #require(try Self.threads(bus: bus).first)
        #expect(Self.texts(thread) == ["Hello"], "\(thread)")
        let threadID = try #require(thread["id"] as? String)
        let (status, output) = try await Self.chat(["open", threadID, "--json"], bus: bus)
        #expect(status == 0, "\(output)")
        let opened = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
        #expect(Self.texts(opened) == ["Hello"], "\(opened)")
        await Self.stop(daemon)
    }

    // MARK: The agent's activity, the customer's typing and reads

    @Test func theAgentsTypingQueueAssigneeAndReadReceiptsShowAndTheCustomersTypingAndReadsGoOut() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "Hello"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let gateway = try await #require(try Self.gatewayThreads(simulator).first)
        let threadID = try #require(gateway["id"] as? String)
        let contactID = try #require(gateway["contact"] as? String)
        let messageID = try #require((gateway["messages"] as? [[String: Any]])?.first?["id"] as? String)
        func push(_ type: String, _ data: String) async throws {
            _ = try await Self.post(
                simulator,
                "/control/cxone/push",
                #"{"eventId":"\#(UUID().uuidString)","eventType":"\#(type)","createdAt":"2026-11-24T22:00:00.000Z","data":\#(data)}"#,
                scratch: scratch
            )
        }
        let agent = #"{"id":7,"firstName":"Grace","surname":"Kelly","nickname":null,"isBotUser":false,"isSurveyUser":false}"#
        let brandChannel = #""brand":{"id":1386},"channel":{"id":"chat_sim"}"#

        // Queued, then an agent is assigned (the queue position goes).
        try await push("SetPositionInQueue", #"{"consumerContact":{"id":"\#(contactID)"},"positionInQueue":3}"#)
        try await eventually("the queue position in chat status") { try await Self.status(bus: bus)["queue-position"] == "3" }
        await #expect(try Self.threads(bus: bus).first?["positionInQueue"] as? Int == 3)
        try await push(
            "CaseInboxAssigneeChanged",
            #"{\#(brandChannel),"case":{"id":"\#(contactID)","threadIdOnExternalPlatform":"\#(threadID)","status":"open"},"inboxAssignee":\#(agent),"previousInboxAssignee":null}"#
        )
        try await eventually("the assigned agent in chat status") { try await Self.status(bus: bus)["agent"] == "Grace Kelly" }
        await #expect(try Self.status(bus: bus)["queue-position"] == nil)
        let assigned = try await #require(try Self.threads(bus: bus).first)
        #expect(assigned["assignedAgent"] as? String == "Grace Kelly" && assigned["positionInQueue"] == nil, "\(assigned)")

        // The agent types: a typing-started event, shown in chat status, then typing-stopped.
        try await push("SenderTypingStarted", #"{\#(brandChannel),"thread":{"idOnExternalPlatform":"\#(threadID)"},"user":\#(agent)}"#)
        #expect(await daemon.waitForLog("chat typing-started "), "\(daemon.stderr)")
        await #expect(try Self.status(bus: bus)["agent-typing"] == "Grace Kelly")
        try await push("SenderTypingEnded", #"{\#(brandChannel),"thread":{"idOnExternalPlatform":"\#(threadID)"},"user":\#(agent)}"#)
        #expect(await daemon.waitForLog("chat typing-stopped "), "\(daemon.stderr)")
        await #expect(try Self.status(bus: bus)["agent-typing"] == nil)

        // The agent read the customer's message.
        let read =
            #"{"idOnExternalPlatform":"\#(messageID)","threadIdOnExternalPlatform":"\#(threadID)","messageContent":{"type":"TEXT","payload":{"text":"Hello"}},"createdAt":"2026-11-24T21:59:00.000Z","attachments":[],"direction":"inbound","userStatistics":{"seenAt":"2026-11-24T22:00:00.000Z","readAt":"2026-11-24T22:00:00.000Z"}}"#
        try await push("MessageReadChanged", #"{"brand":{"id":1386},"message":\#(read)}"#)
        try await eventually("the read receipt in chat status") { try await Self.status(bus: bus)["read-by-agent-through"] == messageID.lowercased() }
        let readMessage = try await #require((try Self.threads(bus: bus).first?["lastMessages"] as? [[String: Any]])?.first)
        #expect(readMessage["readByAgentAt"] as? Int == 1_795_557_600, "\(readMessage)")
        #expect(!daemon.stderr.contains("ignored an event of unknown type"), "\(daemon.stderr)")

        // The customer types, and reads the thread by opening it.
        let started = try await Self.chat(["typing", "started"], bus: bus)
        #expect(started.status == 0, "\(started.output)")
        let stopped = try await Self.chat(["typing", "stopped", "--thread", threadID], bus: bus)
        #expect(stopped.status == 0, "\(stopped.output)")
        let opened = try await Self.chat(["open", threadID], bus: bus)
        #expect(opened.status == 0, "\(opened.output)")
        #expect(opened.output.contains(": ready, agent Grace Kelly"), "\(opened.output)")
        try await eventually("typing and seen at the gateway") { try await Self.receivedEvents(simulator).contains("MessageSeenByCustomer") }
        let events = try await Self.receivedEvents(simulator)
        #expect(
            events.filter { ["SenderTypingStarted", "SenderTypingEnded", "MessageSeenByCustomer"].contains($0) } == [
                "SenderTypingStarted", "SenderTypingEnded", "MessageSeenByCustomer",
            ],
            "\(events)"
        )
        await Self.stop(daemon)
    }
}

extension CXoneChatDesktopTests {
    @Test func agentMessagesWrittenDuringSleepInTheSameSecondAreAlertedOnceOnResume() async throws {
        let simulator = try await CXoneChatDaemonTests.Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let config = try scratch.write("attendant.toml", CXoneChatDaemonTests.configuration(simulator))
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("ready: chat listening"), "\(daemon.stderr)")
        try #require(await daemon.waitForLog("notification server present"), "\(daemon.stderr)")
        func chat(_ arguments: [String]) async throws -> (Int32, String) {
            try await run(TokenDaemonTests.attendantctl, ["chat"] + arguments, environment: desktop.toolEnvironment)
        }
        func state() async throws -> String? {
            let (_, output) = try await chat(["status", "--json"])
            return (try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String])?["state"]
        }
        func alerted(_ text: String) -> Bool { desktop.printed.contains { $0.body.contains(text) } }

        await #expect(try chat(["send", "Where is my parcel?"]).0 == 0)
        try await eventually("the thread at the gateway") { try await CXoneChatDaemonTests.gatewayThreads(simulator).count == 1 }
        let threadID = try await #require(try CXoneChatDaemonTests.gatewayThreads(simulator).first?["id"] as? String)
        let second = Int(Date().timeIntervalSince1970) + 1
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Looking%20now&at=\(second)")
        try await eventually("the agent's message in dunst") { alerted("Looking now") }

        for cycle in 1...3 {
            try await desktop.prepareForSleep(true)
            try await eventually("the socket closed for sleep \(cycle)") {
                try await simulator.controlJSON("GET", "/control/cxone/status")["connections"] as? Int == 0
            }
            _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Asleep%20\(cycle)&at=\(second)")
            try await desktop.prepareForSleep(false)
            try await eventually("ready after resume \(cycle)") { try await state() == "ready" }
            try? await eventually("the message written during sleep \(cycle) in dunst") { alerted("Asleep \(cycle)") }
            #expect(alerted("Asleep \(cycle)"), "cycle \(cycle): \(desktop.printed.map(\.body))\n\(daemon.stderr)")
        }
        #expect(CXoneChatDaemonTests.agentMessagesReported(daemon) == 4, "\(daemon.stderr)")
        await CXoneChatDaemonTests.stop(daemon)
    }
}
