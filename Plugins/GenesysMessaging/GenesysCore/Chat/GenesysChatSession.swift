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
