package import AttendantPluginAPI
import AttendantPluginKit

/// The CXone chat session of the mobile SDK's sequence diagrams, without I/O or a clock of its own.
///
/// The driver calls the user operations (``prepare(brandID:channelID:)``, ``viewPage(title:url:at:)``,
/// ``connect()``, ``openThread(threadID:)``, ``createThread(customFields:)``,
/// ``sendMessage(threadID:text:at:)``, ``endConversation(threadID:)``, ``background(at:)``,
/// ``foreground()``), feeds what its REST calls and the WebSocket brought as ``Input``s to
/// ``handle(_:)``, hands fired timers back to ``timerFired(_:)``, and carries out the returned
/// ``Action``s in order. A user operation that does not fit the state throws a ``ChatError`` and changes
/// nothing.
///
/// States: initial → preparing → prepared → (offline |) connecting → connected → ready (→ closed, live
/// chat), reported from the one ``ChatConnection`` state, which holds what exists only while the socket
/// is open; the threads (``ChatThreads``), the agent's activity (``ChatActivity``) and the outbox
/// (``ChatOutbox``) are kept beside it. While connected the machine sends a heartbeat every 10 s and wants a pong within 5 s; a lost
/// connection is reconnected with backoff `min(1.3^n + rand(0..1), 30)` s, up to 20 tries, after which the
/// thread is recovered and the outbox is delivered. Messages are persisted in the outbox until the server
/// confirms them, so each reaches the server once across reconnects and restarts; each message id is
/// reported once.
package struct ChatStateMachine: Sendable {
    /// The timers the machine uses.
    package enum Timer: String, Sendable, Hashable {
        /// Send the next heartbeat.
        case heartbeat
        /// The heartbeat's pong did not come.
        case pongTimeout
        /// Try to reconnect (backoff).
        case reconnect
        /// An answer the connection flow waits for did not come.
        case response
        /// The current visit is over.
        case visitExpiry
        /// The transaction token (secured sessions) is about to expire: the next socket needs a new one.
        case transactionTokenExpiry
    }

    package typealias TimerID = ChatTimerID

    /// What the driver does, in order.
    package enum Action: Sendable, Hashable {
        /// `GET {chat}/1.0/brand/{brandId}/channel/{channelId}`; answer with
        /// ``Input/channelConfigurationFetched(_:)`` or ``Input/channelConfigurationFailed(_:)``.
        case fetchChannelConfiguration(brandID: Int, channelID: String)
        /// `GET .../availability`; answer with ``Input/availabilityFetched(online:)`` or ``Input/availabilityFailed(_:)``.
        case fetchAvailability(brandID: Int, channelID: String)
        /// `PUT .../visitors/{visitorId}`; answer with ``Input/visitorStored`` or ``Input/visitorFailed(_:)``.
        case createOrUpdateVisitor(brandID: Int, visitorID: String, customerID: String)
        /// `POST .../visitors/{visitorId}/events`; failures are the driver's to log.
        case sendAnalytics(brandID: Int, visitorID: String, AnalyticsEvent)
        /// Open the WebSocket, with secured sessions with the transaction token in its URL; answer with
        /// ``Input/socketOpened`` or ``Input/socketClosed(reason:)``.
        case openSocket(brandID: Int, channelID: String, visitorID: String, transactionToken: String? = nil)
        /// Secured sessions: `POST {token}/oauth/token?…`; answer with ``Input/transactionTokenFetched(_:)``
        /// or ``Input/transactionTokenFailed(_:)``.
        case fetchTransactionToken(TransactionTokenRequest)
        /// Close the WebSocket; the driver reports no ``Input/socketClosed(reason:)`` for it.
        case closeSocket
        /// Send a frame.
        case send(Command)
        /// Store a persistent value.
        case store(StoredValue)
        /// Persist a message the server has not confirmed yet.
        case persistOutbox(OutboxEntry)
        /// The server has the message: forget it.
        case removeFromOutbox(messageID: String)
        /// GET a large event's body (EventInS3); answer with ``Input/downloaded(url:_:)`` or ``Input/downloadFailed(url:reason:)``.
        case download(url: String)
        case setTimer(TimerID, after: Duration)
        case cancelTimer(TimerID)
        /// Tell the host.
        case report(Report)
    }

    /// What the driver's work brought: REST answers, socket events, decoded server events.
    package indirect enum Input: Sendable, Hashable {
        case channelConfigurationFetched(ChannelConfiguration)
        case channelConfigurationFailed(ChatError)
        case availabilityFetched(online: Bool)
        case availabilityFailed(ChatError)
        case visitorStored
        case visitorFailed(ChatError)
        case socketOpened
        /// Secured sessions: the token server's transaction token, or why there is none.
        case transactionTokenFetched(TransactionToken)
        case transactionTokenFailed(ChatError)
        /// The socket closed or failed without the machine asking.
        case socketClosed(reason: String)
        /// ConsumerAuthorized: the customer identity and, with OAuth, the access token.
        case authorized(CustomerIdentity, accessToken: ChannelToken?)
        /// TokenRefreshed: the customer's new access token.
        case tokenRefreshed(ChannelToken)
        /// ConsumerReconnected.
        case reconnected
        /// ThreadRecovered or LivechatRecovered: the thread with its latest messages, its case (contact) id
        /// and the assigned agent.
        case threadRecovered(ChatThread, caseID: String?, agent: Party?)
        /// RecoveringThreadFailed / RecoveringLivechatFailed: there is no such thread.
        case threadRecoveryFailed(threadID: String?)
        /// ThreadListFetched: the ids of the customer's threads, and when it came (the daemon's clock).
        case threadListFetched([String], at: UnixTime? = nil)
        /// ThreadMetadataLoaded: a thread's name and last message.
        case threadMetadataLoaded(threadID: String, name: String?, lastMessage: ChatMessage?)
        /// MessageCreated, with the case id it carries.
        case messageCreated(ChatMessage, caseID: String?)
        /// MessageCreated of a message the SDK keeps out of the thread (``ChatWireInput/isKeptOutOfTheThread(_:)``:
        /// the live chat's opening, the inactivity popup's answer): it leaves the outbox and makes its thread
        /// ready, as any message does, but is no message of the thread and no news.
        case hiddenMessageCreated(ChatMessage, caseID: String?)
        /// FireProactiveAction with a WelcomeMessage: sent before the user's first message of a new thread.
        case proactiveAction(welcome: String)
        case caseStatusChanged(caseID: String, status: CaseStatus)
        /// EventInS3: the event's body is at `url`; the machine asks the driver to download it.
        case eventInS3(url: String, originEventType: String)
        /// The downloaded body, decoded as its origin event.
        case downloaded(url: String, Input)
        case downloadFailed(url: String, reason: String)
        /// The downloaded body holds an event the machine does not use (not a failure).
        case downloadIgnored(url: String)
        /// An operation error (`{error: {errorCode, errorMessage}}`).
        case operationError(code: String, message: String)
        /// A server error (`{message, requestId}`).
        case serverError(message: String)
        /// The heartbeat's `"pong"`.
        case pong
        /// SenderTypingStarted / SenderTypingEnded from the agent side, at the event's time.
        case agentTyping(threadID: String, started: Bool, agent: Party?, at: UnixTime)
        /// SetPositionInQueue: the customer's place in the queue of a case.
        case positionInQueue(caseID: String, position: Int)
        /// CaseInboxAssigneeChanged: the agent now assigned to a case (none: unassigned).
        case assigneeChanged(caseID: String, agent: Party?)
        /// MessageReadChanged: the agent read the customer's message.
        case messageRead(ChatMessage)
    }

    /// Where the chat stands with the gateway; what exists only while connected lives in its
    /// ``ChatConnection/connected(_:)``.
    var connection = ChatConnection.unprepared
    /// The threads known, with their cases, agents and queue positions.
    var known = ChatThreads()
    /// The channel configuration, once fetched.
    package internal(set) var channelConfiguration: ChannelConfiguration?
    package internal(set) var brandID: Int?
    package internal(set) var channelID: String?
    /// What is stored for the channel, but the outbox (``outgoing``).
    var persisted: StoredValues
    /// When an earlier run last had the thread list: a thread this run meets for the first time appeared
    /// after it, while the daemon was not there to see it (``isFresh(_:)``).
    let listedBefore: UnixTime?
    package internal(set) var configuration: Configuration
    /// The welcome message from FireProactiveAction, until it is sent.
    package internal(set) var welcomeMessage: String?
    var random: ChatRandom
    var timers = TimerTable<Timer>()
    /// The agent typing and reading, and the messages met.
    var activity = ChatActivity()
    /// Messages written and not yet confirmed.
    var outgoing: ChatOutbox
    var visit: (id: String, active: Bool)?
    /// Secured sessions: the transaction token the next socket opens with, until it is about to expire.
    package internal(set) var transactionToken: TransactionToken?
    var lastPage: (title: String, url: String, at: UnixTime)?

    package init(stored: StoredValues = StoredValues(), configuration: Configuration = Configuration(), random: ChatRandom = ChatRandom()) {
        self.persisted = stored
        self.persisted.outbox = []
        self.listedBefore = stored.threadsListedAt
        self.outgoing = ChatOutbox(stored.outbox)
        self.configuration = configuration
        self.random = random
    }

    /// The OAuth authorization code (and PKCE verifier) for the next AuthorizeCustomer, when the channel
    /// has authorization on and no access token is stored: the driver sets it when its credentials change.
    package mutating func setAuthorization(code: String?, verifier: String?) {
        self.configuration.authorizationCode = code
        self.configuration.codeVerifier = verifier
    }

    /// The chat's state, as reported to the host (``Report/stateChanged(_:)``).
    package var state: ChatState { self.connection.reported }

    /// Reconnect attempts made since the connection was lost (0 while connected, until it is lost).
    package var reconnectAttempt: Int { self.connection.recovery?.attempt ?? 0 }

    /// Why the connection was lost, while it is being restored (for the driver's log).
    package var lastLossReason: String? { self.connection.recovery?.lastLoss }

    /// The chat mode, once the channel configuration is known.
    package var mode: ChatMode? { self.channelConfiguration?.mode }

    /// The pre-chat form to show before ``createThread(customFields:)``, if the channel has one.
    package var preChatForm: PreChatForm? { self.channelConfiguration?.preContactForm }

    /// Messages written and not yet confirmed, oldest first.
    package var outbox: [OutboxEntry] { self.outgoing.entries }

    /// What the driver stores for this channel, as the machine has it now.
    package var stored: StoredValues {
        var values = self.persisted
        values.outbox = self.outgoing.entries
        return values
    }

    /// The threads known, in the order they became known.
    package var threads: [ChatThread] { self.known.all }

    /// A thread by id (ids compare case-insensitively, as CXone's come in mixed case).
    package func thread(_ id: String) -> ChatThread? {
        self.known.thread(id)
    }

    /// The timers armed now (for tests and diagnostics).
    package func isArmed(_ timer: Timer) -> Bool { self.timers.isArmed(timer) }

    // MARK: Inputs

    /// Handles what the driver's work brought. Inputs that do not fit the state are ignored.
    package mutating func handle(_ input: Input) -> [Action] {
        switch input {
        case .channelConfigurationFetched(let configuration): return self.configurationFetched(configuration)
        case .channelConfigurationFailed(let error): return self.preparationFailed(error, during: .configuration)
        case .visitorStored: return self.visitorStored()
        case .visitorFailed(let error): return self.preparationFailed(error, during: .visitor)
        case .availabilityFetched(let online): return self.availabilityFetched(online: online)
        case .availabilityFailed(let error): return self.availabilityFailed(error)
        case .socketOpened: return self.socketOpened()
        case .transactionTokenFetched(let token): return self.transactionTokenFetched(token)
        case .transactionTokenFailed(let error): return self.transactionTokenFailed(error)
        case .socketClosed(let reason): return self.socketClosed(reason: reason)
        case .authorized(let identity, let token): return self.authorized(identity, accessToken: token)
        case .reconnected: return self.customerReconnected()
        case .tokenRefreshed(let token): return self.tokenRefreshed(token)
        case .threadRecovered(let thread, let caseID, let agent): return self.threadRecovered(thread, caseID: caseID, agent: agent)
        case .threadRecoveryFailed(let threadID): return self.threadRecoveryFailed(threadID: threadID)
        case .threadListFetched(let ids, let at): return self.threadListFetched(ids, at: at)
        case .threadMetadataLoaded(let id, let name, let message): return self.threadMetadataLoaded(id, name: name, lastMessage: message)
        case .messageCreated(let message, let caseID): return self.messageCreated(message, caseID: caseID)
        case .hiddenMessageCreated(let message, let caseID): return self.messageCreated(message, caseID: caseID, hidden: true)
        case .proactiveAction(let welcome): return self.proactiveAction(welcome: welcome)
        case .caseStatusChanged(let caseID, let status): return self.caseStatusChanged(caseID: caseID, status: status)
        case .eventInS3(let url, _): return self.eventInS3(url: url)
        case .downloaded(let url, let event): return self.downloaded(url: url, event)
        case .downloadFailed(let url, let reason): return self.downloadFailed(url: url, reason: reason)
        case .downloadIgnored(let url): return self.downloadIgnored(url: url)
        case .operationError(let code, let message):
            return self.serverFailed(ChatError(.operation, "the chat server refused an operation (\(code)): \(message)", serverCode: code))
        case .serverError(let message): return self.serverFailed(ChatError(.server, "the chat server failed: \(message)"))
        case .pong: return self.pong()
        case .agentTyping(let threadID, let started, let agent, let time):
            return self.agentTyping(threadID: threadID, started: started, agent: agent, at: time)
        case .positionInQueue(let caseID, let position): return self.positionInQueue(caseID: caseID, position: position)
        case .assigneeChanged(let caseID, let agent): return self.assigneeChanged(caseID: caseID, agent: agent)
        case .messageRead(let message): return self.messageRead(message)
        }
    }

    /// A timer the machine set fired; stale ones are ignored.
    package mutating func timerFired(_ id: TimerID) -> [Action] {
        guard self.timers.fire(id) else { return [] }
        switch id.kind {
        case .heartbeat: return self.heartbeatDue()
        case .pongTimeout: return self.pongMissed()
        case .reconnect: return self.reconnectDue()
        case .response: return self.responseMissed()
        case .visitExpiry:
            self.visit?.active = false
            return []
        case .transactionTokenExpiry:
            self.transactionToken = nil
            return []
        }
    }

    // MARK: Helpers

    /// Moves to `connection`, reporting the state if it changed.
    mutating func enter(_ connection: ChatConnection) -> [Action] {
        let before = self.state
        self.connection = connection
        return self.reportState(since: before)
    }

    /// Moves the open socket's flow to `phase`, reporting the state if it changed.
    mutating func enterPhase(_ phase: ChatConnection.Phase) -> [Action] {
        let before = self.state
        self.connection.modifyConnected { $0.phase = phase }
        return self.reportState(since: before)
    }

    /// The state changed since it was `before`: report it.
    func reportState(since before: ChatState) -> [Action] {
        self.state == before ? [] : [.report(.stateChanged(self.state))]
    }

    /// The socket is open.
    var isSocketOpen: Bool { self.connection.connected != nil }

    /// The connection restores one that was lost (agent messages its recoveries bring are news).
    var isRecovering: Bool { self.connection.recovery != nil }

    /// What loading the threads waits for, while it does.
    var loading: ChatConnection.Loading? {
        if case .loading(let loading) = self.connection.connected?.phase { return loading }
        return nil
    }

    mutating func arm(_ timer: Timer, after duration: Duration) -> [Action] {
        var actions = self.disarm(timer)
        actions.append(.setTimer(self.timers.arm(timer), after: duration))
        return actions
    }

    mutating func disarm(_ timer: Timer) -> [Action] {
        self.timers.disarm(timer).map { [.cancelTimer($0)] } ?? []
    }

    static func sameID(_ a: String, _ b: String) -> Bool {
        a == b || a.lowercased() == b.lowercased()
    }

    /// Stores the known thread ids if they changed.
    mutating func storeThreadIDs() -> [Action] {
        let ids = self.threads.map(\.id)
        guard ids != self.persisted.threadIDs else { return [] }
        self.persisted.threadIDs = ids
        return [.store(.threadIDs(ids))]
    }
}
