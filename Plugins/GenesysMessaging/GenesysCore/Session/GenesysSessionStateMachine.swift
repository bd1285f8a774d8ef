import AttendantPluginKit

/// One web messaging session on one socket, without I/O or a clock of its own (SDK
/// `core/MessagingClientImpl.kt`, `core/StateMachineImpl.kt`, `core/events/HealthCheckProvider.kt`,
/// `core/events/UserTypingProvider.kt`, `network/ReconnectionHandlerImpl.kt`).
///
/// The driver feeds events (``start()``, ``socketOpened(now:)``, ``received(_:now:)``,
/// ``socketFailed(now:)``, ``timerFired(_:now:)``, ``keepAlive(now:)``, ``typing(now:)``,
/// ``send(_:now:)``, ``startNewChat()``, ``stop()``) and carries out the returned ``Action``s.
///
/// Rules:
/// - ``start()`` opens the socket; once open, `configureSession` (with `startNew` when a new chat was
///   asked for) configures it.
/// - A `SessionResponse` without `readOnly` makes the session configured: messages may be sent. With
///   `newSession` and the deployment's autostart, autostart (presence Join) is sent. A `SessionResponse`
///   ends a run of reconnection attempts.
/// - A `SessionResponse` with `readOnly`, or an agent's presence `Disconnect` whose metadata says
///   `readOnly`, makes the session read-only: nothing may be sent until ``startNewChat()``, which sends
///   `closeSession` (all connections); the server's `SessionResponse` with `connected: false` then
///   leads to `configureSession` with `startNew`.
/// - A lost socket is retried after the configuration's backoff, up to its number of attempts; then the
///   session fails. A `ConnectionClosedEvent` (the session closed from elsewhere) closes the socket
///   and is not retried.
/// - `SessionExpiredEvent`, `LogoutEvent` and the error codes 4006, 4007 and 4017 fail the session. An HTTP-class error
///   while configuring fails it too (authenticated sessions, which retry after a JWT refresh, come later).
/// - ``keepAlive(now:)`` sends `echo` at most once per ``GenesysSessionConfiguration/echoCooldown``; one
///   asked for sooner is sent when the cool-down ends (a timer), as the SDK defers it.
/// - ``typing(now:)`` sends our typing notice at most once per
///   ``GenesysSessionConfiguration/typingCooldown`` and only when the deployment shows it; our own
///   message coming back resets the cool-down.
package struct GenesysSessionStateMachine: Sendable {
    package enum Timer: Sendable, Hashable {
        case reconnect
        /// A deferred echo.
        case echo
    }

    package enum Action: Sendable, Hashable {
        case openSocket
        case closeSocket
        case send(GenesysRequest)
        case setTimer(Timer, after: Duration)
        case cancelTimer(Timer)
        /// Messages may be sent.
        case configured(GenesysSessionResponse)
        /// The conversation was disconnected: read-only until a new chat.
        case readOnly
        /// The session ended; ``start()`` begins again.
        case failed(GenesysSessionFailure)
        /// A send or typing the session cannot make now, with why.
        case refused(String)
    }

    /// What exists only while the socket is configured: the cool-downs.
    package struct Live: Sendable, Hashable {
        package var session: GenesysSessionResponse
        var lastEcho: ContinuousClock.Instant?
        var echoDeferred = false
        var lastTyping: ContinuousClock.Instant?
    }

    package enum State: Sendable, Hashable {
        case idle
        /// The socket is opening; `startNew` goes into the configureSession to come.
        case connecting(attempt: Int, startNew: Bool)
        case configuring(attempt: Int, startNew: Bool)
        case configured(Live)
        /// `startingNew`: closeSession was sent for a new chat.
        case readOnly(Live, startingNew: Bool)
        case waitingToReconnect(attempt: Int, startNew: Bool)
        case failed(GenesysSessionFailure)
    }

    package private(set) var state: State = .idle
    /// An authenticated session's JWT (from the OAuth code exchange or its refresh): the socket is then
    /// configured with `configureAuthenticatedSession` (SDK `MessagingClientImpl.connectAuthenticatedSession`).
    /// Whoever drives the machine gets it, refreshes it, and sets it before ``start()``.
    package var authenticatedJWT: String?
    package private(set) var configuration: GenesysSessionConfiguration
    private var random: GenesysRandom

    package init(configuration: GenesysSessionConfiguration, seed: UInt64) {
        self.configuration = configuration
        self.random = GenesysRandom(seed: seed)
    }

    // MARK: The socket

    package mutating func start() -> [Action] {
        switch self.state {
        case .idle, .failed:
            self.state = .connecting(attempt: 0, startNew: false)
            return [.openSocket]
        default:
            return []
        }
    }

    package mutating func stop() -> [Action] {
        let hadSocket: Bool
        switch self.state {
        case .idle, .failed: return []
        case .waitingToReconnect: hadSocket = false
        default: hadSocket = true
        }
        self.state = .idle
        return (hadSocket ? [.closeSocket] : []) + [.cancelTimer(.reconnect), .cancelTimer(.echo)]
    }

    package mutating func socketOpened(now: ContinuousClock.Instant) -> [Action] {
        guard case .connecting(let attempt, let startNew) = self.state else { return [] }
        self.state = .configuring(attempt: attempt, startNew: startNew)
        return [.send(self.configureSession(startNew: startNew))]
    }

    package mutating func socketFailed(now: ContinuousClock.Instant) -> [Action] {
        let attempt: Int
        let startNew: Bool
        switch self.state {
        case .connecting(let count, let new), .configuring(let count, let new): (attempt, startNew) = (count, new)
        case .configured: (attempt, startNew) = (0, false)
        // A new chat asked for and not yet configured is still asked for after the socket comes back.
        case .readOnly(_, let startingNew): (attempt, startNew) = (0, startingNew)
        case .idle, .failed, .waitingToReconnect: return []
        }
        guard attempt < self.configuration.maximumReconnectAttempts else {
            return self.fail(.reconnectionGaveUp(attempts: attempt))
        }
        self.state = .waitingToReconnect(attempt: attempt + 1, startNew: startNew)
        let delay = self.configuration.reconnectBackoff.delay(attempt: attempt, using: &self.random)
        return [.cancelTimer(.echo), .setTimer(.reconnect, after: delay)]
    }

    package mutating func timerFired(_ timer: Timer, now: ContinuousClock.Instant) -> [Action] {
        switch (timer, self.state) {
        case (.reconnect, .waitingToReconnect(let attempt, let startNew)):
            self.state = .connecting(attempt: attempt, startNew: startNew)
            return [.openSocket]
        case (.echo, .configured(var live)):
            live.echoDeferred = false
            self.state = .configured(live)
            return self.keepAlive(now: now)
        case (.echo, .readOnly(var live, let startingNew)):
            live.echoDeferred = false
            self.state = .readOnly(live, startingNew: startingNew)
            return self.keepAlive(now: now)
        default:
            return []
        }
    }

    // MARK: What the server sends

    package mutating func received(_ frame: GenesysServerFrame, now: ContinuousClock.Instant) -> [Action] {
        switch frame.body {
        case .session(let session):
            return self.sessionResponse(session)
        case .structuredMessage(let message):
            return self.message(message)
        case .sessionExpired:
            return self.fail(.sessionExpired)
        case .error(let code, _) where code == .cannotDowngradeToUnauthenticated:
            // SDK `MessagingClientImpl.handleError`: `invalidateSessionToken()`, then the Error state.
            return self.fail(.cannotDowngrade)
        case .logout:
            // SDK `performLogout`: the tokens are dropped, `Event.Logout`, and the socket is closed.
            guard self.hasSocket else { return [] }
            return self.fail(.loggedOut)
        case .error(let code, _) where code.endsTheSession:
            return self.fail(code == .sessionHasExpired ? .sessionExpired : .sessionNotFound)
        case .error(let code, _) where code.isHTTPClass:
            if case .configuring = self.state { return self.fail(.configurationRefused(code)) }
            return []
        case .connectionClosed(let reason):
            guard self.hasSocket else { return [] }
            self.state = .failed(.closedElsewhere(signedIn: reason == "signedIn"))
            return [.closeSocket, .cancelTimer(.echo), .failed(.closedElsewhere(signedIn: reason == "signedIn"))]
        default:
            return []
        }
    }

    private mutating func sessionResponse(_ session: GenesysSessionResponse) -> [Action] {
        switch self.state {
        case .configuring, .configured:
            if session.readOnly {
                self.state = .readOnly(Live(session: session), startingNew: false)
                return [.readOnly]
            }
            self.state = .configured(Live(session: session))
            var actions: [Action] = [.configured(session)]
            if session.newSession && self.configuration.autoStart {
                actions.append(.send(self.request(.onMessage(.autostart()))))
            }
            return actions
        case .readOnly(_, startingNew: true) where !session.connected:
            // The answer to closeSession: configure the new chat (SDK handleSessionResponse).
            self.state = .configuring(attempt: 0, startNew: true)
            return [.send(self.configureSession(startNew: true))]
        case .readOnly(var live, let startingNew):
            live.session = session
            self.state = .readOnly(live, startingNew: startingNew)
            return []
        default:
            return []
        }
    }

    private mutating func message(_ message: GenesysStructuredMessage) -> [Action] {
        guard case .configured(var live) = self.state else { return [] }
        if message.isConversationDisconnect && message.isReadOnly {
            self.state = .readOnly(live, startingNew: false)
            return [.readOnly]
        }
        if message.direction == .inbound && message.kind != .event {
            // Our own message came back: typing may be sent again at once (SDK handleTextMessageUpdate).
            live.lastTyping = nil
            self.state = .configured(live)
        }
        return []
    }

    // MARK: What the user does

    /// The keep-alive: an `echo` now, or when the cool-down ends.
    package mutating func keepAlive(now: ContinuousClock.Instant) -> [Action] {
        var live: Live
        let startingNew: Bool?
        switch self.state {
        case .configured(let current): (live, startingNew) = (current, nil)
        case .readOnly(let current, let starting): (live, startingNew) = (current, starting)
        default: return []
        }
        var actions: [Action] = []
        if let last = live.lastEcho, last.duration(to: now) <= self.configuration.echoCooldown {
            if !live.echoDeferred {
                live.echoDeferred = true
                actions = [.setTimer(.echo, after: self.configuration.echoCooldown - last.duration(to: now))]
            }
        } else {
            live.lastEcho = now
            actions = [.send(.echo(token: self.configuration.token))]
        }
        if let startingNew { self.state = .readOnly(live, startingNew: startingNew) } else { self.state = .configured(live) }
        return actions
    }

    /// Our typing notice, unless one went out within the cool-down.
    package mutating func typing(now: ContinuousClock.Instant) -> [Action] {
        guard case .configured(var live) = self.state else { return [.refused(self.whyNotSending)] }
        guard self.configuration.showUserTypingIndicator else { return [] }
        if let last = live.lastTyping, last.duration(to: now) <= self.configuration.typingCooldown { return [] }
        live.lastTyping = now
        self.state = .configured(live)
        return [.send(self.request(.onMessage(.typing)))]
    }

    /// A message of ours (text, a reply, files by attachment id).
    package mutating func send(_ message: GenesysOutgoingMessage, now: ContinuousClock.Instant) -> [Action] {
        guard case .configured = self.state else { return [.refused(self.whyNotSending)] }
        return [.send(self.request(.onMessage(message)))]
    }

    /// Asks for a presigned upload URL for a file of ours (SDK `AttachmentHandlerImpl.prepare`): a new
    /// attachment id (a UUID), the size, no MD5 and `errorsAsJson`; only when messages may be sent.
    package mutating func attach(fileName: String, fileType: String, fileSize: Int) -> [Action] {
        guard case .configured = self.state else { return [.refused(self.whyNotSending)] }
        let upload = GenesysAttachmentUpload(attachmentId: self.random.uuid(), fileName: fileName, fileType: fileType, fileSize: fileSize)
        return [.send(self.request(.onAttachment(upload)))]
    }

    /// Asks for a fresh download URL of an attachment (SDK `MessagingClientImpl.refreshAttachmentUrl`:
    /// `getAttachment {attachmentId}`, sent through `send`, which checks that the session is configured).
    package mutating func refreshAttachment(attachmentId: String) -> [Action] {
        guard case .configured = self.state else { return [.refused(self.whyNotSending)] }
        return [.send(self.request(.getAttachment(attachmentId: attachmentId)))]
    }

    /// Asks for a JWT for the REST calls (the history), when configured or read-only: the states in which
    /// the SDK fetches history (`MessagingClientImpl.fetchNextPage`, `StateMachine.checkIfConfiguredOrReadOnly`).
    package mutating func getJwt() -> [Action] {
        switch self.state {
        case .configured, .readOnly: return [.send(self.request(.getJwt))]
        default: return [.refused(self.whyNotSending)]
        }
    }

    /// From read-only: close the session everywhere, then configure a new chat.
    package mutating func startNewChat() -> [Action] {
        guard case .readOnly(let live, startingNew: false) = self.state else {
            if case .readOnly = self.state { return [] }
            return [.refused("a new chat starts only after the conversation was disconnected")]
        }
        self.state = .readOnly(live, startingNew: true)
        return [.send(self.request(.closeSession(closeAllConnections: true)))]
    }

    /// The session token was dropped (SDK `invalidateSessionToken`): every request from now on carries
    /// `token`, so the next configuration is a new session.
    package mutating func replaceToken(_ token: String) {
        self.configuration.token = token
    }

    // MARK: Helpers

    private var hasSocket: Bool {
        switch self.state {
        case .connecting, .configuring, .configured, .readOnly: true
        case .idle, .waitingToReconnect, .failed: false
        }
    }

    private var whyNotSending: String {
        switch self.state {
        case .readOnly: "the conversation was disconnected and is read-only; start a new chat"
        case .failed(let failure): "the session failed: \(failure)"
        case .idle: "the session is not started"
        default: "the session is not configured yet"
        }
    }

    private mutating func fail(_ failure: GenesysSessionFailure) -> [Action] {
        let hadSocket = self.hasSocket
        self.state = .failed(failure)
        return (hadSocket ? [.closeSocket] : []) + [.cancelTimer(.echo), .failed(failure)]
    }

    private mutating func configureSession(startNew: Bool) -> GenesysRequest {
        if let jwt = self.authenticatedJWT {
            return .configureAuthenticatedSession(
                token: self.configuration.token,
                deploymentId: self.configuration.deploymentId,
                startNew: startNew,
                jwt: jwt,
                tracingId: self.random.uuid()
            )
        }
        return .configureSession(
            token: self.configuration.token,
            deploymentId: self.configuration.deploymentId,
            startNew: startNew,
            tracingId: self.random.uuid()
        )
    }

    private mutating func request(_ action: GenesysRequest.Action) -> GenesysRequest {
        GenesysRequest(token: self.configuration.token, tracingId: self.random.uuid(), action: action)
    }
}
