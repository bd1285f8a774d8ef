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
    static func chat(_ arguments: [String], bus: PrivateBus) throws -> (status: Int32, output: String) {
        try TokenDaemonTests.ctl(["chat"] + arguments, bus: bus)
    }

    /// `attendantctl chat threads --json`.
    static func threads(bus: PrivateBus) throws -> [[String: Any]] {
        let (status, output) = try Self.chat(["threads", "--json"], bus: bus)
        guard status == 0 else { throw FixtureError("chat threads failed (\(status)): \(output)") }
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
    }

    static func texts(_ thread: [String: Any]?) -> [String] {
        (thread?["lastMessages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
    }

    /// The gateway's threads (`/control/cxone/threads`).
    static func gatewayThreads(_ simulator: Simulator) throws -> [[String: Any]] {
        try simulator.controlJSON("GET", "/control/cxone/threads")["threads"] as? [[String: Any]] ?? []
    }

    static func gatewayTexts(_ thread: [String: Any]?) -> [String] {
        (thread?["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
    }

    /// Client event types the gateway received, in order.
    static func receivedEvents(_ simulator: Simulator) throws -> [String] {
        try simulator.controlJSON("GET", "/control/cxone/status")["received"] as? [String] ?? []
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
        let simulator = try Simulator(["--cxone-auto-reply"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try PrivateBus()
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        // prepare → configuration, visitor stored, prepared; connect → socket, AuthorizeCustomer, no thread
        // to recover, ready.
        #expect(try Self.receivedEvents(simulator).prefix(2) == ["AuthorizeCustomer", "RecoverThread"], "\(daemon.stderr)")
        #expect(daemon.stderr.contains("[chat] chat ready"), "\(daemon.stderr)")
        #expect(try Self.threads(bus: bus).isEmpty)

        // prepare is illegal outside initial and offline (IllegalChatStateError).
        let again = try Self.chat(["prepare"], bus: bus)
        #expect(again.status != 0)
        #expect(again.output.contains("cannot prepare the chat while the chat is ready: prepare is allowed only while it is initial or offline"), "\(again.output)")

        // The first message creates the thread; the agent's answer comes back as MessageCreated.
        let sent = try Self.chat(["send", "Hello <b>from</b> the desk & co"], bus: bus)
        #expect(sent.status == 0, "\(sent.output)")
        try await eventually("the agent's reply in the thread") {
            Self.texts(try Self.threads(bus: bus).first).count == 2
        }
        let thread = try #require(try Self.threads(bus: bus).first)
        #expect(Self.texts(thread) == ["Hello <b>from</b> the desk & co", "You wrote: Hello <b>from</b> the desk & co"])
        #expect(thread["state"] as? String == "ready")
        let gateway = try #require(try Self.gatewayThreads(simulator).first)
        #expect((gateway["id"] as? String)?.lowercased() == thread["id"] as? String)
        #expect(Self.gatewayTexts(gateway) == ["Hello <b>from</b> the desk & co", "You wrote: Hello <b>from</b> the desk & co"])
        #expect(daemon.stderr.contains("chat message") && daemon.stderr.contains("from-agent from Ada Lovelace"), "\(daemon.stderr)")
        // The message text is not in the log.
        #expect(!daemon.stderr.contains("the desk & co"))

        // A second thread on a single-thread channel: unsupportedChannelConfigError.
        let second = try Self.chat(["create"], bus: bus)
        #expect(second.status != 0)
        #expect(second.output.contains("this chat channel allows one thread and it exists already"), "\(second.output)")

        // endConversation: EndContact, the case closed, the thread closed.
        let ended = try Self.chat(["end"], bus: bus)
        #expect(ended.status == 0, "\(ended.output)\n\(daemon.stderr)")
        #expect(try Self.threads(bus: bus).first?["state"] as? String == "closed")
        #expect(try Self.gatewayThreads(simulator).first?["status"] as? String == "closed")
        #expect(try Self.receivedEvents(simulator).contains("EndContact"))
        let closedSend = try Self.chat(["send", "anyone?"], bus: bus)
        #expect(closedSend.status != 0)

        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    // MARK: Prepare, view page, connect by hand

    @Test func withoutAutoConnectTheUserPreparesViewsPagesAndConnectsInOrder() async throws {
        let simulator = try Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try PrivateBus()
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus, extra: "auto-connect = false")

        // viewPage and connect before prepare: illegal.
        let view = try Self.chat(["view", "Orders", "https://shop.example/orders"], bus: bus)
        #expect(view.status != 0)
        #expect(view.output.contains("cannot view a page while the chat is initial: prepare the chat first"), "\(view.output)")
        let connect = try Self.chat(["connect"], bus: bus)
        #expect(connect.status != 0)
        #expect(connect.output.contains("cannot connect while the chat is initial: prepare the chat first"), "\(connect.output)")

        // prepare: the channel configuration, then the visitor (with the customer id) stored.
        let prepared = try Self.chat(["prepare"], bus: bus)
        #expect(prepared.status == 0, "\(prepared.output)\n\(daemon.stderr)")
        let status = try simulator.controlJSON("GET", "/control/cxone/status")
        #expect(status["visitors"] as? Int == 1, "\(status)")

        // Two page views: a visit, the first page, its end, the second page.
        #expect(try Self.chat(["view", "Orders", "https://shop.example/orders"], bus: bus).status == 0)
        #expect(try Self.chat(["view", "Cart", "https://shop.example/cart"], bus: bus).status == 0)
        try await eventually("the analytics events") {
            try simulator.controlJSON("GET", "/control/cxone/status")["analytics_events"] as? Int ?? 0 >= 4
        }
        let analytics = try simulator.controlJSON("GET", "/control/cxone/status")["analytics_types"] as? [String] ?? []
        #expect(analytics == ["VisitorVisit", "PageView", "TimeSpentOnPage", "PageView"], "\(analytics)")

        // connect: ready.
        let connected = try Self.chat(["connect"], bus: bus)
        #expect(connected.status == 0, "\(connected.output)\n\(daemon.stderr)")
        #expect(try Self.receivedEvents(simulator).first == "AuthorizeCustomer")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    // MARK: Restart: the stored thread recovered, agent messages from meanwhile shown once

    @Test func aRestartRecoversTheStoredThreadAndShowsWhatTheAgentWroteMeanwhileOnce() async throws {
        let simulator = try Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try PrivateBus()
        var daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        #expect(try Self.chat(["send", "Is my order on its way?"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try Self.gatewayThreads(simulator).count == 1 }
        let threadID = try #require(try Self.gatewayThreads(simulator).first?["id"] as? String)
        _ = try simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Let%20me%20look")
        try await eventually("the first agent message") { daemon.stderr.contains("from-agent from Ada Lovelace") }
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)

        // The agent writes twice while the daemon is stopped.
        _ = try simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=It%20left%20today")
        _ = try simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Anything%20else%3F")

        daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        // The stored thread is recovered by id.
        let recovered = try #require(try Self.threads(bus: bus).first)
        #expect(recovered["id"] as? String == threadID.lowercased())
        #expect(Self.texts(recovered) == ["Is my order on its way?", "Let me look", "It left today", "Anything else?"])
        // The two messages written meanwhile are shown (each once); the one seen before is not.
        try await eventually("both missed messages reported") {
            daemon.stderr.components(separatedBy: "from-agent from Ada Lovelace").count - 1 == 2
        }
        #expect(daemon.stderr.components(separatedBy: "from-agent from Ada Lovelace").count - 1 == 2, "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)

        // A third start: nothing new.
        daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        #expect(Self.texts(try Self.threads(bus: bus).first).count == 4)
        #expect(!daemon.stderr.contains("from-agent from Ada Lovelace"), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    // MARK: Multi thread

    @Test func multiThreadFetchesTheThreadListLoadsEachAndOpensOne() async throws {
        let simulator = try Simulator(["--cxone-multi-thread"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try PrivateBus()
        var daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        #expect(try Self.receivedEvents(simulator).contains("FetchThreadList"))

        // Two threads, each created (pending) then sent to.
        var ids: [String] = []
        for text in ["Billing question", "Delivery question"] {
            let (status, output) = try Self.chat(["create", "--json"], bus: bus)
            #expect(status == 0, "\(output)")
            let created = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
            #expect(created["state"] as? String == "pending", "\(created)")
            let id = try #require(created["id"] as? String)
            ids.append(id)
            #expect(try Self.chat(["send", "--thread", id, text], bus: bus).status == 0)
        }
        try await eventually("both threads at the gateway") { try Self.gatewayThreads(simulator).count == 2 }
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)

        // After a restart: FetchThreadList, then each thread's metadata (its last message).
        daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        let events = try Self.receivedEvents(simulator)
        #expect(events.filter { $0 == "FetchThreadList" }.count == 2)
        #expect(events.filter { $0 == "LoadThreadMetadata" }.count == 2, "\(events)")
        let listed = try Self.threads(bus: bus)
        #expect(Set(listed.compactMap { $0["id"] as? String }) == Set(ids))
        #expect(Set(listed.compactMap { $0["state"] as? String }) == ["loaded"], "\(listed)")
        #expect(Set(listed.map { Self.texts($0) }) == [["Billing question"], ["Delivery question"]])

        // openThread recovers it: ready, with its messages.
        _ = try simulator.control("POST", "/control/cxone/agent?thread=\(ids[0])&text=About%20your%20bill")
        let (status, output) = try Self.chat(["open", ids[0], "--json"], bus: bus)
        #expect(status == 0, "\(output)\n\(daemon.stderr)")
        let opened = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
        #expect(opened["state"] as? String == "ready", "\(opened)")
        #expect(Self.texts(opened) == ["Billing question", "About your bill"])
        #expect(try Self.receivedEvents(simulator).last == "RecoverThread")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    // MARK: Welcome message

    @Test func theWelcomeMessageGoesFirstAsSendOutboundThenTheUsersMessage() async throws {
        let simulator = try Simulator(["--cxone-welcome", "Hi {{customer.firstName|there}}, how can we help?"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try PrivateBus()
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        #expect(try Self.chat(["send", "I need help"], bus: bus).status == 0)
        try await eventually("both messages at the gateway") { Self.gatewayTexts(try Self.gatewayThreads(simulator).first).count == 2 }
        let gateway = try #require(try Self.gatewayThreads(simulator).first)
        #expect(Self.gatewayTexts(gateway) == ["Hi there, how can we help?", "I need help"])
        let directions = (gateway["messages"] as? [[String: Any]] ?? []).compactMap { $0["direction"] as? String }
        #expect(directions == ["outbound", "inbound"])
        let events = try Self.receivedEvents(simulator)
        let outbound = try #require(events.firstIndex(of: "SendOutbound"))
        let message = try #require(events.firstIndex(of: "SendMessage"))
        #expect(outbound < message)
        try await eventually("the thread updated by both MessageCreated") { Self.texts(try Self.threads(bus: bus).first).count == 2 }
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    // MARK: OAuth

    @Test func oauthAuthorizesWithTheCodeKeepsTheTokenInTheSecretsFileAndReconnectsWithIt() async throws {
        let simulator = try Simulator(["--cxone-oauth"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try PrivateBus()
        let code = try scratch.write("code", "oauth-code-4f1c\n")
        chmod(code, 0o600)
        // token-file belongs to the channel, not the plugin table: put it before [channel.cxone-chat].
        let configuration = Self.configuration(simulator).replacingOccurrences(of: "plugin = \"cxone-chat\"\n", with: "plugin = \"cxone-chat\"\ntoken-file = \"\(code)\"\n")
            + "code-verifier = \"verifier-9a7e\"\n"
        var daemon = try await TokenDaemonTests.daemon(configuration, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        #expect(try Self.receivedEvents(simulator).first == "AuthorizeCustomer")
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
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)

        // After a restart the stored token reconnects the customer.
        daemon = try await TokenDaemonTests.daemon(configuration, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        let events = try Self.receivedEvents(simulator)
        #expect(events.filter { $0 == "ReconnectCustomer" }.count == 1, "\(events)")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    /// `attendantctl chat status --json`.
    static func status(bus: PrivateBus) throws -> [String: String] {
        let (status, output) = try Self.chat(["status", "--json"], bus: bus)
        guard status == 0 else { throw FixtureError("chat status failed (\(status)): \(output)") }
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String] ?? [:]
    }

    // MARK: Preparation failures

    @Test func aServerErrorWhilePreparingReturnsToInitialWithTheServersAnswer() async throws {
        let simulator = try Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try PrivateBus()
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus, extra: "auto-connect = false")

        // The channel configuration fails: back to initial.
        _ = try simulator.control("POST", "/control/cxone/fault?kind=rest-error&endpoint=configuration")
        let first = try Self.chat(["prepare"], bus: bus)
        #expect(first.status != 0)
        #expect(first.output.contains("could not fetch the channel configuration: GET http://127.0.0.1:"), "\(first.output)")
        #expect(first.output.contains("answered 500 Internal Server Error (InternalServerError: the configuration endpoint is failing (injected fault))"), "\(first.output)")
        #expect(try Self.status(bus: bus)["state"] == "initial")

        // The visitor cannot be stored: back to initial too.
        _ = try simulator.control("POST", "/control/cxone/clear-faults")
        _ = try simulator.control("POST", "/control/cxone/fault?kind=rest-error&endpoint=visitor")
        let second = try Self.chat(["prepare"], bus: bus)
        #expect(second.status != 0)
        #expect(second.output.contains("could not send the visitor: PUT http://127.0.0.1:"), "\(second.output)")
        #expect(try Self.status(bus: bus)["state"] == "initial")
        let view = try Self.chat(["view", "Orders", "https://shop.example/orders"], bus: bus)
        #expect(view.output.contains("while the chat is initial"), "\(view.output)")

        // Well again: prepared, then connected.
        _ = try simulator.control("POST", "/control/cxone/clear-faults")
        #expect(try Self.chat(["prepare"], bus: bus).status == 0)
        #expect(try Self.status(bus: bus)["state"] == "prepared")
        #expect(try Self.chat(["connect"], bus: bus).status == 0)
        #expect(try Self.status(bus: bus)["state"] == "ready")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    // MARK: Live chat

    @Test func aLiveChatWithoutAgentsIsOfflineUntilOneIsAvailable() async throws {
        let simulator = try Simulator(["--cxone-live-chat", "--cxone-offline"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try PrivateBus()
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        let offline = try await TokenDaemonTests.channel("chat", bus: bus) { ($0["detail"] as? String ?? "").contains("offline") }
        #expect(offline["state"] as? String == "recovering", "\(offline)\n\(daemon.stderr)")
        #expect((offline["detail"] as? String ?? "").contains("the live chat of brand 1386, channel chat_sim is offline: no agent is available"), "\(offline)")
        #expect(try Self.receivedEvents(simulator).isEmpty)

        // An agent comes online: the next attempt connects and recovers the live chat.
        _ = try simulator.control("POST", "/control/cxone/availability?online=1")
        try await Self.waitForListening(bus, daemon)
        #expect(try Self.receivedEvents(simulator).contains("RecoverLivechat"))
        #expect(try Self.status(bus: bus)["mode"] == "live-chat")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    // MARK: Pre-chat form and custom fields

    @Test func thePreChatFormIsShownAndItsAnswersGoWithTheFirstMessage() async throws {
        let simulator = try Simulator(["--cxone-pre-chat-form", "--cxone-multi-thread"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try PrivateBus()
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        let (status, output) = try Self.chat(["form", "--json"], bus: bus)
        #expect(status == 0, "\(output)")
        let form = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String] ?? [:]
        #expect(form == ["form": "Before we start", "field.email": "Your email (required)", "field.topic": "Topic: billing | delivery | other"], "\(form)")
        let human = try Self.chat(["form"], bus: bus).output
        #expect(human.contains("Before we start (answer with: attendantctl chat create --field ID=VALUE):"), "\(human)")

        let created = try Self.chat(["create", "--field", "email=grace@example.org", "--field", "topic=billing", "--json"], bus: bus)
        #expect(created.status == 0, "\(created.output)")
        let thread = try JSONSerialization.jsonObject(with: Data(created.output.utf8)) as? [String: Any] ?? [:]
        #expect(thread["state"] as? String == "pending")
        let id = try #require(thread["id"] as? String)
        #expect(try Self.chat(["send", "About my invoice"], bus: bus).status == 0)
        try await eventually("the fields at the gateway") {
            let fields = try simulator.controlJSON("GET", "/control/cxone/status")["contact_fields"] as? [String: [String: String]] ?? [:]
            return fields[id] == ["email": "grace@example.org", "topic": "billing"]
        }
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    // MARK: Reliability

    @Test func missingPongsAndDroppedSocketsAreReconnectedAndTheThreadRecovered() async throws {
        let simulator = try Simulator(["--cxone-auto-reply"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try PrivateBus()
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus, extra: "heartbeat-interval = \"1s\"\npong-timeout = \"500ms\"")
        try await Self.waitForListening(bus, daemon)
        #expect(try Self.chat(["send", "First"], bus: bus).status == 0)
        try await eventually("the reply") { Self.texts(try Self.threads(bus: bus).first).count == 2 }
        let recoveries = try Self.receivedEvents(simulator).filter { $0 == "RecoverThread" }.count

        // Heartbeats go unanswered: the connection is given up and opened again, with backoff.
        _ = try simulator.control("POST", "/control/cxone/fault?kind=missing-pongs")
        #expect(await daemon.waitForLog("lost the connection to ws://127.0.0.1:"), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("/chat-gateway: no pong within 0.5 s; reconnecting (attempt 1)"), "\(daemon.stderr)")
        _ = try simulator.control("POST", "/control/cxone/clear-faults")
        try await eventually("the thread recovered after the reconnect") {
            try Self.receivedEvents(simulator).filter { $0 == "RecoverThread" }.count > recoveries
        }
        try await eventually("ready again") { try Self.status(bus: bus)["state"] == "ready" }

        // The gateway drops the socket: the same.
        let before = try Self.receivedEvents(simulator).filter { $0 == "RecoverThread" }.count
        _ = try simulator.control("POST", "/control/cxone/drop")
        try await eventually("the thread recovered after the drop") {
            try Self.receivedEvents(simulator).filter { $0 == "RecoverThread" }.count > before
        }
        try await eventually("ready after the drop") { try Self.status(bus: bus)["state"] == "ready" }
        #expect(try Self.chat(["send", "Second"], bus: bus).status == 0)
        try await eventually("the second reply") { Self.texts(try Self.threads(bus: bus).first).count == 4 }
        #expect(try TokenDaemonTests.channel("chat", bus: bus)["state"] as? String == "listening")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func aMessageSentWhileTheGatewayIsDownSurvivesAKillAndReachesTheAgentExactlyOnce() async throws {
        let simulator = try Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try PrivateBus()
        var daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        #expect(try Self.chat(["send", "Before the outage"], bus: bus).status == 0)
        try await eventually("the first message at the gateway") { Self.gatewayTexts(try Self.gatewayThreads(simulator).first).count == 1 }

        // The gateway goes down; the message waits in the outbox (in the state database).
        _ = try simulator.control("POST", "/control/cxone/fault?kind=down")
        try await eventually("the chat reconnecting") { try Self.status(bus: bus)["state"] == "connecting" }
        let sent = try Self.chat(["send", "Written during the outage"], bus: bus)
        #expect(sent.status == 0, "\(sent.output)")
        #expect(try Self.status(bus: bus)["outbox"] == "1")

        // The daemon is killed, started again while the gateway is still down, then the gateway returns.
        daemon.signal(SIGKILL)
        _ = await daemon.waitForExit()
        daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        #expect(await daemon.waitForLog("1 message(s) wait in the outbox from before"), "\(daemon.stderr)")
        _ = try simulator.control("POST", "/control/cxone/clear-faults")
        try await Self.waitForListening(bus, daemon)
        try await eventually("the outbox delivered") { Self.gatewayTexts(try Self.gatewayThreads(simulator).first).count == 2 }
        #expect(Self.gatewayTexts(try Self.gatewayThreads(simulator).first) == ["Before the outage", "Written during the outage"])
        try await eventually("the outbox empty") { try Self.status(bus: bus)["outbox"] == "0" }

        // Another restart sends nothing again.
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        #expect(Self.gatewayTexts(try Self.gatewayThreads(simulator).first) == ["Before the outage", "Written during the outage"])
        #expect(try Self.receivedEvents(simulator).filter { $0 == "SendMessage" }.count == 2)
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    // MARK: Errors from the server

    @Test func operationAndServerErrorsReachTheUserAsTypedErrors() async throws {
        let simulator = try Simulator(["--cxone-multi-thread"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try PrivateBus()
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        #expect(try Self.chat(["send", "Hello"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try Self.gatewayThreads(simulator).count == 1 }
        let threadID = try #require(try Self.gatewayThreads(simulator).first?["id"] as? String)

        // An operation error ({error: {errorCode, errorMessage}}) answering EndContact.
        _ = try simulator.control("POST", "/control/cxone/fault?kind=operation-error&event=EndContact&code=ContactNotFound")
        let (status, output) = try TokenDaemonTests.ctl(["chat", "end", "--json"], bus: bus)
        #expect(status == 1, "\(output)")
        #expect(output.contains("ServerError"), "\(output)")
        #expect(output.contains("the chat server refused an operation (ContactNotFound)"), "\(output)")

        // A server error ({message, requestId}) answering RecoverThread, when the user opens the thread.
        _ = try simulator.control("POST", "/control/cxone/clear-faults")
        _ = try simulator.control("POST", "/control/cxone/fault?kind=server-error&event=RecoverThread")
        let opened = try Self.chat(["open", threadID], bus: bus)
        #expect(opened.status == 1, "\(opened.output)")
        #expect(opened.output.contains("the chat server failed: "), "\(opened.output)")
        _ = try simulator.control("POST", "/control/cxone/clear-faults")
        #expect(try Self.chat(["open", threadID], bus: bus).status == 0)
        #expect(try Self.chat(["end"], bus: bus).status == 0)
        #expect(try TokenDaemonTests.channel("chat", bus: bus)["state"] as? String == "listening")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    // MARK: Bad input

    @Test func malformedUnknownAndOversizedFramesAndAFailingEventInS3AreNamedAndTheChatGoesOn() async throws {
        let simulator = try Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try PrivateBus()
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        #expect(try Self.chat(["send", "Hello"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try Self.gatewayThreads(simulator).count == 1 }
        let threadID = try #require(try Self.gatewayThreads(simulator).first?["id"] as? String)

        func push(_ body: String) throws {
            let file = try scratch.write("frame", body)
            let (status, output) = try run("/usr/bin/curl", ["-s", "--max-time", "20", "-X", "POST", "--data-binary", "@\(file)", "http://127.0.0.1:\(simulator.httpPort)/control/cxone/push"])
            #expect(status == 0, "\(output)")
        }
        try push("{not json")
        try push(#"{"eventId":"6f0a3c1e-0000-4000-8000-000000000001","eventType":"SomethingNew","data":{}}"#)
        try push(#"{"eventId":"6f0a3c1e-0000-4000-8000-000000000002","eventType":"MessageCreated","data":{"brand":{"id":1386}}}"#)
        try push("{\"eventId\":\"x\",\"eventType\":\"MessageCreated\",\"data\":\"" + String(repeating: "a", count: 1_200_000) + "\"}")
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
        #expect(try Self.status(bus: bus)["frames-rejected"] == "3")

        // A large agent message arrives as EventInS3; while the download fails it is named, then one works.
        _ = try simulator.control("POST", "/control/cxone/fault?kind=s3-failure")
        _ = try simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Big&size=200000")
        #expect(await daemon.waitForLog("could not download a large chat event from http://127.0.0.1:"), "\(daemon.stderr)")
        _ = try simulator.control("POST", "/control/cxone/clear-faults")
        _ = try simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Bigger&size=150000")
        try await eventually("the large message in the thread") {
            Self.texts(try Self.threads(bus: bus).first).contains { $0.hasPrefix("Bigger") && $0.utf8.count == 150_000 }
        }
        #expect(try TokenDaemonTests.channel("chat", bus: bus)["state"] as? String == "listening")
        #expect(try Self.status(bus: bus)["state"] == "ready")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }
}

/// The CXone chat with the real desktop parts: agent messages in dunst, suspend and resume from
/// python-dbusmock's logind (see DesktopSession).
@Suite(.serialized, .timeLimit(.minutes(3))) struct CXoneChatDesktopTests {
    @Test func agentMessagesAlertInDunstAndSleepDisconnectsUntilResume() async throws {
        let simulator = try CXoneChatDaemonTests.Simulator(["--cxone-auto-reply"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let config = try scratch.write("attendant.toml", CXoneChatDaemonTests.configuration(simulator))
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("ready: chat listening"), "\(daemon.stderr)")
        try #require(await daemon.waitForLog("notification server present"), "\(daemon.stderr)")
        func chat(_ arguments: [String]) throws -> (Int32, String) {
            try run(TokenDaemonTests.attendantctl, ["chat"] + arguments, environment: desktop.toolEnvironment)
        }
        func status() throws -> [String: String] {
            let (_, output) = try chat(["status", "--json"])
            return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String] ?? [:]
        }

        // The agent's answer is a notification: "New message from Ada Lovelace", the transcript line as body.
        #expect(try chat(["view", "Orders", "https://shop.example/orders"]).0 == 0)
        #expect(try chat(["send", "Where is my <b>parcel</b>?"]).0 == 0)
        try await eventually("the agent's message in dunst") { desktop.printed.contains { $0.summary == "New message from Ada Lovelace" } }
        let shown = try #require(desktop.printed.first { $0.summary == "New message from Ada Lovelace" })
        // The remote text shows literally (dunst draws Pango's parse of the escaped body).
        let text = try await desktop.shownText(shown.formatted)
        #expect(text.contains("Ada Lovelace: You wrote: Where is my <b>parcel</b>?"), "dunst draws: \(text)")
        #expect(!text.contains("Grace"), "the customer's own message is not an alert: \(text)")

        // Suspend: the page view ends and the socket closes; the delay lock is released.
        let recoveries = try CXoneChatDaemonTests.receivedEvents(simulator).filter { $0 == "RecoverThread" }.count
        try await desktop.prepareForSleep(true)
        try await eventually("the socket closed for sleep") { try simulator.controlJSON("GET", "/control/cxone/status")["connections"] as? Int == 0 }
        try await eventually("the page view ended") {
            (try simulator.controlJSON("GET", "/control/cxone/status")["analytics_types"] as? [String] ?? []).contains("TimeSpentOnPage")
        }
        #expect(try status()["state"] == "prepared")
        try await eventually("the delay lock released") { try await desktop.inhibitors().isEmpty }
        // Background is not a loss: the channel still counts as listening.
        let (_, channels) = try run(TokenDaemonTests.attendantctl, ["channels", "--json"], environment: desktop.toolEnvironment)
        #expect(channels.contains(#""state":"listening""#), "\(channels)")

        // Resume: connected again at once, the thread recovered.
        try await desktop.prepareForSleep(false)
        try await eventually("ready after resume") { try status()["state"] == "ready" }
        #expect(try CXoneChatDaemonTests.receivedEvents(simulator).filter { $0 == "RecoverThread" }.count == recoveries + 1)
        #expect(try simulator.controlJSON("GET", "/control/cxone/status")["connections"] as? Int == 1)
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }
}
