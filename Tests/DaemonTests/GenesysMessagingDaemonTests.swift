import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// The genesys-messaging plugin through the real `attendantd` against the real `attendant-sim` web
/// messaging service (its own codec, written from the SDK), with the real desktop: dunst shows what
/// alerts, python-dbusmock's logind sends the machine to sleep, and the daemon's `ChannelEvent` signals show
/// what the channel reported.
@Suite(.serialized, .timeLimit(.minutes(3))) struct GenesysMessagingDaemonTests {
    typealias Simulator = SimulatorDaemonTests.Simulator

    /// A genesys-messaging channel named "chat" on the simulator's custom endpoint.
    static func configuration(_ simulator: Simulator) -> String {
        """
        [[channel]]
        name = "chat"
        plugin = "genesys-messaging"

        [channel.genesys-messaging]
        deployment-id = "\(simulator.announcement["genesys_deployment"] as? String ?? "")"
        endpoint = "\(simulator.announcement["genesys_endpoint"] as? String ?? "")"
        """
    }

    static func daemon(_ simulator: Simulator, desktop: DesktopSession, scratch: Scratch) async throws -> DaemonProcess {
        let config = try scratch.write("attendant.toml", Self.configuration(simulator))
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("ready: chat listening"), "\(daemon.stderr)")
        return daemon
    }

    /// The daemon's `message-received` signals for channel "chat": (id, text, direction).
    static func messages(_ desktop: DesktopSession) -> [(id: String, text: String, direction: String)] {
        desktop.sessionBus.signals("ChannelEvent").compactMap { signal in
            guard signal.arguments.count == 3, signal.arguments[0].string == "chat", signal.arguments[1].string == "message-received" else {
                return nil
            }
            let details = signal.arguments[2]
            return (details["ID"]?["data"]?.string ?? "", details["Text"]?["data"]?.string ?? "", details["Direction"]?["data"]?.string ?? "")
        }
    }

    static func agentTexts(_ desktop: DesktopSession) -> [String] {
        self.messages(desktop).filter { $0.direction == "from-agent" }.map(\.text)
    }

    /// The agent writes `text`, and it arrives as a message-received event.
    static func agentSays(_ text: String, _ simulator: Simulator, _ desktop: DesktopSession) async throws {
        _ = try await simulator.control("POST", "/control/genesys/agent?text=\(CXoneChatDaemonTests.escaped(text))")
        try await eventually("the agent's \"\(text)\"") { Self.agentTexts(desktop).contains(text) }
    }

    static func ctl(_ arguments: [String], _ desktop: DesktopSession) async throws -> (status: Int32, output: String) {
        try await run(TokenDaemonTests.attendantctl, arguments, environment: desktop.toolEnvironment)
    }

    static func chatStatus(_ desktop: DesktopSession) async throws -> [String: String] {
        let (_, output) = try await Self.ctl(["chat", "status", "--json"], desktop)
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String] ?? [:]
    }

    /// The simulator's conversation, oldest first, as the history API would page it.
    static func conversation(_ simulator: Simulator) async throws -> [[String: Any]] {
        try await simulator.controlJSON("GET", "/control/genesys/messages")["messages"] as? [[String: Any]] ?? []
    }

    static func status(_ simulator: Simulator) async throws -> [String: Any] {
        try await simulator.controlJSON("GET", "/control/genesys/status")
    }

    // MARK: Messages both ways

    /// An agent's message is one message-received event and an alert in dunst; our reply reaches the
    /// agent; a quick reply is answered by its label with the SDK's ButtonResponse; our typing goes out.
    @Test func anAgentMessageAlertsOnceOurReplyAndAQuickReplyReachTheAgent() async throws {
        let simulator = try await Simulator([])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.daemon(simulator, desktop: desktop, scratch: scratch)

        try await Self.agentSays("Hello, this is Sam. How can I help?", simulator, desktop)
        try await eventually("the alert in dunst") { desktop.printed.contains { $0.body.contains("Hello, this is Sam. How can I help?") } }
        // A later message has arrived, so the first would have come twice by now if it were to.
        try await Self.agentSays("Are you there?", simulator, desktop)
        #expect(Self.agentTexts(desktop) == ["Hello, this is Sam. How can I help?", "Are you there?"])

        let (sent, sendOutput) = try await Self.ctl(["chat", "send", "Yes, my order is late"], desktop)
        #expect(sent == 0, "\(sendOutput)\n\(daemon.stderr.suffix(2000))")
        // The send returns once the service's copy came back: the agent has it.
        let ours = try await Self.conversation(simulator).filter { $0["direction"] as? String == "Inbound" }.compactMap { $0["text"] as? String }
        #expect(ours == ["Yes, my order is late"])

        _ = try await simulator.control("POST", "/control/genesys/quick-replies?text=Shall%20I%20refund%20it%3F&options=Refund=refund,Resend=resend")
        try await eventually("the quick replies") { Self.agentTexts(desktop).contains("Shall I refund it?") }
        let offer = try #require(Self.messages(desktop).last { $0.text == "Shall I refund it?" })
        let (chose, chooseOutput) = try await Self.ctl(["chat", "choose", offer.id, "Resend"], desktop)
        #expect(chose == 0, "\(chooseOutput)")
        let chosen = try await Self.status(simulator)["button_responses"] as? [[String: Any]] ?? []
        #expect(chosen.count == 1, "\(chosen)")
        #expect(chosen.first?["payload"] as? String == "resend" && chosen.first?["type"] as? String == "QuickReply")
        #expect(chosen.first?["originatingMessageId"] as? String == offer.id)
        let (unknown, unknownOutput) = try await Self.ctl(["chat", "choose", offer.id, "Cancel"], desktop)
        #expect(unknown != 0 && unknownOutput.contains("has no choice Cancel"), "\(unknownOutput)")

        func onMessages() async throws -> Int { (try await Self.status(simulator)["received"] as? [String] ?? []).filter { $0 == "onMessage" }.count }
        let before = try await onMessages()
        #expect(try await Self.ctl(["chat", "typing"], desktop).status == 0)
        try await eventually("our typing at the service") { try await onMessages() == before + 1 }
        #expect(!daemon.stderr.contains("my order is late"), "message text stays out of the log")
        await CXoneChatDaemonTests.stop(daemon)
    }

    // MARK: Read-only and a new chat

    /// ConversationDisconnect with readOnly: the thread closes, a send is refused saying why and what to
    /// do, and `chat create` starts a new chat (closeSession, then configureSession with startNew) in
    /// which sending works again.
    @Test func aDisconnectedConversationRefusesSendsUntilANewChat() async throws {
        let simulator = try await Simulator([])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.daemon(simulator, desktop: desktop, scratch: scratch)
        try await Self.agentSays("Anything else?", simulator, desktop)
        let firstThread = try #require(try await Self.chatStatus(desktop)["thread"])

        _ = try await simulator.control("POST", "/control/genesys/disconnect")
        try await eventually("read-only") { try await Self.chatStatus(desktop)["read-only"] == "yes" }
        let (refused, refusal) = try await Self.ctl(["chat", "send", "Wait, one more thing"], desktop)
        #expect(refused == 1, "\(refusal)")
        #expect(refusal.contains("read-only") && refusal.contains("chat create"), "\(refusal)")
        #expect(try await Self.conversation(simulator).allSatisfy { $0["text"] as? String != "Wait, one more thing" })

        let (created, thread) = try await Self.ctl(["chat", "create", "--json"], desktop)
        #expect(created == 0, "\(thread)\n\(daemon.stderr.suffix(2000))")
        let newThread = try #require(try await Self.chatStatus(desktop)["thread"])
        #expect(newThread != firstThread && thread.contains(newThread), "\(thread)")
        let (sent, output) = try await Self.ctl(["chat", "send", "Wait, one more thing"], desktop)
        #expect(sent == 0, "\(output)")
        let session = try #require((try await Self.status(simulator)["sessions"] as? [[String: Any]])?.last)
        #expect(session["conversations"] as? Int == 2 && session["read_only"] as? Bool == false, "\(session)")
        #expect(try await Self.conversation(simulator).contains { $0["text"] as? String == "Wait, one more thing" })
        let actions = try await Self.status(simulator)["received"] as? [String] ?? []
        #expect(actions.contains("closeSession"), "\(actions)")
        await CXoneChatDaemonTests.stop(daemon)
    }

    // MARK: The session's expiry

    /// The service says the session expires in 302 s (SessionResponse's `expirationDate`, learnt when the
    /// socket is configured again): 300 s before it, the desktop shows that the session is about to
    /// expire, once (the SDK's SessionExpirationNotice).
    @Test func aSessionAboutToExpireIsAnAlert() async throws {
        let simulator = try await Simulator([])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.daemon(simulator, desktop: desktop, scratch: scratch)
        try await Self.agentSays("Hello", simulator, desktop)
        _ = try await simulator.control("POST", "/control/genesys/expiry?in=302")
        _ = try await simulator.control("POST", "/control/genesys/drop")
        try await eventually("the expiry notice") { Self.messages(desktop).contains { $0.text.contains("expires in 5 minutes") } }
        try await eventually("the notice in dunst") { desktop.printed.contains { $0.body.contains("expires in 5 minutes") } }
        // A later message has come, so a second notice would have come by now.
        try await Self.agentSays("Are you there?", simulator, desktop)
        #expect(Self.messages(desktop).filter { $0.text.contains("expires in") }.count == 1)
        await CXoneChatDaemonTests.stop(daemon)
    }

    // MARK: Resilience

    /// Sockets dropped, then the service down (upgrades refused) while the agent writes: the channel
    /// reconnects with backoff, configures the same session, and every message arrives once, in order,
    /// from the socket or the history.
    @Test func aDroppedSocketOrAServiceDownLosesAndDoublesNothing() async throws {
        let simulator = try await Simulator([])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.daemon(simulator, desktop: desktop, scratch: scratch)
        try await Self.agentSays("Hello", simulator, desktop)
        var expected = ["Hello"]
        for round in 1...2 {
            _ = try await simulator.control("POST", "/control/genesys/drop")
            for index in 1...3 {
                let text = "Drop \(round) message \(index)"
                expected.append(text)
                _ = try await simulator.control("POST", "/control/genesys/agent?text=\(CXoneChatDaemonTests.escaped(text))")
            }
            try await eventually("round \(round)") { Self.agentTexts(desktop).contains("Drop \(round) message 3") }
        }
        _ = try await simulator.control("POST", "/control/genesys/fault?kind=down")
        try await eventually("the socket gone") { try await Self.status(simulator)["connections"] as? Int == 0 }
        _ = try await simulator.control("POST", "/control/genesys/agent?text=While%20down")
        expected.append("While down")
        _ = try await simulator.control("POST", "/control/genesys/clear-faults")
        try await Self.agentSays("Back up", simulator, desktop)
        expected.append("Back up")
        #expect(Self.agentTexts(desktop) == expected)
        #expect((try await Self.status(simulator)["sessions"] as? [[String: Any]] ?? []).count == 1)
        #expect(daemon.stderr.contains("genesys-messaging: the socket to"), "\(daemon.stderr.suffix(2000))")
        await CXoneChatDaemonTests.stop(daemon)
    }

    // MARK: Bad input

    /// A frame that is not JSON, one of a class the SDK does not know and a message with an unknown presence
    /// type (which fails the whole message in the SDK too): each is named in the log (the field, never its
    /// value), and the chat goes on.
    @Test func badFramesAreNamedWithoutTheirContentAndTheChatGoesOn() async throws {
        let simulator = try await Simulator([])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.daemon(simulator, desktop: desktop, scratch: scratch)
        try await Self.agentSays("Hello", simulator, desktop)
        let presence =
            #"{"type":"message","class":"StructuredMessage","code":200,"body":{"id":"SECRET-3","type":"Event","direction":"Outbound","events":[{"eventType":"Presence","presence":{"type":"SECRET-4"}}]}}"#
        for body in ["{not json SECRET-1", #"{"type":"message","class":"SECRET-2","code":200,"body":{}}"#, presence] {
            _ = try await simulator.control("POST", "/control/genesys/push", body: body)
        }
        try await Self.agentSays("Still here", simulator, desktop)
        let log = daemon.stderr
        #expect(log.contains("genesys-messaging: ignored a frame from"), "\(log.suffix(3000))")
        #expect(
            log.contains("names a class the SDK does not know") && log.contains("is not one of Join, Disconnect, Clear, SignIn"),
            "\(log.suffix(3000))"
        )
        #expect(!log.contains("SECRET"), "content stays out of the log")
        #expect(try await Self.chatStatus(desktop)["frames-rejected"] == "3")
        #expect(Self.agentTexts(desktop) == ["Hello", "Still here"])
        await CXoneChatDaemonTests.stop(daemon)
    }

    // MARK: Restarts, sleep and the token

    /// A restart configures the same session (the token kept in the secrets file): a message shown before
    /// it, sent again by the service, is not alerted again; a new one is. The token is in the 0600 secrets
    /// file and nowhere else: no log line, D-Bus reply or signal, nor the state database.
    @Test func aRestartAlertsNoOldMessageAgainAndTheTokenStaysInTheSecretsFile() async throws {
        let simulator = try await Simulator([])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let first = try await Self.daemon(simulator, desktop: desktop, scratch: scratch)
        try await Self.agentSays("Your refund is on its way", simulator, desktop)
        try await eventually("the alert in dunst") { desktop.printed.contains { $0.body.contains("Your refund is on its way") } }
        let statusBefore = try await Self.ctl(["chat", "status", "--json"], desktop).output
        await CXoneChatDaemonTests.stop(first)
        let callsBefore = desktop.notifyCalls.count
        // While no daemon runs, the agent writes: the history API has it.
        _ = try await simulator.control("POST", "/control/genesys/agent?text=While%20you%20were%20away")

        let second = try await Self.daemon(simulator, desktop: desktop, scratch: scratch)
        let sessions = try await Self.status(simulator)["sessions"] as? [[String: Any]] ?? []
        #expect(sessions.count == 1, "the restart configured the same session: \(sessions)")
        // The service sends the old message again (as after a reconnect), then a new one.
        let old = try #require(try await Self.conversation(simulator).first { $0["text"] as? String == "Your refund is on its way" })
        let frame = try JSONSerialization.data(withJSONObject: ["type": "message", "class": "StructuredMessage", "code": 200, "body": old])
        _ = try await simulator.control("POST", "/control/genesys/push", body: String(decoding: frame, as: UTF8.self))
        try await Self.agentSays("Anything else?", simulator, desktop)
        try await eventually("the new alert in dunst") { desktop.printed.contains { $0.body.contains("Anything else?") } }
        #expect(Self.agentTexts(desktop) == ["Your refund is on its way", "While you were away", "Anything else?"])
        await #expect(try Self.status(simulator)["history_requests"] as? Int ?? 0 >= 1)
        #expect(!desktop.notifyCalls.dropFirst(callsBefore).contains { $0.body.contains("Your refund is on its way") })

        let secrets = try String(contentsOfFile: scratch.path + "/state/attendant/secrets.json", encoding: .utf8)
        let stored = try JSONSerialization.jsonObject(with: Data(secrets.utf8)) as? [String: [String: String]]
        let token = try #require(stored?["chat"]?["session-token"])
        #expect(token.count == 36)
        var outputs = [first.stderr, statusBefore]
        for arguments in [["chat", "status", "--json"], ["chat", "threads", "--json"], ["channels", "--json"], ["status", "--json"]] {
            outputs.append(try await Self.ctl(arguments, desktop).output)
        }
        await CXoneChatDaemonTests.stop(second)
        outputs += [second.stderr, "\(desktop.sessionBus.signals("ChannelEvent").map(\.raw))"]
        for name in ["state.sqlite", "state.sqlite-wal"] {
            if let data = FileManager.default.contents(atPath: scratch.path + "/state/attendant/" + name) {
                outputs.append(String(decoding: data, as: UTF8.self))
            }
        }
        for output in outputs {
            #expect(!output.contains(token), "the session token leaked")
        }
    }

    /// Sleep closes the socket inside logind's delay lock; resume configures the session again, fetches
    /// what the agent wrote meanwhile from the history API, and shows it once, in order, before the agent's
    /// next message.
    @Test func sleepClosesTheSocketAndResumeConfiguresTheSessionAgain() async throws {
        let simulator = try await Simulator([])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.daemon(simulator, desktop: desktop, scratch: scratch)
        try await Self.agentSays("Before the night", simulator, desktop)
        try await desktop.prepareForSleep(true)
        try await eventually("the socket closed") { try await Self.status(simulator)["connections"] as? Int == 0 }
        try await eventually("the delay lock released") { try await desktop.inhibitors().isEmpty }
        // The agent writes while the machine sleeps: the history API has it.
        let night = (1...3).map { "In the night \($0)" }
        for text in night { _ = try await simulator.control("POST", "/control/genesys/agent?text=\(CXoneChatDaemonTests.escaped(text))") }
        #expect(!Self.agentTexts(desktop).contains("In the night 1"), "nothing arrives while asleep")
        try await desktop.prepareForSleep(false)
        try await eventually("the socket again") { try await Self.status(simulator)["connections"] as? Int == 1 }
        try await Self.agentSays("Good morning", simulator, desktop)
        // Each once, in order: the history's (getJwt, then its pages), then the socket's.
        #expect(Self.agentTexts(desktop) == ["Before the night"] + night + ["Good morning"])
        try await eventually("the night's alert in dunst") { desktop.printed.contains { $0.body.contains("In the night 3") } }
        let configures = try await Self.status(simulator)["received"] as? [String] ?? []
        #expect(configures.filter { $0 == "configureSession" }.count == 2, "\(configures)")
        let sessions = try await Self.status(simulator)["sessions"] as? [[String: Any]] ?? []
        #expect(sessions.count == 1, "\(sessions)")
        await CXoneChatDaemonTests.stop(daemon)
    }
}
