import AttendantPluginAPI
import AttendantPluginTestKit
import ContactCenterSim
import Testing

/// The GMSChat driver in-process against the simulator's GMS server, over both transports and both API
/// versions: the chat's start, messages both ways, the seed's background disconnect and foreground replay.
@Suite(.serialized) struct GMSChatDriverTests {
    static let combinations: [(Int, String)] = [(2, "websocket"), (2, "long-polling"), (1, "websocket"), (1, "long-polling")]

    @Test(arguments: combinations)
    func startsAChatHearsTheAgentAndSends(apiVersion: Int, transport: String) async throws {
        let rig = try await GMSChatRig.start(apiVersion: apiVersion, transport: transport)
        try await rig.channel.listen()
        _ = try await rig.channel.perform(.connect)
        let chat = try await rig.simulator.gms.waitForChat(timeout: .seconds(60))
        #expect(chat.version == (apiVersion == 2 ? .v2 : .v1))
        try await rig.until("the greeting") { rig.agentTexts.contains("Hello, this is Ada. How can I help you?") }
        _ = try await rig.channel.perform(.sendMessage(threadID: nil, text: "Where is my parcel?"))
        _ = try await rig.simulator.gms.waitForCustomerMessage(containing: "Where is my parcel?", timeout: .seconds(60))
        try rig.simulator.gms.agentSays("It left the depot this morning.")
        try await rig.until("the agent's answer") { rig.agentTexts.contains("It left the depot this morning.") }
        // Every row once, in position order; the customer's own echo is there too, going to the agent.
        let positions = rig.messages.compactMap(\.transcriptPosition)
        #expect(positions == positions.sorted() && Set(positions).count == positions.count)
        #expect(rig.messages.contains { $0.text == "Where is my parcel?" && $0.direction == .toAgent })
        let status = try await rig.status()
        #expect(status["chat"] == "active")
        #expect(status["transport"] == transport)
        #expect(status["transcript-position"] == String(positions.last ?? -1))
        await rig.stop()
    }

    /// The seed: background sends `/meta/disconnect` with the highest position (a string); the server
    /// flags the customer away and tells the agent; what the agent writes meanwhile is replayed on the
    /// foreground's new session, each once and in order.
    @Test(arguments: combinations)
    func backgroundDisconnectsWithThePositionAndForegroundReplaysWhatCameMeanwhile(apiVersion: Int, transport: String) async throws {
        let rig = try await GMSChatRig.start(apiVersion: apiVersion, transport: transport)
        try await rig.channel.listen()
        _ = try await rig.channel.perform(.connect)
        try await rig.until("the greeting") { !rig.agentTexts.isEmpty }
        let shown = try #require(rig.messages.compactMap(\.transcriptPosition).max())
        await rig.channel.applicationStateDidChange(.background)
        let disconnect = try #require(rig.simulator.gms.counters.disconnects.last)
        #expect(disconnect.transcriptPosition == String(shown))
        let chat = try #require(rig.simulator.gms.chats.last)
        #expect(!chat.isOnline)
        #expect(rig.simulator.gms.agentNotices(chatID: chat.id).contains("customer is not online"))

        let before = rig.messages.count
        let away = (1...20).map { "While you were away \($0)" }
        for text in away { try rig.simulator.gms.agentSays(text, chatID: chat.id) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(rig.messages.count == before, "nothing arrives while in the background")

        await rig.channel.applicationStateDidChange(.foreground)
        try await rig.until("the 20 messages") { rig.agentTexts.filter { $0.hasPrefix("While you were away") }.count >= 20 }
        try await Task.sleep(for: .milliseconds(300))
        #expect(rig.agentTexts.filter { $0.hasPrefix("While you were away") } == away)
        #expect(rig.simulator.gms.chats.last?.isOnline == true)
        await rig.stop()
    }

    /// Cutting the held long-poll (or the socket) loses nothing: the next connect goes out at once. A drop
    /// can come before the connect after the previous one was answered (the message it waits for also comes
    /// with the replay the channel asks for); the client then waits out a backoff, so time passes here.
    @Test(arguments: ["websocket", "long-polling"])
    func aDroppedConnectionLosesAndDoublesNothing(transport: String) async throws {
        let rig = try await GMSChatRig.start(transport: transport)
        try await rig.channel.listen()
        _ = try await rig.channel.perform(.connect)
        try await rig.until("the greeting") { !rig.agentTexts.isEmpty }
        for round in 1...3 {
            rig.simulator.gms.dropConnections()
            try rig.simulator.gms.agentSays("After drop \(round)")
            try await rig.until("message \(round)", timePassing: true) { rig.agentTexts.contains("After drop \(round)") }
        }
        #expect(rig.agentTexts.filter { $0.hasPrefix("After drop") } == ["After drop 1", "After drop 2", "After drop 3"])
        await rig.stop()
    }

    /// A server that forgot the client (a GMS restart) answers `402::Unknown client` with advice
    /// `handshake`: the channel handshakes again and asks for the events after its position.
    @Test(arguments: ["websocket", "long-polling"])
    func aServerThatForgotTheClientIsHandshakenAgainAndReplayed(transport: String) async throws {
        let rig = try await GMSChatRig.start(transport: transport)
        try await rig.channel.listen()
        _ = try await rig.channel.perform(.connect)
        try await rig.until("the greeting") { !rig.agentTexts.isEmpty }
        let handshakes = rig.simulator.gms.counters.handshakes
        rig.simulator.gms.restart()
        try rig.simulator.gms.agentSays("After the restart 1")
        try rig.simulator.gms.agentSays("After the restart 2")
        try await rig.until("both messages") { rig.agentTexts.filter { $0.hasPrefix("After the restart") }.count >= 2 }
        try await Task.sleep(for: .milliseconds(300))
        #expect(rig.agentTexts.filter { $0.hasPrefix("After the restart") } == ["After the restart 1", "After the restart 2"])
        #expect(rig.simulator.gms.counters.handshakes > handshakes)
        await rig.stop()
    }

    /// A server (or a proxy) that refuses the WebSocket upgrade: the channel falls back to long-polling for
    /// good and the chat works.
    @Test func aRefusedWebSocketUpgradeFallsBackToLongPolling() async throws {
        var server = GMSServerSettings()
        server.webSocket = false
        let rig = try await GMSChatRig.start(transport: "websocket", server: server)
        try await rig.channel.listen()
        _ = try await rig.channel.perform(.connect)
        try await rig.until("the greeting") { !rig.agentTexts.isEmpty }
        #expect(try await rig.status()["transport"] == "long-polling")
        #expect(rig.host.logRecords.all.contains { $0.message.contains("did not open") && $0.message.contains("using long-polling") })
        _ = try await rig.channel.perform(.sendMessage(threadID: nil, text: "Over long-polling"))
        _ = try await rig.simulator.gms.waitForCustomerMessage(containing: "Over long-polling", timeout: .seconds(60))
        await rig.stop()
    }

    /// The chat's keys live in the secrets only; the store holds the position and a local thread id. A new
    /// channel on the same host (the daemon restarted) resumes the chat without showing anything again.
    @Test func theChatsKeysAreSecretsAndAResumedChatShowsOnlyWhatIsNew() async throws {
        let rig = try await GMSChatRig.start()
        try await rig.channel.listen()
        _ = try await rig.channel.perform(.connect)
        try await rig.until("the greeting") { !rig.agentTexts.isEmpty }
        let chat = try #require(rig.simulator.gms.chats.last)
        let secrets = rig.host.inMemorySecrets.all
        #expect(secrets["secure-key"] == chat.secureKey)
        #expect(secrets["chat-id"] == chat.id)
        let stored = await rig.host.inMemoryStore.allValues()
        #expect(!stored.values.contains { $0.contains(chat.secureKey) || $0.contains(chat.id) })
        let shown = try #require(rig.messages.compactMap(\.transcriptPosition).max())
        #expect(stored["transcript-position"] == String(shown))

        let again = try await rig.restartChannel()
        let before = again.messages.count
        try rig.simulator.gms.agentSays("Are you still there?")
        try await again.channel.listen()
        try await again.until("the new message") { again.agentTexts.filter { $0 == "Are you still there?" }.count == 1 }
        try await Task.sleep(for: .milliseconds(300))
        #expect(again.messages.count == before + 1, "only the new message: \(again.messages.suffix(3).map(\.text))")
        await again.stop()
    }

    /// v2's other customer operations reach GMS's transcript; v1 has none and says so.
    @Test func nicknamePushedURLAndCustomNoticeReachGMSOnV2Only() async throws {
        let rig = try await GMSChatRig.start()
        try await rig.channel.listen()
        _ = try await rig.channel.perform(.connect)
        try await rig.until("the greeting") { !rig.agentTexts.isEmpty }
        _ = try await rig.channel.perform(.custom(command: "chat-nickname", arguments: ["nickname": "Amazing Grace"]))
        _ = try await rig.channel.perform(.custom(command: "chat-push-url", arguments: ["url": "https://shop.example/orders/7"]))
        _ = try await rig.channel.perform(.custom(command: "chat-notice", arguments: ["text": "order 7"]))
        try await rig.until("the three rows at GMS") { (rig.simulator.gms.chats.last?.rows.count ?? 0) >= 5 }
        let rows = try #require(rig.simulator.gms.chats.last?.rows).filter { $0.party == .client }
        #expect(rows.contains { $0.kind == .nicknameUpdated && $0.text == "Amazing Grace" })
        #expect(rows.contains { $0.kind == .pushURL && $0.text == "https://shop.example/orders/7" })
        #expect(rows.contains { $0.kind == .customNotice && $0.text == "order 7" })
        await rig.stop()

        let v1 = try await GMSChatRig.start(apiVersion: 1)
        try await v1.channel.listen()
        _ = try await v1.channel.perform(.connect)
        do {
            _ = try await v1.channel.perform(.custom(command: "chat-push-url", arguments: ["url": "https://shop.example"]))
            Issue.record("v1 has no pushUrl")
        } catch let error as ChannelError {
            #expect(error.code == .unsupported)
            #expect(error.message == "gms-chat: GMS chat API v1 has no customer operation for a pushed URL; it needs api-version = 2")
        }
        await v1.stop()
    }

    @Test func endingTheChatForgetsItsKeysAndClosesTheThread() async throws {
        let rig = try await GMSChatRig.start()
        try await rig.channel.listen()
        _ = try await rig.channel.perform(.connect)
        try await rig.until("the greeting") { !rig.agentTexts.isEmpty }
        _ = try await rig.channel.perform(.endConversation(threadID: nil))
        try await rig.until("the thread closed") {
            rig.host.events.contains { if case .threadUpdated(let thread) = $0 { thread.state == .closed } else { false } }
        }
        #expect(rig.host.inMemorySecrets.all["secure-key"] == nil)
        #expect(rig.simulator.gms.chats.last?.isEnded == true)
        await rig.stop()
    }
}
