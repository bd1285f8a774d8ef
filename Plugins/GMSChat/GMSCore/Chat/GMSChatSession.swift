package import AttendantPluginAPI
package import AttendantPluginKit

/// A GMS customer chat on top of its CometD session, as one pure value that the kit's ``SessionDriver``
/// drives, composed of smaller states named for what they hold: the chat (``GMSChat``: its start with
/// the callers waiting for it, its keys, thread and contact), its transcript (``GMSTranscript``: each row
/// shown once, in position order, the highest position shown persisted whenever it rises, and when to ask
/// GMS for the chat's events again), whether the channel listens in the foreground or the background
/// (``GMSChatPresence``), and whether the session is connected, with the callers of `listen()` waiting
/// until it is (``GMSChatConnection``).
/// It holds the CometD session itself, as a component (``BayeuxTransport``, with the Bayeux client's
/// machine): its POSTs are the session's work, its WebSocket the driver's link, its timers the session's.
///
/// The chat's events after the position shown are asked for when rows wait behind a gap, when the session
/// was interrupted, and when it is a new one (a chat is not bound to a new client id by itself).
package struct GMSChatSession: ChannelSession {
    package typealias Action = SessionAction<Timer, Work>

    package typealias Phase = GMSChat.Phase

    package enum Timer: Hashable, Sendable {
        /// Rows wait behind a missing position: ask for a replay, then give the gap up.
        case gap
        /// A waiting caller's deadline.
        case request(UInt64)
        /// The Bayeux client's.
        case bayeux(TimerID<BayeuxClientStateMachine.TimerKind>)
        /// Rows fetched for the thread's history did not come in time: the callers hear what is held.
        case historyFetch
    }

    /// What the channel does with GMS, in the order the session asked. A long-polling batch is POSTed; the
    /// chat's work is v1's HTTP call when ``call(for:)`` makes one, else the session's step
    /// ``carryOut(_:now:)`` when its turn comes, which publishes it on CometD.
    package enum Work: Sendable {
        /// Ask for the chat's events after `position` (v2 `requestNotifications` from the next position, v1
        /// `refresh`); the answer is ``notificationsAsked(succeeded:)``, a failure a warning too.
        case requestNotifications(GMSChatKeys, after: Int)
        /// Ask for a chat (v2 `requestChat`; v1 `request-chat`, answered with ``v1ServiceMade(_:)``); a
        /// failure is ``startFailed(_:)``.
        case requestChat
        /// v1: create the chat interaction of the service; answered with ``v1Created(_:_:now:)`` or
        /// ``startFailed(_:)``.
        case createV1Interaction(serviceID: String)
        /// A long-polling batch: POST it beside the other work under its tag, and answer with
        /// ``posted(_:_:now:)`` (unless the session no longer ``BayeuxTransport/wants(_:)`` it when its
        /// turn comes).
        case post(BayeuxPost)
        /// Fetch the thread's older rows: v2 `requestNotifications` from `from` (GMS re-sends every row
        /// from there); the answer is ``historyFetchAsked(succeeded:)``.
        case fetchRows(GMSChatKeys, from: Int)
    }

    /// Where the chat's state is kept in the channel's store.
    package enum StoreKey {
        package static let position = "transcript-position"
        package static let thread = "thread-id"
        package static let phase = "chat-phase"
    }

    /// Keeps `value` under `key` of the channel's store.
    static func store(_ value: String?, key: String) -> Action {
        .write(StoreWrite(.store, key: key, value: value, what: "the chat's \(key)"))
    }

    package struct Settings: Sendable {
        /// 1 or 2.
        package var apiVersion: Int
        /// The service, which names the chat's thread.
        package var service: String
        /// What messages call the server: `GMS at https://gms.example.com/genesys (chat API v2)`.
        package var serverDescription: String
        /// How long a replay may take before the gap it was asked for is skipped.
        package var networkDelay: Duration
        /// A new local id for a chat's thread (GMS's ids are secrets), also an upload's boundary.
        package var makeThreadID: @Sendable () -> String
        /// GMS's base URL, under which the HTTP calls go.
        package var baseURL: String
        /// v1's `gms_user` header.
        package var gmsUser: String
        /// Who the customer is to GMS: what a chat is requested with.
        package var customer: GMSCustomer

        package init(
            apiVersion: Int,
            service: String,
            serverDescription: String,
            networkDelay: Duration,
            makeThreadID: @escaping @Sendable () -> String = GMSChatSession.newThreadID,
            baseURL: String = "",
            gmsUser: String = "",
            customer: GMSCustomer = GMSCustomer()
        ) {
            self.apiVersion = apiVersion
            self.service = service
            self.serverDescription = serverDescription
            self.networkDelay = networkDelay
            self.makeThreadID = makeThreadID
            self.baseURL = baseURL
            self.gmsUser = gmsUser
            self.customer = customer
        }

        /// The HTTP calls beside CometD.
        var http: GMSChatHTTP {
            GMSChatHTTP(baseURL: self.baseURL, gmsUser: self.gmsUser, serverDescription: self.serverDescription, networkDelay: self.networkDelay)
        }
    }

    /// A new local id for a chat's thread.
    package static func newThreadID() -> String {
        var random = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return "gms-" + String((0..<16).map { _ in digits[Int(random.next() % 16)] })
    }

    /// What the store and the secrets held when the channel started.
    package struct Stored: Sendable {
        package var position: Int
        package var threadID: String?
        package var phase: Phase
        package var keys: GMSChatKeys

        package init(position: Int = 0, threadID: String? = nil, phase: Phase = .none, keys: GMSChatKeys = GMSChatKeys()) {
            self.position = position
            self.threadID = threadID
            self.phase = phase
            self.keys = keys
        }

        /// What the channel's store (every value) and the secrets (the chat's keys) hold; a position or
        /// phase that does not parse counts as none.
        package init(store values: [String: String], secrets: [String: String]) {
            self.init(
                position: values[StoreKey.position].flatMap { Int($0) } ?? 0,
                threadID: values[StoreKey.thread],
                phase: values[StoreKey.phase].flatMap(Phase.init(rawValue:)) ?? .none,
                keys: GMSChatKeys(secrets: secrets)
            )
        }
    }

    /// The chat: none, starting (with the callers waiting), active (with its keys and thread), or ended.
    package internal(set) var chat = GMSChat.none(lastThread: nil)
    /// The rows shown, and what to ask GMS for again.
    package internal(set) var transcript: GMSTranscript
    /// Whether the channel listens, in the foreground or the background.
    package internal(set) var presence = GMSChatPresence.idle
    /// Whether the CometD session's latest connect succeeded, with the callers of `listen()` waiting for one.
    package internal(set) var connection = GMSChatConnection.connecting(waiting: [:])
    package internal(set) var lastError: String?
    package internal(set) var eventsRejected = 0
    package internal(set) var eventsIgnored = 0
    /// The chat's messages for reading the thread back.
    package internal(set) var history: GMSChatHistory
    /// A fetch of older rows under way: the position it asked from, and the callers waiting for it.
    var historyFetch: GMSChatHistoryFetch?
    /// The CometD session.
    package internal(set) var bayeux: BayeuxTransport
    /// The publishes waiting for GMS's answer, by the publish's id.
    var publishes: [String: GMSChatPublish] = [:]
    /// Callers waiting for the session to end.
    var disconnecting: [UInt64] = []
    let settings: Settings
    /// The start of every message (the plugin's name).
    package static let prefix = "gms-chat"
    var prefix: String { Self.prefix }

    /// The session for what was stored: a chat kept with its thread and keys (v2 needs the secure key, v1
    /// its service as well) resumes after the position shown. Its CometD session is reached as `transport` says.
    package init(settings: Settings, transport: BayeuxTransport.Configuration, stored: Stored = Stored()) {
        self.settings = settings
        self.bayeux = BayeuxTransport(configuration: transport)
        self.transcript = GMSTranscript(shown: stored.position)
        self.history = GMSChatHistory(shown: stored.position)
        let resumable = stored.phase == .active && stored.keys.secureKey != nil && (settings.apiVersion == 2 || stored.keys.serviceID != nil)
        if resumable, let thread = stored.threadID {
            self.chat = .active(GMSChat.Active(keys: stored.keys, thread: thread, contact: .recorded))
        }
    }

    /// The chat's phase.
    package var phase: Phase { self.chat.phase }

    /// The active chat's keys.
    package var keys: GMSChatKeys? { self.chat.active?.keys }

    /// The chat's id for the host (contacts, alerts, D-Bus): a local one, since GMS's are secrets.
    package var threadID: String? { self.chat.thread }

    var server: String { self.settings.serverDescription }

    /// The rows shown.
    package var ledger: TranscriptLedger { self.transcript.ledger }

    // MARK: The CometD session

    /// `listen()` connected: the channel listens, and earlier errors are over.
    package mutating func listened() {
        self.presence.listened()
        self.lastError = nil
    }

    /// The host stops the channel (which then says goodbye).
    package mutating func stopListening() {
        self.presence.stopListening()
    }

    /// The host went to the background: true if the channel listens, and so says goodbye.
    package mutating func enterBackground() -> Bool {
        self.presence.enterBackground()
    }

    /// The host is back in the foreground: true if the channel listened in the background, and so starts
    /// a new session (``startSession(now:)``).
    package mutating func enterForeground() -> Bool {
        self.presence.enterForeground()
    }

    /// Whether the channel listens.
    package var listening: Bool { self.presence.isListening }

    /// A new session: ask for everything after the stored position.
    package mutating func handshook() -> [Action] {
        guard self.phase == .active else { return [] }
        return self.requestNotifications()
    }

    /// A connect succeeded (over `connectionType`).
    package mutating func connected(over connectionType: String) -> [Action] {
        let waiting = self.connection.connect()
        self.lastError = nil
        var actions: [Action] = [.log(.info, "\(self.prefix): connected to \(self.server) over \(connectionType)")]
        actions += self.reply(to: waiting, .success(.done))
        if let serviceID = self.chat.connected() { actions.append(.work(.createV1Interaction(serviceID: serviceID))) }
        if self.phase == .active, self.transcript.catchUp == .owed { actions += self.requestNotifications() }
        return actions
    }

    /// The connection failed; the client reconnects by itself. The chat's events after the stored
    /// position are asked for at once: the request goes out on a new connection and is answered there,
    /// while a new connect may be held by the server for its whole timeout. If it fails too, it is made
    /// again once a connect succeeds.
    package mutating func interrupted(_ failure: String) -> [Action] {
        self.connection.interrupt()
        self.transcript.catchUp.interrupted()
        self.lastError = failure
        var actions: [Action] = [.log(.notice, "\(self.prefix): the connection to \(self.server) was interrupted: \(failure); reconnecting")]
        if self.phase == .active, !self.transcript.catchUp.isAsking { actions += self.requestNotifications() }
        return actions
    }

    package func transportChanged(to connectionType: String) -> [Action] {
        [.log(.notice, "\(self.prefix): \(self.server) is reached over \(connectionType) from now on")]
    }

    /// The session ended: disconnected (nil), or stopped by the server. A listening channel that did not
    /// ask for it has stopped listening.
    package mutating func stopped(_ failure: String?) -> [Action] {
        let waiting = self.connection.stop()
        let report = failure != nil && self.presence.serverEnded()
        let error = ChannelError(.transient, "\(self.prefix): \(self.server) ended the session: \(failure ?? "disconnected")")
        return self.reply(to: waiting, .failure(error)) + (report ? [.emit(.stoppedListening(error))] : [])
    }

    // MARK: Deliveries

    package mutating func ignored(channel: String) -> [Action] {
        self.eventsIgnored += 1
        return [.log(.notice, "\(self.prefix): ignored an event on \(channel), which this chat does not use")]
    }

    package mutating func rejected(channel: String, _ error: GMSDecodeError) -> [Action] {
        self.eventsRejected += 1
        return [.log(.warning, "\(self.prefix): ignored an event on \(channel) from \(self.server): \(error)")]
    }

    /// A v2 event: the answer to an operation or a notification.
    package mutating func received(_ reply: GMSChatV2Reply, now: UnixTime) -> [Action] {
        if reply.statusCode != 0 {
            let reason = reply.errors.isEmpty ? "status \(reply.statusCode)" : reply.errors.joined(separator: "; ")
            self.lastError = "GMS refused an operation: \(reason)"
            let refused = Action.log(.warning, "\(self.prefix): \(self.server) refused an operation: \(reason)")
            if self.phase == .starting {
                return [refused] + self.startFailed(ChannelError(.server, "\(self.prefix): \(self.server) did not start the chat: \(reason)"))
            }
            return [refused] + (reply.chatEnded ? self.end() : [])
        }
        var actions: [Action] = []
        if self.phase == .starting, let secureKey = reply.secureKey {
            let (began, waiting) = self.begin(GMSChatKeys(secureKey: secureKey, chatID: reply.chatID, userID: reply.userID, alias: reply.alias))
            actions += began + self.reply(to: waiting, .success(.done))
        } else if let key = reply.secureKey, let ours = self.keys?.secureKey, key != ours {
            return [.log(.debug, "\(self.prefix): ignored an event of another chat")]
        } else if let keys = self.keys {
            // Keys GMS hands out later (the alias, the user id) are kept too.
            let updated = GMSChatKeys(
                secureKey: keys.secureKey,
                chatID: reply.chatID ?? keys.chatID,
                userID: reply.userID ?? keys.userID,
                alias: reply.alias ?? keys.alias,
                serviceID: keys.serviceID
            )
            if updated != keys {
                self.chat.modifyActive { $0.keys = updated }
                actions += GMSChatKeys.writes(updated).map(Action.write)
            }
        }
        guard self.phase == .active else { return actions }
        actions += self.accept(reply.messages, now: now)
        return actions + (reply.chatEnded ? self.end() : [])
    }

    /// A v1 event on `/_genesys`: every chat's events share the channel, so only this chat's are taken.
    package mutating func received(_ event: GMSChatV1Event, now: UnixTime) -> [Action] {
        guard self.phase == .active, let keys = self.keys else { return [] }
        let ours = (event.serviceID != nil && event.serviceID == keys.serviceID) || (event.chatSessionID != nil && event.chatSessionID == keys.chatID)
        guard ours else { return [.log(.debug, "\(self.prefix): ignored a /_genesys event of another chat")] }
        return self.accept(event.rows, now: now) + (event.state == "DISCONNECTED" ? self.end() : [])
    }

    // MARK: Waiting callers

    /// A `listen()` waiting as request `id` for the first successful connect, for at most `timeout`.
    package mutating func awaitConnect(_ id: UInt64, timeout: Duration) -> [Action] {
        guard self.connection.wait(id, timeout: timeout) else { return [.replied(id, .success(.done))] }
        return [.setTimer(.request(id), after: timeout)]
    }

    /// The waiting callers `ids`, whose deadlines end, hear `outcome`.
    func reply(to ids: [UInt64], _ outcome: Result<ChannelReply, ChannelError>) -> [Action] {
        ids.flatMap { id -> [Action] in [.cancelTimer(.request(id)), .replied(id, outcome)] }
    }

    /// The request for the chat's events went out (or failed, and is made again once connected).
    package mutating func notificationsAsked(succeeded: Bool) -> [Action] {
        self.transcript.catchUp.answered(succeeded: succeeded)
        return []
    }

    package mutating func forgetRequest(_ id: UInt64) {
        self.connection.forget(id)
        self.chat.forget(id)
        self.publishes = self.publishes.filter { $0.value.caller != id }
        self.disconnecting.removeAll { $0 == id }
        self.historyFetch?.waiting[id] = nil
    }

    package mutating func timerFired(_ timer: Timer, now: UnixTime) -> [Action] {
        switch timer {
        case .gap:
            return self.gapTimerFired(now: now)
        case .bayeux(let id):
            return self.bayeux(now: now) { $0.timerFired(id, now: now.elapsed) }
        case .historyFetch:
            return self.historyFetchEnded()
        case .request(let id):
            if let timeout = self.connection.timeOut(id) {
                return [.replied(id, .failure(ChannelError(.transient, "\(self.prefix): no connect to \(self.server) succeeded within \(timeout)")))]
            }
            guard let timeout = self.chat.timeOut(id) else { return [] }
            // A start that does not come fails every caller waiting for it.
            let error = ChannelError(.transient, "\(self.prefix): \(self.server) did not start the chat within \(timeout)")
            return [.replied(id, .failure(error))] + self.startFailed(error)
        }
    }

    // MARK: What the host sees

    func thread(_ id: String, _ state: ThreadState) -> ChatThread {
        ChatThread(id: id, name: "Chat with \(self.settings.service)", state: state)
    }

    /// The chat's thread, if it had one, without messages.
    var bareThread: ChatThread? {
        guard let threadID = self.threadID else { return nil }
        return self.thread(threadID, self.phase == .active ? .ready : .closed)
    }

    /// The chat's part of `chat status`.
    package func statusFields() -> [String: String] {
        var fields: [String: String] = [
            "chat": self.phase.rawValue,
            "state": self.phase == .active
                ? ChatState.ready.rawValue : (self.connection.isConnected ? ChatState.connected.rawValue : ChatState.connecting.rawValue),
            "connected": self.connection.isConnected ? "yes" : "no",
            "background": self.presence.isInBackground ? "yes" : "no",
            "transcript-position": String(self.ledger.shown),
            "events-rejected": String(self.eventsRejected),
            "events-ignored": String(self.eventsIgnored),
        ]
        if let gap = self.ledger.gap { fields["waiting-for-position"] = String(gap) }
        if let error = self.lastError { fields["last-error"] = error }
        if let thread = self.threadID { fields["thread"] = thread }
        return fields
    }
}
