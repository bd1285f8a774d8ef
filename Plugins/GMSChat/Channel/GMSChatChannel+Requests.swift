import AttendantPluginAPI
import AttendantPluginKit
import GMSBayeux
import GMSCore
import Synchronization

// The channel's life under the supervisor, and the user's chat operations.
extension GMSChatChannel {
    // MARK: Channel

    /// Starts the CometD session and returns once its first connect succeeded; a chat kept from before
    /// resumes (its events after the stored position are asked for), and `auto-start` starts one.
    func listen() async throws {
        try await self.loadIfNeeded()
        _ = self.driver.withSession { $0.background = false }
        if self.configuration.apiVersion == 1 {
            self.bayeux.subscribe("/_genesys")
        } else {
            self.bayeux.subscribe(self.configuration.serviceChannel)
        }
        self.bayeux.start()
        let timeout = self.configuration.machine.networkDelay * 3
        _ = try await self.driver.request { session, id in session.awaitConnect(id, timeout: timeout) }
        _ = self.driver.withSession { $0.listened() }
        if self.configuration.autoStart, self.driver.withSession({ $0.phase != .active }) == true {
            try await self.startChat()
        }
    }

    /// Says goodbye with the transcript position, as in the background: the chat stays for the next start.
    func stopListening() async {
        _ = self.driver.withSession { $0.listening = false }
        await self.bayeux.disconnect(ext: self.positionExt())
        await self.driver.stop(failing: ChannelError(.transient, "\(self.prefix): the channel is stopping")) { _ in [] }
    }

    /// The Bayeux client reconnects by itself; the keep-alive reports a session the server stopped.
    func keepAlive() async throws {
        let (background, listening) = self.driver.withSession { ($0.background, $0.listening) } ?? (false, false)
        guard !background else { return }
        guard listening else {
            throw ChannelError(.transient, "\(self.prefix): the session with \(self.serverDescription) is over")
        }
    }

    /// Background: `/meta/disconnect` with the highest transcript position shown, before the machine
    /// sleeps (the host waits for this, inside logind's delay lock). Foreground: a new session, which asks
    /// GMS for everything after that position.
    func applicationStateDidChange(_ applicationState: ApplicationState) async {
        if applicationState == .background {
            let wasListening = self.driver.withSession { session -> Bool in
                session.background = true
                return session.listening
            }
            guard wasListening == true else { return }
            let ext = self.positionExt()
            self.host.logger.info("\(self.prefix): going to the background: disconnecting from \(self.serverDescription) at transcript position \(ext["transcriptPosition"]?.stringValue ?? "0")")
            await self.bayeux.disconnect(ext: ext)
            await self.driver.drain()
            return
        }
        let resume = self.driver.withSession { session -> Bool in
            defer { session.background = false }
            return session.background && session.listening
        }
        guard resume == true else { return }
        self.host.logger.info("\(self.prefix): back in the foreground: a new session with \(self.serverDescription)")
        self.bayeux.start()
    }

    /// `ext` of a disconnect: the highest position shown, as a string, as the seed shows it.
    func positionExt() -> [String: JSONValue] {
        ["transcriptPosition": .string(String(self.driver.withSession { $0.ledger.shown } ?? 0))]
    }

    // MARK: Requests

    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        try await self.loadIfNeeded()
        switch request {
        case .prepare, .connect:
            try await self.startChat()
            return .done
        case .listThreads:
            return .threads(self.driver.withSession { $0.threads } ?? [])
        case .sendMessage(_, let text):
            try await self.startChat()
            try await self.operate(v2: "sendMessage", v1: "send", fields: ["message": text])
            return .done
        case .typing(_, let started):
            try await self.operate(v2: started ? "startTyping" : "stopTyping", v1: started ? "startTyping" : "stopTyping", fields: [:])
            return .fields(["typing": started ? "started" : "stopped"])
        case .custom("chat-typing", let arguments):
            let started = (arguments["state"] ?? "started") == "started"
            return try await self.perform(.typing(threadID: arguments["thread"], started: started))
        case .endConversation:
            try await self.operate(v2: "disconnect", v1: "disconnect", fields: [:])
            return .done
        case .custom("chat-status", _):
            return .fields(self.statusFields())
        case .custom("chat-nickname", let arguments):
            try await self.operateV2Only("updateNickname", ["nickname": arguments["nickname"] ?? ""], what: "a nickname change")
            return .fields(["operation": "updateNickname"])
        case .custom("chat-push-url", let arguments):
            try await self.operateV2Only("pushUrl", ["pushUrl": arguments["url"] ?? ""], what: "a pushed URL")
            return .fields(["operation": "pushUrl"])
        case .custom("chat-notice", let arguments):
            try await self.operateV2Only("customNotice", ["message": arguments["text"] ?? ""], what: "a custom notice")
            return .fields(["operation": "customNotice"])
        default:
            throw ChannelError(
                .unsupported,
                "\(self.prefix): no \(request.name) requests here; it knows prepare, connect, list-threads, send-message, typing, end-conversation, chat-status, chat-nickname, chat-push-url and chat-notice"
            )
        }
    }

    /// Starts a chat unless one is active, and returns once GMS gave its keys.
    func startChat() async throws {
        let timeout = self.configuration.machine.networkDelay * 2
        _ = try await self.driver.request { session, id throws(ChannelError) in try session.startChat(id, timeout: timeout) }
    }

    /// A chat operation with the chat's keys: a v2 publish, or a v1 POST to `…/ixn/chat/<op>`.
    func operate(v2: String, v1: String, fields: [String: String]) async throws {
        let keys = self.driver.withSession { $0.phase == .active ? $0.keys : nil } ?? nil
        let noChat = ChannelError(.illegalState, "\(self.prefix): there is no chat; start one with `attendantctl chat connect`")
        if self.configuration.apiVersion == 2 {
            guard let keys, let data = GMSChatV2Operation.operation(v2, keys: keys, fields: fields) else { throw noChat }
            try await self.publish(data, what: "\(v2) to")
        } else {
            guard let serviceID = keys?.serviceID else { throw noChat }
            if let event = try await self.v1.operate(v1, serviceID: serviceID, fields: fields) { self.received(event) }
        }
    }

    /// An operation only chat API v2 has (v1's HTTP operations have no customer side for it).
    func operateV2Only(_ operation: String, _ fields: [String: String], what: String) async throws {
        guard self.configuration.apiVersion == 2 else {
            throw ChannelError(.unsupported, "\(self.prefix): GMS chat API v1 has no customer operation for \(what); it needs api-version = 2")
        }
        guard fields.values.allSatisfy({ !$0.isEmpty }) else {
            throw ChannelError(.illegalState, "\(self.prefix): \(what) needs \(fields.keys.sorted().joined(separator: " and "))")
        }
        try await self.operate(v2: operation, v1: operation, fields: fields)
    }

    func statusFields() -> [String: String] {
        var fields = self.driver.withSession { $0.statusFields() } ?? [:]
        fields.merge(self.bayeux.status.fields) { _, bayeux in bayeux }
        fields["server"] = self.configuration.baseURL
        fields["api-version"] = String(self.configuration.apiVersion)
        fields["service"] = self.configuration.service
        return fields
    }
}
