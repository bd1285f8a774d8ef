import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// The CXone seed's diagrams, branch by branch, through the real `attendantd` with the CXoneChat plugin
/// against the real `attendant-sim` gateway, driven with the real `attendantctl chat …`.
@Suite(.serialized, .timeLimit(.minutes(3))) struct CXoneChatDaemonTests {
    typealias Simulator = SimulatorDaemonTests.Simulator

    /// A cxone-chat channel named "chat" for the simulator's gateway.
    static func configuration(_ simulator: Simulator, extra: String = "") -> String {
        """
        [[channel]]
        name = "chat"
        plugin = "cxone-chat"

        [channel.cxone-chat]
        brand-id = \(simulator.announcement["cxone_brand"] as? Int ?? 0)
        channel-id = "\(simulator.announcement["cxone_channel"] as? String ?? "")"
        socket-url = "\(simulator.announcement["cxone_socket"] as? String ?? "")"
        chat-url = "\(simulator.announcement["cxone_chat"] as? String ?? "")"
        first-name = "Grace"
        last-name = "Hopper"
        \(extra)
        """
    }

    /// attendantd with the chat channel, ready (the channel listening, or failed, or recovering).
    static func daemon(_ simulator: Simulator, scratch: Scratch, bus: PrivateBus, extra: String = "") async throws -> DaemonProcess {
        try await TokenDaemonTests.daemon(Self.configuration(simulator, extra: extra), scratch: scratch, bus: bus)
    }

    /// `attendantctl chat ARGUMENTS`.
    static func chat(_ arguments: [String], bus: PrivateBus) async throws -> (status: Int32, output: String) {
        try await TokenDaemonTests.ctl(["chat"] + arguments, bus: bus)
    }

    /// `attendantctl chat threads --json`.
    static func threads(bus: PrivateBus) async throws -> [[String: Any]] {
        let (status, output) = try await Self.chat(["threads", "--json"], bus: bus)
        guard status == 0 else { throw FixtureError("chat threads failed (\(status)): \(output)") }
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
    }

    static func texts(_ thread: [String: Any]?) -> [String] {
        (thread?["lastMessages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
    }

    /// The gateway's threads (`/control/cxone/threads`).
    static func gatewayThreads(_ simulator: Simulator) async throws -> [[String: Any]] {
        try await simulator.controlJSON("GET", "/control/cxone/threads")["threads"] as? [[String: Any]] ?? []
    }

    static func gatewayTexts(_ thread: [String: Any]?) -> [String] {
        (thread?["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
    }

    /// Client event types the gateway received, in order.
    static func receivedEvents(_ simulator: Simulator) async throws -> [String] {
        try await simulator.controlJSON("GET", "/control/cxone/status")["received"] as? [String] ?? []
    }

    /// attendantd with the chat channel, once the channel is listening.
    static func listeningDaemon(_ simulator: Simulator, scratch: Scratch, bus: PrivateBus, extra: String = "") async throws -> DaemonProcess {
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus, extra: extra)
        try await Self.waitForListening(bus, daemon)
        return daemon
    }

    /// SIGTERM, and the daemon exits 0 (if not, the failure says how it ended and what it logged last).
    static func stop(_ daemon: DaemonProcess) async {
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }

    static func waitForListening(_ bus: PrivateBus, _ daemon: DaemonProcess) async throws {
        let record = try await TokenDaemonTests.channel("chat", bus: bus) { $0["state"] as? String == "listening" }
        try #require(record["state"] as? String == "listening", "\(record)\n\(daemon.stderr)")
    }

    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    // MARK: Single thread, send, agent reply, end

    @Test func singleThreadConnectsSendsGetsTheAgentsReplyAndEndsTheConversation() async throws {
        let simulator = try await Simulator(["--cxone-auto-reply"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        // prepare → configuration, visitor stored, prepared; connect → socket, AuthorizeCustomer, no thread
        // to recover, ready.
        await #expect(try Self.receivedEvents(simulator).prefix(2) == ["AuthorizeCustomer", "RecoverThread"], "\(daemon.stderr)")
        #expect(daemon.stderr.contains("[chat] chat ready"), "\(daemon.stderr)")
        await #expect(try Self.threads(bus: bus).isEmpty)

        // prepare is illegal outside initial and offline (IllegalChatStateError).
        let again = try await Self.chat(["prepare"], bus: bus)
        #expect(again.status != 0)
        #expect(
            again.output.contains("cannot prepare the chat while the chat is ready: prepare is allowed only while it is initial or offline"),
            "\(again.output)"
        )

        // The first message creates the thread; the agent's answer comes back as MessageCreated.
        let sent = try await Self.chat(["send", "Hello <b>from</b> the desk & co"], bus: bus)
        #expect(sent.status == 0, "\(sent.output)")
        try await eventually("the agent's reply in the thread") {
            await Self.texts(try Self.threads(bus: bus).first).count == 2
        }
        let thread = try await #require(try Self.threads(bus: bus).first)
        #expect(Self.texts(thread) == ["Hello <b>from</b> the desk & co", "You wrote: Hello <b>from</b> the desk & co"])
        #expect(thread["state"] as? String == "ready")
        let gateway = try await #require(try Self.gatewayThreads(simulator).first)
        #expect((gateway["id"] as? String)?.lowercased() == thread["id"] as? String)
        #expect(Self.gatewayTexts(gateway) == ["Hello <b>from</b> the desk & co", "You wrote: Hello <b>from</b> the desk & co"])
        #expect(daemon.stderr.contains("chat message") && daemon.stderr.contains("from-agent from Ada Lovelace"), "\(daemon.stderr)")
        // The message text is not in the log.
        #expect(!daemon.stderr.contains("the desk & co"))

        // A second thread on a single-thread channel: unsupportedChannelConfigError.
        let second = try await Self.chat(["create"], bus: bus)
        #expect(second.status != 0)
        #expect(second.output.contains("this chat channel allows one thread and it exists already"), "\(second.output)")

        // endConversation: EndContact, the case closed, the thread closed.
        let ended = try await Self.chat(["end"], bus: bus)
        #expect(ended.status == 0, "\(ended.output)\n\(daemon.stderr)")
        await #expect(try Self.threads(bus: bus).first?["state"] as? String == "closed")
        await #expect(try Self.gatewayThreads(simulator).first?["status"] as? String == "closed")
        await #expect(try Self.receivedEvents(simulator).contains("EndContact"))
        // Writing again goes on in the same thread, as the SDK's single-thread channel does (it keeps the
        // thread after its case closed): the gateway opens a new contact for it.
        let closedSend = try await Self.chat(["send", "anyone?"], bus: bus)
        #expect(closedSend.status == 0, "\(closedSend.output)")
        let goesOn = try await #require(try Self.gatewayThreads(simulator).first)
        #expect(try await Self.gatewayThreads(simulator).count == 1 && goesOn["status"] as? String != "closed", "\(goesOn)")
        #expect(Self.gatewayTexts(goesOn).contains("anyone?"), "\(Self.gatewayTexts(goesOn))")
        await #expect(try Self.threads(bus: bus).first?["state"] as? String == "ready")

        await Self.stop(daemon)
    }

    // MARK: Prepare, view page, connect by hand

    @Test func withoutAutoConnectTheUserPreparesViewsPagesAndConnectsInOrder() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus, extra: "auto-connect = false")

        // viewPage and connect before prepare: illegal.
        let view = try await Self.chat(["view", "Orders", "https://shop.example/orders"], bus: bus)
        #expect(view.status != 0)
        #expect(view.output.contains("cannot view a page while the chat is initial: prepare the chat first"), "\(view.output)")
        let connect = try await Self.chat(["connect"], bus: bus)
        #expect(connect.status != 0)
        #expect(connect.output.contains("cannot connect while the chat is initial: prepare the chat first"), "\(connect.output)")

        // prepare: the channel configuration, then the visitor (with the customer id) stored.
        let prepared = try await Self.chat(["prepare"], bus: bus)
        #expect(prepared.status == 0, "\(prepared.output)\n\(daemon.stderr)")
        let status = try await simulator.controlJSON("GET", "/control/cxone/status")
        #expect(status["visitors"] as? Int == 1, "\(status)")

        // Two page views: a visit, the first page, its end, the second page.
        await #expect(try Self.chat(["view", "Orders", "https://shop.example/orders"], bus: bus).status == 0)
        await #expect(try Self.chat(["view", "Cart", "https://shop.example/cart"], bus: bus).status == 0)
        try await eventually("the analytics events") {
            try await simulator.controlJSON("GET", "/control/cxone/status")["analytics_events"] as? Int ?? 0 >= 4
        }
        let analytics = try await simulator.controlJSON("GET", "/control/cxone/status")["analytics_types"] as? [String] ?? []
        #expect(analytics == ["VisitorVisit", "PageView", "TimeSpentOnPage", "PageView"], "\(analytics)")

        // connect: ready.
        let connected = try await Self.chat(["connect"], bus: bus)
        #expect(connected.status == 0, "\(connected.output)\n\(daemon.stderr)")
        await #expect(try Self.receivedEvents(simulator).first == "AuthorizeCustomer")
        await Self.stop(daemon)
    }

    // MARK: Restart: the stored thread recovered, agent messages from meanwhile shown once

    @Test func aRestartRecoversTheStoredThreadAndShowsWhatTheAgentWroteMeanwhileOnce() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        var daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "Is my order on its way?"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let threadID = try await #require(try Self.gatewayThreads(simulator).first?["id"] as? String)
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Let%20me%20look")
        try await eventually("the first agent message") { daemon.stderr.contains("from-agent from Ada Lovelace") }
        await Self.stop(daemon)

        // The agent writes twice while the daemon is stopped.
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=It%20left%20today")
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Anything%20else%3F")

        daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        // The stored thread is recovered by id.
        let recovered = try await #require(try Self.threads(bus: bus).first)
        #expect(recovered["id"] as? String == threadID.lowercased())
        #expect(Self.texts(recovered) == ["Is my order on its way?", "Let me look", "It left today", "Anything else?"])
        // The two messages written meanwhile are shown (each once); the one seen before is not.
        try await eventually("both missed messages reported") {
            daemon.stderr.components(separatedBy: "from-agent from Ada Lovelace").count - 1 == 2
        }
        #expect(daemon.stderr.components(separatedBy: "from-agent from Ada Lovelace").count - 1 == 2, "\(daemon.stderr)")
        await Self.stop(daemon)

        // A third start: nothing new.
        daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(Self.texts(try Self.threads(bus: bus).first).count == 4)
        #expect(!daemon.stderr.contains("from-agent from Ada Lovelace"), "\(daemon.stderr)")
        await Self.stop(daemon)
    }

    // MARK: Welcome message

    @Test func theWelcomeMessageGoesFirstAsSendOutboundThenTheUsersMessage() async throws {
        let simulator = try await Simulator(["--cxone-welcome", "Hi {{customer.firstName|there}}, how can we help?"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "I need help"], bus: bus).status == 0)
        try await eventually("both messages at the gateway") { await Self.gatewayTexts(try Self.gatewayThreads(simulator).first).count == 2 }
        let gateway = try await #require(try Self.gatewayThreads(simulator).first)
        #expect(Self.gatewayTexts(gateway) == ["Hi there, how can we help?", "I need help"])
        let directions = (gateway["messages"] as? [[String: Any]] ?? []).compactMap { $0["direction"] as? String }
        #expect(directions == ["outbound", "inbound"])
        let events = try await Self.receivedEvents(simulator)
        let outbound = try #require(events.firstIndex(of: "SendOutbound"))
        let message = try #require(events.firstIndex(of: "SendMessage"))
        #expect(outbound < message)
        try await eventually("the thread updated by both MessageCreated") { await Self.texts(try Self.threads(bus: bus).first).count == 2 }
        await Self.stop(daemon)
    }

    // MARK: OAuth

    @Test func oauthAuthorizesWithTheCodeKeepsTheTokenInTheSecretsFileAndReconnectsWithIt() async throws {
        let simulator = try await Simulator(["--cxone-oauth"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let configuration = try Self.oauthConfiguration(simulator, scratch: scratch, code: "oauth-code-4f1c", verifier: "verifier-9a7e")
        var daemon = try await TokenDaemonTests.daemon(configuration, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        await #expect(try Self.receivedEvents(simulator).first == "AuthorizeCustomer")
        let secrets = try String(contentsOfFile: scratch.path + "/state/attendant/secrets.json", encoding: .utf8)
        #expect(secrets.contains("access-token"))
        var status = stat()
        #expect(stat(scratch.path + "/state/attendant/secrets.json", &status) == 0 && status.st_mode & 0o777 == 0o600)
        // Neither the code nor the token is in the database or the log.
        let database = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/state/attendant/state.sqlite"))
        for secret in ["oauth-code-4f1c", "verifier-9a7e"] {
            #expect(!daemon.stderr.contains(secret))
            #expect(database.range(of: Data(secret.utf8)) == nil)
        }
        await Self.stop(daemon)

        // After a restart the stored token reconnects the customer.
        daemon = try await TokenDaemonTests.daemon(configuration, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        let events = try await Self.receivedEvents(simulator)
        #expect(events.filter { $0 == "ReconnectCustomer" }.count == 1, "\(events)")
        await Self.stop(daemon)
    }

    /// The chat channel with OAuth: the authorization code in a token file (mode 0600), the code verifier.
    static func oauthConfiguration(_ simulator: Simulator, scratch: Scratch, code: String, verifier: String) throws -> String {
        let file = try scratch.write("code", code + "\n")
        chmod(file, 0o600)
        // token-file belongs to the channel, not the plugin table: put it before [channel.cxone-chat].
        return Self.configuration(simulator).replacingOccurrences(
            of: "plugin = \"cxone-chat\"\n",
            with: "plugin = \"cxone-chat\"\ntoken-file = \"\(file)\"\n"
        ) + "code-verifier = \"\(verifier)\"\n"
    }

    /// `attendantctl chat status --json`.
    static func status(bus: PrivateBus) async throws -> [String: String] {
        let (status, output) = try await Self.chat(["status", "--json"], bus: bus)
        guard status == 0 else { throw FixtureError("chat status failed (\(status)): \(output)") }
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String] ?? [:]
    }

    // MARK: Preparation failures

    @Test func aServerErrorWhilePreparingReturnsToInitialWithTheServersAnswer() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus, extra: "auto-connect = false")

        // The channel configuration fails: back to initial.
        _ = try await simulator.control("POST", "/control/cxone/fault?kind=rest-error&endpoint=configuration")
        let first = try await Self.chat(["prepare"], bus: bus)
        #expect(first.status != 0)
        #expect(first.output.contains("could not fetch the channel configuration: GET http://127.0.0.1:"), "\(first.output)")
        #expect(
            first.output.contains("answered 500 Internal Server Error (InternalServerError: the configuration endpoint is failing (injected fault))"),
            "\(first.output)"
        )
        await #expect(try Self.status(bus: bus)["state"] == "initial")

        // The visitor cannot be stored: back to initial too.
        _ = try await simulator.control("POST", "/control/cxone/clear-faults")
        _ = try await simulator.control("POST", "/control/cxone/fault?kind=rest-error&endpoint=visitor")
        let second = try await Self.chat(["prepare"], bus: bus)
        #expect(second.status != 0)
        #expect(second.output.contains("could not send the visitor: PUT http://127.0.0.1:"), "\(second.output)")
        await #expect(try Self.status(bus: bus)["state"] == "initial")
        let view = try await Self.chat(["view", "Orders", "https://shop.example/orders"], bus: bus)
        #expect(view.output.contains("while the chat is initial"), "\(view.output)")

        // Well again: prepared, then connected.
        _ = try await simulator.control("POST", "/control/cxone/clear-faults")
        await #expect(try Self.chat(["prepare"], bus: bus).status == 0)
        await #expect(try Self.status(bus: bus)["state"] == "prepared")
        await #expect(try Self.chat(["connect"], bus: bus).status == 0)
        await #expect(try Self.status(bus: bus)["state"] == "ready")
        await Self.stop(daemon)
    }
}
