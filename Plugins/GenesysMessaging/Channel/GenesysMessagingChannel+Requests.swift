import AttendantPluginAPI
import AttendantPluginKit
import GenesysCore

// The channel's life under the supervisor, and the user's requests.
extension GenesysMessagingChannel {
    /// Fetches the deployment's configuration (once) and configures the session with the token kept in the
    /// secrets; returns once it is configured (or read-only).
    func listen() async throws {
        try await self.loadIfNeeded()
        let timeout = self.configuration.requestTimeout * 3
        let now = self.host.now()
        _ = try await self.driver.request { session, id in session.listen(id, timeout: timeout, now: now) }
    }

    /// Closes the socket; the service keeps the session and its conversation for the next start.
    func stopListening() async {
        let now = self.host.now()
        await self.driver.stop(failing: ChannelError(.transient, "\(self.prefix): the channel is stopping")) { $0.stopListening(now: now) }
    }

    /// The keep-alive cycle sends `echo` (at most one per 30 s, SDK `HealthCheckProvider`); a session that
    /// ended is reported.
    func keepAlive() async throws {
        let now = self.host.now()
        var over = false
        self.driver.step { session in
            guard let actions = session.keepAlive(now: now) else {
                over = true
                return []
            }
            return actions
        }
        if over || !self.driver.isLoaded {
            throw ChannelError(.transient, "\(self.prefix): the session with \(self.configuration.serverDescription) is over")
        }
    }

    /// Background: the socket closes before the machine sleeps. Foreground: the session is configured
    /// again with its token.
    func applicationStateDidChange(_ applicationState: ApplicationState) async {
        let now = self.host.now()
        if applicationState == .background {
            self.driver.step { $0.goToBackground(now: now) }
            await self.driver.drain()
        } else {
            self.driver.step { $0.comeToForeground(now: now) }
        }
    }

    /// What attendantctl and D-Bus clients ask (GenesysCore's ``GenesysChatCommand``).
    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        try await self.loadIfNeeded()
        let command = try GenesysChatCommand(request)
        let now = self.host.now()
        switch command {
        case .ready:
            return .done
        case .status:
            return .fields(self.driver.withSession { $0.status() } ?? [:])
        case .listThreads:
            return .threads(self.driver.withSession { $0.threads } ?? [])
        case .openThread(let threadID):
            return try self.session { session throws(ChannelError) in try session.openThread(threadID) }
        case .endConversation:
            return try self.session { session throws(ChannelError) in try session.endConversation() }
        case .typing(let started):
            try self.driver.step(throwing: { session throws(ChannelError) in try session.typing(started: started, now: now) })
            return .fields(["typing": started ? "started" : "stopped"])
        case .send(let text):
            return try await self.driver.request { session, id throws(ChannelError) in try session.send(.text(text), id, now: now) }
        case .choose(let messageID, let choiceID):
            return try await self.driver.request { session, id throws(ChannelError) in
                try session.choose(messageID: messageID, choiceID: choiceID, id, now: now)
            }
        case .download(let messageID, let attachmentID):
            let (request, file) = try self.session { session throws(ChannelError) in
                try session.download(messageID: messageID, attachmentID: attachmentID, maximumSize: self.configuration.maximumAttachmentSize)
            }
            var response = try await self.fetch(request, file)
            if Self.expiredURLStatuses.contains(response.status) {
                // The stored URL expired: a fresh one (getAttachment, SDK `refreshAttachmentUrl`), tried once.
                self.host.logger.info(
                    "\(self.prefix): the download URL of \(file.name) was refused (HTTP \(response.status)); asking for a fresh one"
                )
                _ = try await self.driver.request { session, id throws(ChannelError) in
                    try session.refreshDownload(messageID: messageID, attachmentID: attachmentID, id, now: now)
                }
                let (fresh, _) = try self.session { session throws(ChannelError) in
                    try session.download(messageID: messageID, attachmentID: attachmentID, maximumSize: self.configuration.maximumAttachmentSize)
                }
                response = try await self.fetch(fresh, file)
            }
            guard response.status == 200 else {
                throw ChannelError(.server, "\(self.prefix): could not fetch \(file.name): HTTP \(response.status)")
            }
            var fetched = file
            fetched.bytes = response.body
            return .file(fetched)
        case .sendFile(let file):
            return try await self.driver.request { session, id throws(ChannelError) in try session.sendFile(file, id, now: now) }
        case .newChat:
            return try await self.driver.request { session, id throws(ChannelError) in try session.startNewChat(id, now: now) }
        }
    }

    /// The GET of a file the agent sent, from its presigned URL (which no message names).
    func fetch(_ request: NetworkRequest, _ file: ChatFile) async throws(ChannelError) -> NetworkResponse {
        do throws(NetworkError) {
            return try await self.host.network.send(request)
        } catch {
            let code: ChannelError.Code = error.kind == .tooLarge ? .invalidArgument : .transient
            throw ChannelError(
                code,
                "\(self.prefix): could not fetch \(file.name): \(error.kind == .tooLarge ? "larger than max-attachment-size" : error.message)"
            )
        }
    }

    /// The statuses of a download URL that expired, worth a fresh URL: 403 (what S3 answers a presigned URL
    /// past its `X-Amz-Expires`: AccessDenied "Request has expired") and 404. The SDK leaves the decision to
    /// the app: a `downloadUrl` "typically expires after 10 minutes. If this URL is consumed after the
    /// expiration period, it will result in an error", and `refreshAttachmentUrl` gets a new one
    /// (`core/MessagingClient.kt`). Which statuses count is **decided** here.
    static let expiredURLStatuses: Set<Int> = [403, 404]

    /// What the session makes of a caller's request, under its lock.
    func session<Made>(_ make: (inout Session) throws(ChannelError) -> Made) throws(ChannelError) -> Made {
        let made = self.driver.withSession { session in Result { () throws(ChannelError) in try make(&session) } }
        return try (made ?? .failure(ChannelError(.transient, "\(self.prefix): the channel's state is not loaded yet"))).get()
    }

    /// Reads the store (the thread, the messages shown) and the session token from the secrets, once; the
    /// first start makes the token (a random UUID, SDK `TokenGenerator`) and keeps it there.
    func loadIfNeeded() async throws {
        guard !self.driver.isLoaded else { return }
        var stored: Session.Stored
        do {
            var token = try await self.host.secrets.secret(forKey: Session.tokenSecret)
            if token == nil {
                let made = Session.newToken()
                try await self.host.secrets.setSecret(made, forKey: Session.tokenSecret)
                token = made
                self.host.logger.info("\(self.prefix): made a new session token, kept in the secrets file")
            }
            stored = Session.Stored(store: try await self.host.store.allValues(), token: token ?? "")
            stored.refreshToken = try await self.host.secrets.secret(forKey: Session.refreshTokenSecret)
        } catch {
            throw ChannelError(.transient, "\(self.prefix): could not read or keep the chat's stored state: \(error)")
        }
        // A token source makes the session authenticated: its token is the OAuth code.
        var settings = self.configuration.sessionSettings
        if case .noSource = await self.host.tokenState() {} else { settings.authenticated = true }
        if self.driver.load(Session(settings: settings, stored: stored)), let thread = stored.threadID {
            self.host.logger.info("\(self.prefix): resuming the conversation of thread \(thread) with \(self.configuration.serverDescription)")
        }
    }
}

extension SessionDriver {
    /// A step that may refuse: its error is thrown, and nothing is done.
    func step(throwing event: (inout Session) throws(ChannelError) -> [Action]) throws(ChannelError) {
        var failure: ChannelError?
        self.step { session in
            do throws(ChannelError) {
                return try event(&session)
            } catch {
                failure = error
                return []
            }
        }
        if let failure { throw failure }
    }
}
