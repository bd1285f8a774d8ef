import AttendantPluginAPI
import AttendantPluginKit
import GMSCore

// The channel's life under the supervisor, and the user's requests.
extension GMSChatChannel {
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
        let now = self.host.now()
        _ = try? await self.driver.request { session, id in
            session.stopListening()
            return session.disconnect(id, now: now)
        }
        await self.driver.stop(failing: ChannelError(.transient, "\(self.prefix): the channel is stopping")) { _ in [] }
    }

    /// The Bayeux client reconnects by itself; the keep-alive reports a session the server stopped.
    func keepAlive() async throws {
        guard self.driver.withSession({ $0.presence.sessionIsOver }) == false else {
            throw ChannelError(.transient, "\(self.prefix): the session with \(self.configuration.serverDescription) is over")
        }
    }

    /// Background: `/meta/disconnect` with the highest transcript position shown, before the machine
    /// sleeps (the host waits for this, inside logind's delay lock). Foreground: a new session.
    func applicationStateDidChange(_ applicationState: ApplicationState) async {
        let now = self.host.now()
        guard applicationState == .background else { return self.driver.step { $0.comeToForeground(now: now) } }
        _ = try? await self.driver.request { session, id in session.goToBackground(id, now: now) }
        await self.driver.drain()
    }

    /// What attendantctl and D-Bus clients ask (GMSCore's ``GMSChatCommand``).
    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        try await self.loadIfNeeded()
        let command = try GMSChatCommand(request, apiVersion: self.configuration.apiVersion)
        if command.startsChat { try await self.startChat() }
        let now = self.host.now()
        switch command {
        case .start:
            return .done
        case .listThreads:
            return .threads(self.driver.withSession { $0.listThreads() } ?? [])
        case .openThread(let threadID):
            return try await self.driver.request { session, id throws(ChannelError) in try session.openThread(id, threadID: threadID) }
        case .loadOlder(let threadID):
            return try await self.driver.request { session, id throws(ChannelError) in try session.loadOlderMessages(id, threadID: threadID) }
        case .download(let message, let file):
            return try await self.send(
                try self.session { session throws(ChannelError) in try session.download(messageID: message, attachmentID: file) }
            )
        case .sendFile(let file):
            return try await self.send(try self.session { session throws(ChannelError) in try session.sendFile(file) })
        case .status:
            return .fields(self.driver.withSession { $0.status(now: now) } ?? [:])
        case .operate(let operation):
            // v1: a form POST; v2: a publish, answered once GMS acknowledged it.
            if let call = try self.session({ session throws(ChannelError) in try session.call(for: operation) }) { return try await self.send(call) }
            return try await self.driver.request { session, id throws(ChannelError) in try session.operate(operation, id, now: now) }
        }
    }

    /// Starts a chat unless one is active, and returns once GMS gave its keys.
    func startChat() async throws {
        let timeout = self.configuration.machine.networkDelay * 2
        _ = try await self.driver.request { session, id throws(ChannelError) in try session.startChat(id, timeout: timeout) }
    }

    /// What the session makes of a caller's request, under its lock.
    func session<Made>(_ make: (inout Session) throws(ChannelError) -> Made) throws(ChannelError) -> Made {
        let made = self.driver.withSession { session in Result { () throws(ChannelError) in try make(&session) } }
        return try (made ?? .failure(ChannelError(.transient, "\(self.prefix): the channel's state is not loaded yet"))).get()
    }

    /// Reads what the store (the thread and the position shown) and the secrets (GMS's keys of the chat)
    /// hold, once, and makes the session of it.
    func loadIfNeeded() async throws {
        guard !self.driver.isLoaded else { return }
        let stored: Session.Stored
        do {
            var secrets: [String: String] = [:]
            for name in GMSChatKeys.secretNames { secrets[name] = try await self.host.secrets.secret(forKey: name) }
            stored = Session.Stored(store: try await self.host.store.allValues(), secrets: secrets)
        } catch {
            throw ChannelError(.transient, "\(self.prefix): could not read the chat's stored state: \(error)")
        }
        let session = Session(settings: self.configuration.sessionSettings, transport: self.bayeux, stored: stored)
        if self.driver.load(session), session.phase == .active {
            self.host.logger.info(
                "\(self.prefix): resuming the chat with \(self.configuration.serverDescription) after transcript position \(stored.position)"
            )
        }
    }
}
