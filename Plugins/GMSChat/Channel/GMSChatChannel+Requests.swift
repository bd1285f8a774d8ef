import AttendantPluginAPI
import AttendantPluginKit
import GMSCore
import Synchronization

// The channel's life under the supervisor, and the user's chat operations.
extension GMSChatChannel {
    // MARK: Channel

    /// Starts the CometD session and returns once its first connect succeeded; a chat kept from before
    /// resumes (its events after the stored position are asked for), and `auto-start` starts one.
    func listen() async throws {
        try await self.loadIfNeeded()
        let timeout = self.configuration.machine.networkDelay * 3
        let now = self.host.now()
        _ = try await self.driver.request { session, id in session.listen(id, timeout: timeout, now: now) }
        _ = self.driver.withSession { $0.listened() }
        if self.configuration.autoStart, self.driver.withSession({ $0.phase != .active }) == true {
            try await self.startChat()
        }
    }

    /// Says goodbye with the transcript position, as in the background: the chat stays for the next start.
    func stopListening() async {
        _ = self.driver.withSession { $0.stopListening() }
        await self.disconnect()
        await self.driver.stop(failing: ChannelError(.transient, "\(self.prefix): the channel is stopping")) { _ in [] }
    }

    /// The Bayeux client reconnects by itself; the keep-alive reports a session the server stopped.
    func keepAlive() async throws {
        guard self.driver.withSession({ $0.presence.sessionIsOver }) == false else {
            throw ChannelError(.transient, "\(self.prefix): the session with \(self.serverDescription) is over")
        }
    }

    /// Background: `/meta/disconnect` with the highest transcript position shown, before the machine
    /// sleeps (the host waits for this, inside logind's delay lock). Foreground: a new session, which asks
    /// GMS for everything after that position.
    func applicationStateDidChange(_ applicationState: ApplicationState) async {
        if applicationState == .background {
            guard self.driver.withSession({ $0.enterBackground() }) == true else { return }
            let position = self.driver.withSession { $0.ledger.shown } ?? 0
            self.host.logger.info(
                "\(self.prefix): going to the background: disconnecting from \(self.serverDescription) at transcript position \(position)"
            )
            await self.disconnect()
            await self.driver.drain()
            return
        }
        guard self.driver.withSession({ $0.enterForeground() }) == true else { return }
        self.host.logger.info("\(self.prefix): back in the foreground: a new session with \(self.serverDescription)")
        let now = self.host.now()
        self.driver.step { $0.startSession(now: now) }
    }

    /// `/meta/disconnect` with the highest position shown; returns once the session ended.
    func disconnect() async {
        let now = self.host.now()
        _ = try? await self.driver.request { session, id in session.disconnect(id, now: now) }
    }

    // MARK: Requests

    /// What attendantctl and D-Bus clients ask (GMSCore's ``GMSChatCommand``).
    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        try await self.loadIfNeeded()
        switch try GMSChatCommand(request, apiVersion: self.configuration.apiVersion) {
        case .start:
            try await self.startChat()
            return .done
        case .listThreads:
            return .threads(self.driver.withSession { $0.listThreads() } ?? [])
        case .openThread(let threadID):
            return try await self.driver.request { session, id throws(ChannelError) in try session.openThread(id, threadID: threadID) }
        case .loadOlder(let threadID):
            return try await self.driver.request { session, id throws(ChannelError) in try session.loadOlderMessages(id, threadID: threadID) }
        case .download(let messageID, let attachmentID):
            return try await self.download(messageID: messageID, attachmentID: attachmentID)
        case .sendFile(let file):
            return try await self.sendFile(file)
        case .status:
            return .fields(self.statusFields())
        case .operate(let operation):
            if operation.startsChat { try await self.startChat() }
            try await self.operate(operation)
            return operation.reply
        }
    }

    /// Starts a chat unless one is active, and returns once GMS gave its keys.
    func startChat() async throws {
        let timeout = self.configuration.machine.networkDelay * 2
        _ = try await self.driver.request { session, id throws(ChannelError) in try session.startChat(id, timeout: timeout) }
    }

    /// A chat operation with the chat's keys: a v2 publish, or a v1 POST to `…/ixn/chat/<op>`.
    func operate(_ operation: GMSChatOperation) async throws {
        let keys = self.driver.withSession { $0.phase == .active ? $0.keys : nil } ?? nil
        let noChat = ChannelError(.illegalState, "\(self.prefix): there is no chat; start one with `attendantctl chat connect`")
        if self.configuration.apiVersion == 2 {
            guard let keys, let data = GMSChatV2Operation.operation(operation.v2, keys: keys, fields: operation.fields) else { throw noChat }
            try await self.publish(data, what: "\(operation.v2) to")
        } else {
            guard let serviceID = keys?.serviceID else { throw noChat }
            let reply = try await self.post(.operation(operation.v1, serviceID: serviceID, fields: operation.fields))
            if let event = try? GMSChatV1Form.event(reply, serviceID: serviceID) { self.received(event) }
        }
    }

    func statusFields() -> [String: String] {
        let now = self.host.now()
        var fields = self.driver.withSession { $0.status(now: now) } ?? [:]
        fields["server"] = self.configuration.baseURL
        fields["api-version"] = String(self.configuration.apiVersion)
        fields["service"] = self.configuration.service
        return fields
    }
}
