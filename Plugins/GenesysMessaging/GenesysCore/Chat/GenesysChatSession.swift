package import AttendantPluginAPI
@_spi(Experimental) package import AttendantPluginKit

/// A Genesys Cloud web messaging chat as one pure value that the kit's ``SessionDriver`` drives, composed
/// as GMSChat's session is: the socket's session machine (``GenesysSessionStateMachine``: configuring,
/// read-only, reconnection, the echo and typing cool-downs) as a component, the deployment's configuration
/// (config.json, fetched once as the session's work), the conversation's thread, the messages already shown
/// (``GenesysShownMessages``, kept in the channel's store so that a reconnect or a restart alerts none of
/// them again), the choices messages offered, and the callers waiting: `listen()` for a configured session,
/// a send for its echo, a new chat for its configuration.
///
/// The socket is the driver's link: the machine's `openSocket`, `send` and `closeSocket` become
/// ``SessionAction/openLink(_:)``, ``SessionAction/writeLink(_:)`` and ``SessionAction/closeLink``, and what
/// the link brings comes back decoded outside the lock (``step(for:now:)``).
package struct GenesysChatSession: ChannelSession {
    package typealias Action = SessionAction<Timer, Work>

    package enum Timer: Hashable, Sendable {
        /// The session machine's: reconnection and a deferred echo.
        case machine(GenesysSessionStateMachine.Timer)
        /// A waiting caller's deadline.
        case request(UInt64)
        /// The history catch-up's deadline for its next answer (the JWT, a page).
        case catchUp
        /// The echo 10 s before the session's expiry notice, and the notice.
        case expiryEcho
        case expiryNotice
    }

    /// What the channel does on the network beside the link.
    package enum Work: Sendable, Hashable {
        /// GET the deployment's config.json (``Settings/deploymentRequest``); the answer is
        /// ``deploymentFetched(_:now:)``.
        case fetchDeployment
        /// GET page `page` of the history API (``historyRequest(page:jwt:)``); the answer is
        /// ``historyFetched(page:_:now:)``. The request carries the JWT: it is never logged.
        case fetchHistory(NetworkRequest, page: Int)
        /// Exchange the channel's token (an OAuth authorization code) for a JWT and a refresh token; the
        /// answer is ``authAnswered(_:refreshed:now:)``.
        case exchangeCode
        /// Refresh the JWT with this refresh token (a secret: never logged).
        case refreshJWT(String)
        /// PUT a file of ours to its presigned URL; the answer is ``uploaded(_:failure:)``.
        case upload(NetworkRequest, attachmentId: String)
    }

    /// Where the chat's state is kept in the channel's store (never the session token: that is a secret).
    package enum StoreKey {
        package static let thread = "thread-id"
        /// The ids of the messages shown, newest last, one per line.
        package static let shown = "shown-messages"
        /// The thread whose contact the host was told of.
        package static let contact = "contact-thread"
        /// The thread that went read-only (ConversationDisconnect).
        package static let readOnly = "read-only-thread"
    }

    /// Where the session token is kept in the channel's secrets.
    package static let tokenSecret = "session-token"

    package struct Settings: Sendable {
        package var endpoints: GenesysEndpoints
        /// What messages call the service: `Genesys web messaging at mypurecloud.com`.
        package var serverDescription: String
        /// How long a send waits for its echo, and `listen()` for a configured session.
        package var requestTimeout: Duration
        /// Overrides the deployment's `autoStart` when set (the `auto-start` setting).
        package var autoStart: Bool?
        /// A new local id for a conversation's thread.
        package var makeThreadID: @Sendable () -> String
        /// Seeds the machine's tracing ids and jitter.
        package var seed: UInt64
        /// The channel has a token source: its token is an OAuth code, and the session is authenticated.
        package var authenticated = false

        package init(
            endpoints: GenesysEndpoints,
            serverDescription: String,
            requestTimeout: Duration = .seconds(10),
            autoStart: Bool? = nil,
            makeThreadID: @escaping @Sendable () -> String = GenesysChatSession.newThreadID,
            seed: UInt64 = UInt64.random(in: 0...UInt64.max)
        ) {
            self.endpoints = endpoints
            self.serverDescription = serverDescription
            self.requestTimeout = requestTimeout
            self.autoStart = autoStart
            self.makeThreadID = makeThreadID
            self.seed = seed
        }

        /// `GET https://api-cdn.{domain}/webdeployments/v1/deployments/{id}/config.json` (SDK
        /// `WebMessagingApi.fetchDeploymentConfig`).
        package var deploymentRequest: NetworkRequest {
            NetworkRequest(url: self.endpoints.deploymentConfig, timeout: self.requestTimeout, maximumResponseSize: 1 << 20, usesCookies: false)
        }

        /// The socket (SDK `Urls.webSocketUrl`), with the frame limit of ``GenesysWireLimits/frame``.
        var socketRequest: WebSocketRequest {
            WebSocketRequest(url: self.endpoints.webSocket, maximumMessageSize: 1 << 20, timeout: self.requestTimeout)
        }
    }

    /// A new local id for a conversation's thread (the service gives the guest none).
    package static func newThreadID() -> String {
        var random = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return "genesys-" + String((0..<16).map { _ in digits[Int(random.next() % 16)] })
    }

    /// A new session token: a random version 4 UUID, as the SDK's `TokenGenerator.generate()`.
    package static func newToken() -> String {
        var random = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Array("0123456789abcdef")
        var text = ""
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append("-") }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return text
    }

    /// What the store and the secrets held when the channel started.
    package struct Stored: Sendable {
        package var token: String
        package var threadID: String?
        package var shown: [String]
        package var contactThread: String?
        package var readOnlyThread: String?
        /// An authenticated session's refresh token, from the secrets.
        package var refreshToken: String?

        package init(token: String, threadID: String? = nil, shown: [String] = [], contactThread: String? = nil, readOnlyThread: String? = nil) {
            self.token = token
            self.threadID = threadID
            self.shown = shown
            self.contactThread = contactThread
            self.readOnlyThread = readOnlyThread
        }

        /// What the channel's store holds, with the token from its secrets.
        package init(store values: [String: String], token: String) {
            self.init(
                token: token,
                threadID: values[StoreKey.thread],
                shown: GenesysShownMessages.read(values[StoreKey.shown]),
                contactThread: values[StoreKey.contact],
                readOnlyThread: values[StoreKey.readOnly]
            )
        }
    }

    /// The socket's session.
    package internal(set) var machine: GenesysSessionStateMachine
    /// The deployment's config.json, once fetched.
    package internal(set) var deployment: GenesysDeploymentConfig?
    var fetchingDeployment = false
    /// The conversation's local thread id.
    package internal(set) var threadID: String?
    /// The thread the host was told of as a contact.
    var contactThread: String?
    /// The thread that went read-only.
    package internal(set) var readOnlyThread: String?
    /// The messages shown: none is shown twice.
    package internal(set) var shown: GenesysShownMessages
    /// The latest messages of the thread, oldest first, for `open-thread`.
    package internal(set) var recent: [ChatMessage] = []
    /// What each message's choices send, by message id (the latest messages only).
    var offers: [String: GenesysOffer] = [:]
    var offerOrder: [String] = []
    /// Whether the channel listens (``listen(_:timeout:now:)`` began it) and whether it sleeps.
    package internal(set) var listening = false
    package internal(set) var asleep = false
    /// Whether the link is open.
    package internal(set) var connected = false
    package internal(set) var lastError: String?
    package internal(set) var framesRejected = 0
    /// Callers of `listen()` waiting for a configured (or read-only) session.
    var listenWaiting: [UInt64] = []
    /// Sends waiting for their echo, by the request's tracing id, oldest first.
    var sendWaiting: [(tracingId: String, id: UInt64)] = []
    /// Callers waiting for a new chat's configuration.
    var newChatWaiting: [UInt64] = []
    /// The attachments of the latest messages, by message id and attachment id.
    var files: [String: [String: GenesysReceivedAttachment]] = [:]
    var fileOrder: [String] = []
    /// Our files on their way, by attachment id.
    var uploads: [String: GenesysUpload] = [:]
    /// Callers waiting for a fresh download URL (`getAttachment`), by the request's tracing id.
    var refreshes: [(tracingId: String, attachmentId: String, id: UInt64)] = []
    /// The history catch-up under way, with the socket's messages held until it is done.
    var catchUp: GenesysCatchUp?
    /// An authenticated session's credentials; nil for a guest.
    var auth: GenesysAuth?
    /// When the session expires, as the service last said.
    var expiry: GenesysSessionExpiry?
    /// The JWT of `getJwt` (never logged, never stored) and its expiry, epoch seconds.
    var jwt: (value: String, expires: Int)?
    let settings: Settings
    /// The session token; a new one replaces it when the SDK would drop it (4017, LogoutEvent).
    var token: String

    /// The start of every message (the plugin's name).
    package static let prefix = "genesys-messaging"
    var prefix: String { Self.prefix }
    var server: String { self.settings.serverDescription }

    package init(settings: Settings, stored: Stored) {
        self.settings = settings
        self.token = stored.token
        self.machine = GenesysSessionStateMachine(
            configuration: GenesysSessionConfiguration(token: stored.token, deploymentId: settings.endpoints.deploymentId),
            seed: settings.seed
        )
        self.threadID = stored.threadID
        self.contactThread = stored.contactThread
        self.readOnlyThread = stored.readOnlyThread
        self.shown = GenesysShownMessages(stored.shown)
        if settings.authenticated { self.auth = GenesysAuth(refreshToken: stored.refreshToken) }
    }

    /// The machine's instant for `now`: the host's wall clock as an offset from one fixed instant, so that
    /// the machine's cool-downs measure the host's time (the machine only compares instants).
    static let origin = ContinuousClock.now
    static func instant(_ now: UnixTime) -> ContinuousClock.Instant {
        Self.origin.advanced(by: .milliseconds(Int64((now.secondsSince1970 * 1000).rounded())))
    }

    /// Whether messages may be sent now.
    package var isConfigured: Bool { if case .configured = self.machine.state { true } else { false } }

    /// Whether the conversation was disconnected and is read-only.
    package var isReadOnly: Bool { if case .readOnly = self.machine.state { true } else { false } }

    // MARK: The deployment

    /// The deployment's configuration came (or did not): the machine takes its switches, and the socket opens.
    package mutating func deploymentFetched(_ outcome: Result<GenesysDeploymentConfig, ChannelError>, now: UnixTime) -> [Action] {
        self.fetchingDeployment = false
        switch outcome {
        case .failure(let error):
            self.lastError = error.message
            return [.log(.warning, error.message)] + self.failListen(error)
        case .success(let deployment):
            guard deployment.active, deployment.messengerEnabled else {
                let error = ChannelError(
                    .configuration,
                    "\(self.prefix): the deployment \(self.settings.endpoints.deploymentId) is \(deployment.active ? "without Messenger" : "inactive") at \(self.server)"
                )
                self.lastError = error.message
                return self.failListen(error)
            }
            self.deployment = deployment
            var configuration = self.machine.configuration
            configuration.autoStart = self.settings.autoStart ?? deployment.conversations.autoStart
            configuration.showUserTypingIndicator = deployment.conversations.showUserTypingIndicator
            self.machine = GenesysSessionStateMachine(configuration: configuration, seed: self.settings.seed)
            guard self.listening, !self.asleep else { return [] }
            return self.connect(now: now)
        }
    }

    // MARK: The link

    /// What the link brings as the session's step, for the driver's link handler: a frame is decoded here,
    /// outside the lock.
    package static func step(for event: LinkEvent, now: UnixTime) -> ((inout GenesysChatSession) -> [Action])? {
        switch event {
        case .opened:
            return { $0.linkOpened(now: now) }
        case .message(let bytes):
            let frame = Result { () throws(GenesysWireError) in try GenesysServerFrame(decoding: bytes) }
            return { $0.received(frame, now: now) }
        case .closed(let reason):
            return { $0.linkClosed(reason, now: now) }
        @unknown default:
            return nil
        }
    }

    package mutating func linkOpened(now: UnixTime) -> [Action] {
        self.connected = true
        return self.machineStep(now: now) { $0.socketOpened(now: Self.instant(now)) }
    }

    package mutating func linkClosed(_ reason: String, now: UnixTime) -> [Action] {
        self.connected = false
        self.lastError = "the socket closed: \(reason)"
        let log = Action.log(.notice, "\(self.prefix): the socket to \(self.server) closed: \(reason); reconnecting")
        return [log] + self.catchUpEnded("the socket closed", now: now) + self.failSends("the socket closed before the service answered")
            + self.machineStep(now: now) { $0.socketFailed(now: Self.instant(now)) }
    }

    /// A frame, decoded outside the lock: a message is shown (once), an answer ends its caller's wait, and
    /// the machine takes it.
    package mutating func received(_ decoded: Result<GenesysServerFrame, GenesysWireError>, now: UnixTime) -> [Action] {
        let frame: GenesysServerFrame
        switch decoded {
        case .success(let decodedFrame):
            frame = decodedFrame
        case .failure(let error):
            // SDK `WebMessagingJson.decodeFromString` failing: the frame is logged and dropped. The error
            // names the field, never its value.
            self.framesRejected += 1
            return [.log(.warning, "\(self.prefix): ignored a frame from \(self.server): \(error)")]
        }
        var actions: [Action] = []
        switch frame.body {
        case .structuredMessage(let message) where frame.isHealthCheckReply:
            // SDK `MessagingClientImpl.handleHealthCheck`: the echo's answer says when the session expires.
            actions += self.expires(
                at: message.metadata["expirationDate"].flatMap { Int($0) },
                duration: message.metadata["durationSeconds"].flatMap { Int($0) },
                now: now
            )
        case .structuredMessage(let message):
            actions += self.answered(tracingId: frame.tracingId, by: message)
            if message.kind != .event { actions += self.activity(now: now) }
            if self.catchUp != nil {
                // Shown after what the history brings, so that the conversation keeps its order.
                self.catchUp?.held.append(message)
            } else {
                actions += self.show(message, now: now)
            }
        case .jwt(let jwt, let expires):
            actions += self.jwtArrived(jwt, expires: expires, now: now)
        case .presignedURL(let answer):
            actions += self.presigned(answer)
        case .uploadSuccess(let attachmentId, _, _):
            actions += self.uploadSucceeded(attachmentId, now: now)
        case .uploadFailure(let failure), .generateURLError(let failure):
            actions += self.uploadFailed(failure.attachmentId, "\(failure.errorCode): \(failure.errorMessage)")
        case .error(let code, let text):
            actions += self.refreshRefused(code, text, tracingId: frame.tracingId) ?? self.refused(code, text, tracingId: frame.tracingId)
            if let asked = self.catchUp?.asked, asked == frame.tracingId {
                actions += self.catchUpEnded("getJwt was refused: \(code)", now: now)
            }
        case .tooManyRequests(let retryAfter, let code, let text):
            actions += self.refused(code, "\(text); retry after \(retryAfter) s", tracingId: frame.tracingId)
        default:
            break
        }
        return actions + self.machineStep(now: now) { $0.received(frame, now: Self.instant(now)) }
    }

    // MARK: The machine

    /// Runs a step of the session machine and turns what it answers into the session's actions.
    mutating func machineStep(now: UnixTime, _ body: (inout GenesysSessionStateMachine) -> [GenesysSessionStateMachine.Action]) -> [Action] {
        self.carryOut(body(&self.machine), now: now)
    }

    /// The session's actions for what the machine answered.
    mutating func carryOut(_ steps: [GenesysSessionStateMachine.Action], now: UnixTime) -> [Action] {
        var actions: [Action] = []
        for action in steps {
            switch action {
            case .openSocket:
                actions.append(.openLink(self.settings.socketRequest))
            case .closeSocket:
                self.connected = false
                actions.append(.closeLink)
            case .send(let request):
                actions.append(.writeLink(request.encoded()))
            case .setTimer(let timer, let delay):
                actions.append(.setTimer(.machine(timer), after: delay))
            case .cancelTimer(let timer):
                actions.append(.cancelTimer(.machine(timer)))
            case .configured(let session):
                actions += self.configured(session, now: now)
            case .readOnly:
                actions += self.becameReadOnly()
            case .failed(let failure):
                actions += self.retryWithFreshJWT(failure, now: now) ?? (self.dropCredentials(after: failure, now: now) + self.failed(failure))
            case .refused(let reason):
                actions.append(.log(.info, "\(self.prefix): \(reason)"))
            }
        }
        return actions
    }

    /// The session is configured: `listen()` is over, and a new conversation (the first, a new chat after
    /// read-only, or a new session the service made) gets a thread of its own.
    mutating func configured(_ session: GenesysSessionResponse, now: UnixTime) -> [Action] {
        self.lastError = nil
        self.auth?.refusals = 0
        var actions: [Action] = [
            .log(.info, "\(self.prefix): the session with \(self.server) is configured\(session.newSession ? " (a new session)" : "")")
        ]
        if self.threadID == nil || self.threadID == self.readOnlyThread || session.newSession {
            let threadID = self.settings.makeThreadID()
            self.threadID = threadID
            self.readOnlyThread = nil
            self.recent = []
            actions += [
                Self.store(threadID, key: StoreKey.thread), Self.store(nil, key: StoreKey.readOnly),
                .emit(.threadUpdated(self.thread(threadID, .ready))),
            ]
        }
        actions.append(.emit(.chatStateChanged(.ready)))
        // A session configured again (a reconnect, the foreground, a restart): what came meanwhile is in the
        // history (SDK `MessagingClient.fetchNextPage` after a reconnect).
        if !session.newSession { actions += self.startCatchUp(now: now) }
        actions += self.expires(at: session.expirationDate, duration: session.durationSeconds, now: now)
        let thread = self.bareThread.map(ChannelReply.thread) ?? .done
        let (listeners, newChats) = (self.listenWaiting, self.newChatWaiting)
        (self.listenWaiting, self.newChatWaiting) = ([], [])
        return actions + self.reply(to: listeners, .success(.done)) + self.reply(to: newChats, .success(thread))
    }

    /// The conversation was disconnected (ConversationDisconnect with `readOnly`, or a SessionResponse
    /// that says so): its thread and contact are over; nothing is sent until a new chat.
    mutating func becameReadOnly() -> [Action] {
        var actions: [Action] = []
        if let threadID = self.threadID, self.readOnlyThread != threadID {
            self.readOnlyThread = threadID
            actions += [
                Self.store(threadID, key: StoreKey.readOnly),
                .emit(.threadUpdated(self.thread(threadID, .closed))),
                .log(.info, "\(self.prefix): the conversation with \(self.server) was disconnected; it is read-only until a new chat"),
            ]
            if self.contactThread == threadID { actions.append(.emit(.contactEnded(contactID: threadID, outcome: .completed))) }
        }
        actions.append(.emit(.chatStateChanged(.closed)))
        let listeners = self.listenWaiting
        self.listenWaiting = []
        return actions + self.reply(to: listeners, .success(.done)) + self.failSends("\(self.prefix): \(Self.readOnlyReason)", code: .illegalState)
    }

    static let readOnlyReason =
        "the conversation was disconnected and is read-only; start a new chat (attendantctl chat create) to write again"

    /// The session ended (expired, unknown, closed elsewhere, refused, or the socket never came back).
    mutating func failed(_ failure: GenesysSessionFailure) -> [Action] {
        self.connected = false
        self.lastError = failure.description
        // Signed out: the host is asked for a new sign-in (SDK `Event.Logout`: the app authorizes again).
        let code: ChannelError.Code = failure == .loggedOut ? .authentication : .transient
        let error = ChannelError(code, "\(self.prefix): the session with \(self.server) ended: \(failure)")
        var actions: [Action] = [.log(.warning, error.message), .cancelTimer(.expiryEcho), .cancelTimer(.expiryNotice)]
        actions += self.failListen(error) + self.failSends(error.message)
        actions += self.reply(to: self.newChatWaiting, .failure(error))
        self.newChatWaiting = []
        actions += self.reply(to: self.uploads.values.map(\.caller).sorted() + self.refreshes.map(\.id), .failure(error))
        self.uploads = [:]
        self.refreshes = []
        if self.listening, !self.asleep {
            self.listening = false
            actions.append(.emit(.stoppedListening(error)))
        }
        return actions
    }

    // MARK: Waiting callers

    /// The waiting callers `ids`, whose deadlines end, hear `outcome`.
    func reply(to ids: [UInt64], _ outcome: Result<ChannelReply, ChannelError>) -> [Action] {
        ids.flatMap { id -> [Action] in [.cancelTimer(.request(id)), .replied(id, outcome)] }
    }

    mutating func failListen(_ error: ChannelError) -> [Action] {
        defer { self.listenWaiting = [] }
        return self.reply(to: self.listenWaiting, .failure(error))
    }

    /// Every send waiting hears `why`: a transient failure (the message may or may not have gone out), or
    /// `code`.
    mutating func failSends(_ why: String, code: ChannelError.Code = .transient) -> [Action] {
        defer { self.sendWaiting = [] }
        let error = ChannelError(code, why.hasPrefix(self.prefix) ? why : "\(self.prefix): the message may not have been sent: \(why)")
        return self.reply(to: self.sendWaiting.map(\.id), .failure(error))
    }

    package mutating func forgetRequest(_ id: UInt64) {
        self.listenWaiting.removeAll { $0 == id }
        self.sendWaiting.removeAll { $0.id == id }
        self.newChatWaiting.removeAll { $0 == id }
        self.uploads = self.uploads.filter { $0.value.caller != id }
        self.refreshes.removeAll { $0.id == id }
    }

    package mutating func timerFired(_ timer: Timer, now: UnixTime) -> [Action] {
        switch timer {
        case .machine(let timer):
            return self.machineStep(now: now) { $0.timerFired(timer, now: Self.instant(now)) }
        case .catchUp:
            return self.catchUpEnded("no answer within \(self.settings.requestTimeout)", now: now)
        case .expiryEcho:
            return self.expiryEchoDue(now: now)
        case .expiryNotice:
            return self.expiryNoticeDue(now: now)
        case .request(let id):
            let timeout = self.settings.requestTimeout
            if self.listenWaiting.contains(id) {
                self.listenWaiting.removeAll { $0 == id }
                let why = self.lastError.map { ": \($0)" } ?? ""
                return [
                    .replied(
                        id,
                        .failure(ChannelError(.transient, "\(self.prefix): no session with \(self.server) was configured within \(timeout)\(why)"))
                    )
                ]
            }
            if self.sendWaiting.contains(where: { $0.id == id }) {
                self.sendWaiting.removeAll { $0.id == id }
                return [
                    .replied(id, .failure(ChannelError(.transient, "\(self.prefix): \(self.server) did not confirm the message within \(timeout)")))
                ]
            }
            if let (attachmentId, upload) = self.uploads.first(where: { $0.value.caller == id }) {
                self.uploads[attachmentId] = nil
                let error = ChannelError(.transient, "\(self.prefix): \(self.server) did not take \(upload.file.name) within \(timeout * 6)")
                return [.replied(id, .failure(error))]
            }
            if let refresh = self.refreshes.first(where: { $0.id == id }) {
                self.refreshes.removeAll { $0.id == id }
                let error = ChannelError(
                    .transient,
                    "\(self.prefix): \(self.server) gave no fresh URL for file \(refresh.attachmentId) within \(timeout)"
                )
                return [.replied(id, .failure(error))]
            }
            if self.newChatWaiting.contains(id) {
                self.newChatWaiting.removeAll { $0 == id }
                return [
                    .replied(id, .failure(ChannelError(.transient, "\(self.prefix): \(self.server) did not start the new chat within \(timeout)")))
                ]
            }
            return []
        }
    }

    // MARK: What the host sees

    /// Keeps `value` under `key` of the channel's store.
    static func store(_ value: String?, key: String) -> Action {
        .write(StoreWrite(.store, key: key, value: value, what: "the chat's \(key)"))
    }

    func thread(_ id: String, _ state: ThreadState, messages: [ChatMessage] = []) -> ChatThread {
        ChatThread(id: id, name: "Chat with \(self.server)", state: state, lastMessages: messages)
    }

    /// The conversation's thread, without messages.
    var bareThread: ChatThread? {
        guard let threadID = self.threadID else { return nil }
        return self.thread(threadID, self.readOnlyThread == threadID ? .closed : .ready)
    }

    /// `chat-status`: the session as fields (never the token).
    package func status() -> [String: String] {
        let state: String
        switch self.machine.state {
        case .idle: state = self.asleep ? "background" : "idle"
        case .connecting: state = "connecting"
        case .configuring: state = "configuring"
        case .configured: state = "configured"
        case .readOnly: state = "read-only"
        case .waitingToReconnect: state = "reconnecting"
        case .failed(.loggedOut): state = "signed-out"
        case .failed: state = "failed"
        }
        var fields: [String: String] = [
            "session": state,
            "state": self.isConfigured ? ChatState.ready.rawValue : (self.isReadOnly ? ChatState.closed.rawValue : ChatState.connecting.rawValue),
            "connected": self.connected ? "yes" : "no",
            "background": self.asleep ? "yes" : "no",
            "read-only": self.isReadOnly ? "yes" : "no",
            "server": self.server,
            "deployment": self.settings.endpoints.deploymentId,
            "messages-shown": String(self.shown.count),
            "frames-rejected": String(self.framesRejected),
        ]
        if let thread = self.threadID { fields["thread"] = thread }
        if let error = self.lastError { fields["last-error"] = error }
        if let deployment = self.deployment {
            fields["typing-shown-to-agent"] = deployment.conversations.showUserTypingIndicator ? "yes" : "no"
        }
        return fields
    }
}
