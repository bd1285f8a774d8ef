import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation
import Testing

/// The CXoneChat plugin on the test kit's network, the test as CXone (``CXoneGateway``): the channel's
/// REST endpoints and the chat gateway's WebSocket, with no simulator and nothing of the daemon. (Against
/// the simulator's gateway on the daemon's network: CXoneChatDriverTests in PluginIntegrationTests.)
@Suite(.timeLimit(.minutes(2))) struct CXoneChatGatewayTests {
    /// A channel made on a fresh host, running, with the gateway scripted.
    struct Rig {
        let host = InMemoryChannelHost(channelName: "support")
        let gateway: CXoneGateway
        let channel: any Channel
        let running: Task<Void, Never>

        init() throws {
            self.gateway = CXoneGateway(host: self.host)
            let channel = try CXoneChatPlugin.factory.makeChannel(settings: CXoneGateway.settings, host: self.host)
            self.channel = channel
            self.running = Task { await channel.run() }
        }

        /// Listens, with the gateway answering what a listening channel sends on its socket.
        func listening() async throws -> CXoneGateway.Connection {
            let channel = self.channel
            let listening = Task { try await channel.listen() }
            let socket = try await self.gateway.accept()
            try await socket.authorize()
            try await socket.recover()
            try await listening.value
            return socket
        }

        func stop() async {
            await self.channel.stopListening()
            self.running.cancel()
        }

        var messages: [ChatMessage] { self.host.events.compactMap { if case .messageReceived(let message) = $0 { message } else { nil } } }
        var contacts: [Contact] { self.host.events.compactMap { if case .incomingContact(let contact) = $0 { contact } else { nil } } }

        func entered(_ state: ChatState) -> Int {
            self.host.events.filter { if case .chatStateChanged(let entered) = $0 { entered == state } else { false } }.count
        }

        /// Waits until the host heard the message with `id`.
        func heard(_ message: CXoneGateway.Message) async throws {
            try await until("message \"\(message.text)\" reported") { self.messages.contains { $0.id == message.id.lowercased() } }
        }
    }

    /// The single-thread diagram of the CXone SDK: configuration, visitor, socket, AuthorizeCustomer,
    /// thread recovery (none yet), ready; then the agent opens a conversation.
    @Test func aSingleThreadChatListensAndHearsTheAgentOnce() async throws {
        let rig = try Rig()
        let listening = Task { [channel = rig.channel] in try await channel.listen() }
        let socket = try await rig.gateway.accept()

        // Prepared before the socket: the configuration fetched, then the visitor stored with the customer.
        let requests = rig.host.inMemoryNetwork.requests
        #expect(requests.first?.method == "GET" && requests.first?.url == CXoneGateway.configurationURL, "\(requests.map(\.url))")
        let visitor = try #require(requests.first { $0.method == "PUT" }, "\(requests.map(\.url))")
        #expect(visitor.url.hasPrefix(CXoneGateway.visitorsBase))
        let visitorID = String(visitor.url.dropFirst(CXoneGateway.visitorsBase.count))
        let customer = try #require(try CXoneGateway.object(visitor.body ?? [])["customerIdentity"] as? [String: Any])
        #expect(customer["firstName"] as? String == "Grace" && customer["lastName"] as? String == "Hopper", "\(customer)")

        // The socket names the brand, the channel and the visitor.
        #expect(socket.peer.request.url.hasPrefix(CXoneGateway.socketBase + "?"), "\(socket.peer.request.url)")
        let query = socket.query
        #expect(query["brandId"] == "1386" && query["channelId"] == CXoneGateway.channelID, "\(query)")
        #expect(query["visitorId"] == visitorID && !visitorID.isEmpty, "\(query)")

        let authorization = try await socket.authorize()
        #expect(authorization.action == "register")
        #expect(authorization.customer["idOnExternalPlatform"] as? String == customer["idOnExternalPlatform"] as? String)
        #expect((authorization.payload["visitor"] as? [String: Any])?["id"] as? String == visitorID)
        let recovery = try await socket.recover()
        #expect(recovery.threadID == nil, "a new customer has no thread to name: \(recovery)")
        try await listening.value
        #expect(rig.entered(.ready) == 1)

        // The page view of the settings, beside the chat: a visit, then the page.
        try await until("two analytics events") { rig.host.inMemoryNetwork.requests.filter { $0.method == "POST" }.count == 2 }
        let events = try rig.host.inMemoryNetwork.requests.filter { $0.method == "POST" }.map { try CXoneGateway.object($0.body ?? []) }
        #expect(events.map { $0["type"] as? String } == ["VisitorVisit", "PageView"])
        #expect((events.last?["data"] as? [String: Any])?["url"] as? String == "https://shop.example.com/orders")

        // The agent opens a conversation; the gateway delivers the event twice, then the agent goes on.
        let hello = socket.agentSays("Hello, this is Ada. How can I help?")
        socket.created(hello)
        let more = socket.agentSays("Is it about your order?")
        try await rig.heard(more)
        #expect(rig.messages.map(\.text) == [hello.text, more.text])
        let greeting = try #require(rig.messages.first)
        let thread = try #require(rig.gateway.threadID)
        #expect(greeting.direction == .fromAgent && greeting.sender.displayName == "Ada" && greeting.threadID == thread, "\(greeting)")
        // The conversation is one incoming chat contact, whose thread alerts for it.
        #expect(rig.contacts.map(\.id) == [thread], "\(rig.contacts)")
        #expect(rig.contacts.first?.kind == .chat && rig.contacts.first?.threadID == thread)
        await rig.stop()
    }

    /// The outbox: the message is kept (in the store, so across restarts) before its SendMessage goes out,
    /// and leaves it with the gateway's MessageCreated.
    @Test func aSentMessageIsKeptInTheOutboxUntilTheGatewayConfirmsIt() async throws {
        let rig = try Rig()
        let socket = try await rig.listening()

        let sending = Task { [channel = rig.channel] in try await channel.perform(.sendMessage(threadID: nil, text: "Where is my parcel?")) }
        let send = try await socket.expect("SendMessage")
        #expect(send.action == "chatWindowEvent")
        let content = send.data["messageContent"] as? [String: Any]
        #expect(content?["type"] as? String == "TEXT" && (content?["payload"] as? [String: Any])?["text"] as? String == "Where is my parcel?")
        let messageID = try #require(send.data["idOnExternalPlatform"] as? String, "\(send)")
        let threadID = try #require(send.threadID, "\(send)")
        #expect((send.payload["destination"] as? [String: Any])?["id"] as? String == threadID)

        let kept = await rig.host.inMemoryStore.pendingOutbox()
        #expect(kept.count == 1, "\(kept)")
        let entry = try CXoneGateway.object(Array((kept.first?.payload ?? "").utf8))
        #expect((entry["messageID"] as? String)?.lowercased() == messageID.lowercased() && entry["text"] as? String == "Where is my parcel?")

        socket.confirm(send)
        let reply = try await sending.value
        #expect(reply == .fields(["delivery": "sent", "message": messageID.lowercased(), "thread": threadID.lowercased()]), "\(reply)")
        try await until("the outbox emptied") { await rig.host.inMemoryStore.pendingOutbox().isEmpty }
        await rig.stop()
    }

    /// The gateway closes the socket: the channel waits its backoff on the host's clock, opens a new one,
    /// authorizes again and recovers the thread; what the agent wrote meanwhile is reported, what was
    /// reported before is not reported again.
    @Test func aClosedSocketIsReopenedAndTheThreadRecoveredWithoutDuplicates() async throws {
        let rig = try Rig()
        let socket = try await rig.listening()
        let hello = socket.agentSays("Hello, this is Ada.")
        try await rig.heard(hello)

        socket.peer.close(code: 1011, reason: "restarting")
        let meanwhile = rig.gateway.agentWrites("Are you still there?")
        let again = try await rig.gateway.reopened(count: 2)
        #expect(again.query["visitorId"] == socket.query["visitorId"])
        try await again.authorize()
        let recovery = try await again.recover()
        #expect(recovery.threadID?.lowercased() == rig.gateway.threadID, "the known thread is recovered: \(recovery)")
        try await rig.heard(meanwhile)
        try await until("the chat is ready again") { rig.entered(.ready) == 2 }

        #expect(rig.messages.map(\.text) == [hello.text, meanwhile.text], "each once")
        #expect(rig.contacts.count == 1)
        #expect(rig.host.logRecords.text.contains("reconnecting (attempt 1)"), "\(rig.host.logRecords.text)")
        #expect(rig.host.inMemoryNetwork.webSockets.count == 2)
        await rig.stop()
    }

    /// A frame that is not JSON and one that lacks its event's fields: each named in the log by its size
    /// and what is wrong, never by its content, and the chat goes on.
    @Test func aMalformedFrameIsNamedInTheLogAndTheChatGoesOn() async throws {
        let rig = try Rig()
        let socket = try await rig.listening()

        let incomplete = #"{"eventId":"e-1","eventType":"MessageCreated","data":{"thread":{"idOnExternalPlatform":"t-secret"}}}"#
        socket.peer.send(text: incomplete)
        socket.peer.send(text: "parcel 4711 is late")
        let hello = socket.agentSays("Hello, this is Ada.")
        try await rig.heard(hello)

        let warnings = rig.host.logRecords.all.filter { $0.level == .warning }.map(\.message)
        #expect(warnings.count == 2, "\(warnings)")
        let prefix = "cxone-chat: ignored a frame from \(CXoneGateway.socketBase)"
        #expect(warnings.first?.hasPrefix("\(prefix) (\(incomplete.utf8.count) bytes): ") == true, "\(warnings)")
        #expect(warnings.first?.hasSuffix("data.message is missing in MessageCreated") == true, "\(warnings)")
        #expect(warnings.last?.hasPrefix("\(prefix) (19 bytes): ") == true && warnings.last?.hasSuffix("is not valid JSON") == true, "\(warnings)")
        #expect(!rig.host.logRecords.text.contains("t-secret") && !rig.host.logRecords.text.contains("4711"))
        #expect(rig.messages.map(\.text) == [hello.text])
        let status = try await rig.channel.perform(.custom(command: "chat-status", arguments: [:]))
        guard case .fields(let fields) = status else { throw CXoneGateway.Failure(description: "chat-status answered \(status)") }
        #expect(fields["frames-rejected"] == "2" && fields["state"] == "ready", "\(fields)")
        await rig.stop()
    }
}
