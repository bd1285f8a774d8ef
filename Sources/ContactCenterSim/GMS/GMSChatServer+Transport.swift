import NIOCore
import NIOWebSocket
import Synchronization

/// How Bayeux messages reach the server, over long-polling (HTTP POST) or a WebSocket, and how the
/// work that the state's functions ask for (answers, pushes, timers) is done once the lock is released.
extension GMSChatServer {
    /// The answer to a request for a GMS path (`/genesys/…`); nil for any other path.
    func route(_ request: HTTPRouteRequest) async -> HTTPReply? {
        guard request.path == "/genesys" || request.path.hasPrefix("/genesys/") else { return nil }
        if self.isDown {
            return .error(503, "GMS is down (injected fault); POST /control/gms/fault?kind=up brings it back")
        }
        if request.path == Self.cometdPath || request.path.hasPrefix(Self.cometdPath + "/") {
            return await self.longPoll(request)
        }
        if request.path.hasPrefix(Self.v1Prefix) { return self.v1Route(request) }
        if request.path.hasPrefix(Self.v2FilePrefix) { return self.v2FileRoute(request) }
        return .error(404, "no GMS endpoint \(request.method) \(request.path): CometD is \(Self.cometdPath), Chat API v1 is under \(Self.v1Prefix)")
    }

    /// A long-polling request: a JSON array (or one message) as the body, or as the form field `message`.
    private func longPoll(_ request: HTTPRouteRequest) async -> HTTPReply {
        guard request.method == "POST" else {
            return .error(405, "\(request.path) takes Bayeux messages by POST (or a WebSocket upgrade), not \(request.method)")
        }
        var body = request.body
        let contentType = request.headers["content-type"] ?? ""
        if contentType.contains("x-www-form-urlencoded") || body.starts(with: Array("message=".utf8)) {
            body = Array((request.formBody["message"] ?? "").utf8)
        } else if body.isEmpty, let message = request.query["message"] {
            body = Array(message.utf8)
        }
        guard let messages = Self.messages(in: body) else {
            let text = String(decoding: body.prefix(120), as: UTF8.self)
            return GMSJSON.array([["successful": false, "error": .string("400::the body is not a Bayeux message or array of messages: \(text)")]])
                .reply(status: 400)
        }
        switch await self.handle(messages, origin: .longPoll(request.connection), gmsUser: request.headers["gms_user"]) {
        case .drop:
            return .dropConnection
        case .raw(let bytes):
            return .encoded(bytes)
        case .answer(let replies):
            var reply = GMSJSON.array(replies).reply()
            let handshook = replies.contains { $0["channel"]?.string == "/meta/handshake" && $0["successful"] == true }
            if handshook {
                reply.headers.append(("Set-Cookie", "BAYEUX_BROWSER=\(GMSIdentifiers.random(24)); Path=/; HttpOnly"))
            }
            return reply
        }
    }

    /// A JSON array of message objects, or one object.
    static func messages(in body: [UInt8]) -> [GMSJSON]? {
        switch GMSJSON.parse(body) {
        case .array(let items) where items.allSatisfy({ $0.object != nil }): items
        case let object? where object.object != nil: [object]
        default: nil
        }
    }

    /// Handles one request's messages; for a long-poll, waits for the connect among them to be answered.
    /// Over a socket every answer is sent on it, and the result is empty.
    func handle(_ messages: [GMSJSON], origin: BayeuxOrigin, gmsUser: String?) async -> BayeuxPollOutcome {
        let (replies, connect) = self.handleAllButConnect(messages, origin: origin, gmsUser: gmsUser)
        guard let connect, case .longPoll(let link) = origin else { return .answer(replies) }
        let outcome = await withCheckedContinuation { continuation in
            self.perform(self.state.withLock { self.connect(connect, gmsUser: gmsUser, waiter: .longPoll(continuation, link), &$0) })
        }
        switch outcome {
        case .drop: return .drop
        case .raw(let bytes): return .raw(bytes)
        case .answer(let connectReplies): return .answer(replies + connectReplies)
        }
    }

    /// Every message but `/meta/connect`, in order; returns the answers and the connect. A handshake is
    /// handled alone (Bayeux: the server ignores what else came with it). Over a socket the answers are
    /// sent at once and the connect is handled here too (it is answered on the socket later).
    private func handleAllButConnect(_ messages: [GMSJSON], origin: BayeuxOrigin, gmsUser: String?) -> ([GMSJSON], GMSJSON?) {
        var replies: [GMSJSON] = []
        var connect: GMSJSON?
        if let handshake = messages.first(where: { $0["channel"]?.string == "/meta/handshake" }) {
            let (reply, effects) = self.state.withLock { self.handshake(handshake, gmsUser: gmsUser, origin: origin, &$0) }
            replies = [reply]
            self.perform(effects)
        } else {
            for message in messages {
                if message["channel"]?.string == "/meta/connect" {
                    connect = message
                    continue
                }
                let (answers, effects) = self.state.withLock { self.handleMessage(message, gmsUser: gmsUser, origin: origin, &$0) }
                replies += answers
                self.perform(effects)
            }
        }
        guard case .socket(let socket) = origin else { return (replies, connect) }
        if !replies.isEmpty { socket.send(replies) }
        if let connect { self.perform(self.state.withLock { self.connect(connect, gmsUser: gmsUser, waiter: .socket(socket), &$0) }) }
        return ([], nil)
    }

    /// A frame from a WebSocket: handled on the socket's event loop, in order.
    func receive(_ bytes: [UInt8], on socket: BayeuxSocket) {
        guard !self.isDown else { return socket.drop() }
        guard let messages = Self.messages(in: bytes) else {
            let text = String(decoding: bytes.prefix(120), as: UTF8.self)
            return socket.send([["successful": false, "error": .string("400::the frame is not a Bayeux message or array of messages: \(text)")]])
        }
        _ = self.handleAllButConnect(messages, origin: .socket(socket), gmsUser: socket.gmsUser)
    }

    // MARK: WebSocket

    /// The CometD WebSocket: `ws://HOST:PORT/genesys/cometd` (and paths below it), no subprotocol.
    var webSocketEndpoint: WebSocketEndpoint {
        WebSocketEndpoint(
            path: Self.cometdPath,
            includesSubpaths: true,
            accepts: { [weak self] _ in self?.isDown == false && self?.settings.webSocket == true }
        ) { [weak self] request, channel in
            guard let self else { throw ChannelError.ioOnClosedChannel }
            let socket = BayeuxSocket(id: self.nextSocketID(), gmsUser: request.headers["gms_user"], channel: channel)
            try channel.pipeline.syncOperations.addHandler(
                NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 256, maxAccumulatedFrameSize: 1 << 22)
            )
            try channel.pipeline.syncOperations.addHandler(BayeuxSocketHandler(server: self, socket: socket))
        }
    }

    private func nextSocketID() -> Int {
        self.state.withLock { state in
            defer { state.nextSocket += 1 }
            return state.nextSocket
        }
    }

    /// Registers an upgraded socket; one accepted just as GMS went down is dropped.
    func socketOpened(_ socket: BayeuxSocket) {
        let accepted = self.state.withLock { state in
            guard !state.isDown, !state.isStopped else { return false }
            state.sockets[socket.id] = socket
            return true
        }
        if !accepted { socket.drop() }
    }

    func socketClosed(_ socket: BayeuxSocket) {
        self.perform(self.state.withLock { self.socketClosed(socket, &$0) })
    }

    // MARK: Effects

    func perform(_ effects: [GMSEffect]) {
        for effect in effects {
            switch effect {
            case .resume(let continuation, let outcome):
                continuation.resume(returning: outcome)
            case .send(let socket, let messages):
                socket.send(messages)
            case .sendRaw(let socket, let bytes):
                socket.send(raw: bytes)
            case .closeLink(let link):
                link.close()
            case .dropSocket(let socket):
                socket.drop()
            case .expireLater(let client, let epoch):
                self.later(self.settings.clientWindow) { server in server.state.withLock { server.expire(client: client, epoch: epoch, &$0) } }
            case .answerHeldLater(let client, let epoch, let hold):
                self.later(hold) { server in server.perform(server.state.withLock { server.answerHeld(client: client, epoch: epoch, &$0) }) }
            case .watchClose(let link, let client, let epoch):
                link.onClose { [weak self] in
                    guard let self else { return }
                    self.perform(self.state.withLock { self.longPollClosed(client: client, epoch: epoch, &$0) })
                }
            case .greetLater(let chat):
                self.later(self.settings.greetingDelay) { server in server.agentGreets(chatID: chat) }
            case .autoReplyLater(let chat, let text):
                self.later(self.settings.autoReplyDelay) { server in try? server.agentSays("You said: \(text)", chatID: chat) }
            }
        }
    }

    /// Runs `body` after `delay`, unless the simulator has stopped by then.
    private func later(_ delay: Duration, _ body: @escaping @Sendable (GMSChatServer) -> Void) {
        Task { [weak self] in
            try? await Task.sleep(for: delay)
            guard let self, !self.state.withLock({ $0.isStopped }) else { return }
            body(self)
        }
    }
}
