import AttendantPluginAPI
import AttendantPluginKit
import CXoneCore
import Synchronization

// The channel's life under the supervisor and the user's chat operations (CXoneCore's ``ChatOperation``s).
extension CXoneChatChannel {
    // MARK: Channel

    /// Prepares and connects the chat (unless `auto-connect` is off) and returns once it is ready: the
    /// customer is authorized, the threads are loaded and the outbox has gone out.
    func listen() async throws {
        try await self.loadIfNeeded()
        await self.useAuthorizationCode(await self.host.currentToken())
        _ = self.driver.withSession { $0.presence.background = false }
        guard self.configuration.autoConnect else {
            _ = self.driver.withSession { $0.presence.listening = true }
            return
        }
        do {
            // Prepared once: an offline live chat's retries only connect (availability again), so the
            // visitor and the page view go out once per visit, as the SDK sends them.
            let (phase, viewing) = self.driver.withSession { ($0.machine.state, $0.machine.isViewingPage) } ?? (.initial, false)
            if phase == .initial {
                _ = try await self.run(self.commands.prepare)
            }
            if !viewing, let title = self.configuration.pageTitle, let url = self.configuration.pageURL {
                _ = try? await self.run(.viewPage(title: title, url: url, at: self.host.now()))
            }
        } catch let error as ChannelError where error.code != .configuration && error.code != .authentication {
            throw ChannelError(.transient, error.message)
        }
        try await self.connectUntilReady()
    }

    /// Connects and waits until the chat is ready; then it listens and earlier errors are over. The
    /// server's refusals and a chat in the wrong state are worth another try later (transient).
    private func connectUntilReady() async throws {
        do {
            _ = try await self.run(self.commands.connect)
        } catch let error as ChannelError where error.code != .configuration && error.code != .authentication {
            throw ChannelError(.transient, error.message)
        }
        _ = self.driver.withSession { $0.presence.connected() }
    }

    func stopListening() async {
        await self.driver.stop(failing: ChannelError(.transient, "\(self.prefix): the channel is stopping")) { session in
            session.presence.listening = false
            return session.run { $0.disconnect() }
        }
    }

    /// The keep-alive: each cycle, and at once after a network change or a resume. The machine's own
    /// heartbeat checks the socket every 10 s; here a ready chat sends one now and returns on its pong,
    /// so a socket the change broke is found within the pong timeout (5 s). A chat whose socket is lost
    /// (found so now, or before) reconnects at once instead of at the end of the CXone SDK's backoff,
    /// and the keep-alive returns when it is ready again: DESIGN.md retries at once on resume or network
    /// change. A chat that gave up reconnecting told the host already; the keep-alive fails as before.
    func keepAlive() async throws {
        let (phase, background) = self.driver.withSession { ($0.machine.state, $0.presence.background) } ?? (.initial, false)
        guard !background, self.configuration.autoConnect else { return }
        switch phase {
        case .closed:
            return
        case .ready:
            do {
                _ = try await self.run(self.commands.checkConnection)
                return
            } catch let error as ChannelError where error.code != .configuration && error.code != .authentication {
                // The socket is gone or did not answer: connect again below, at once.
            }
        case .connecting, .connected:
            break
        default:
            throw ChannelError(.transient, "\(self.prefix): the chat with \(self.configuration.gatewayDescription) is \(phase), not ready")
        }
        try await self.connectUntilReady()
    }

    /// With OAuth the channel's token is the authorization code for AuthorizeCustomer.
    func tokenDidChange(_ token: ChannelToken) async {
        await self.useAuthorizationCode(token)
    }

    func useAuthorizationCode(_ token: ChannelToken?) async {
        let verifier = self.configuration.codeVerifier
        _ = self.driver.withSession { $0.machine.setAuthorization(code: token?.value, verifier: verifier) }
    }

    /// Background: the page view ends and the connection closes; foreground: it connects again at once.
    func applicationStateDidChange(_ applicationState: ApplicationState) async {
        let now = self.host.now()
        self.driver.step { session in
            session.presence.background = applicationState == .background
            return session.run { applicationState == .background ? $0.background(at: now) : $0.foreground() }
        }
    }

    // MARK: Requests

    /// What attendantctl and D-Bus clients ask (CXoneCore's ``ChatCommand``).
    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        try await self.loadIfNeeded()
        let command = try ChatCommand(request, settings: self.commands, now: self.host.now())
        switch command {
        case .operation(let operation): return try await self.run(operation)
        case .listThreads: return .threads(self.driver.withSession { $0.machine.threads } ?? [])
        case .status: return .fields(self.statusFields())
        case .preChatForm: return .fields(self.driver.withSession { $0.machine.preChatFormFields } ?? [:])
        case .choose(let choice):
            return try await self.driver.request { session, id throws(ChannelError) in try session.choose(choice, id: id) }
        case .loadOlder(let threadID, let timeout):
            return try await self.driver.request { session, id throws(ChannelError) in
                try session.loadOlder(threadID: threadID, timeout: timeout, id: id)
            }
        case .sendTranscript(let threadID, let email, let timeout):
            return try await self.driver.request { session, id throws(ChannelError) in
                try session.sendTranscript(threadID: threadID, email: email, timeout: timeout, id: id)
            }
        case .downloadAttachment, .sendFile:
            let made = self.driver.withSession { session in Result { () throws(ChannelError) in try session.fileCall(command, self.commands) } }
            guard let file = try made?.get() else { throw ChannelError(.illegalState, "\(self.prefix): the chat is not loaded yet") }
            switch try file.answer(await self.send(file.call), now: self.host.now()) {
            case .reply(let reply): return reply
            case .then(let operation): return try await self.run(operation)
            }
        }
    }

    func statusFields() -> [String: String] {
        var fields = self.driver.withSession { $0.statusFields() } ?? ["state": ChatState.initial.rawValue]
        fields["brand-id"] = String(self.configuration.brandID)
        fields["channel-id"] = self.configuration.channelID
        return fields
    }

    /// Starts `operation` and waits until it settles, or its timeout passes.
    func run(_ operation: ChatOperation) async throws -> ChannelReply {
        try await self.driver.request { session, id throws(ChannelError) in try session.begin(operation, id: id) }
    }
}
