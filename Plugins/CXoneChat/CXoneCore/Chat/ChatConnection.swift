package import AttendantPluginAPI

/// Where the chat stands with the gateway, as one state: what exists only while the socket is open (what
/// it sent of the outbox, its heartbeat, the large events it announced, the loss it recovers from) lives
/// in ``connected(_:)`` and ends with it. The reported ``ChatState`` follows from it (``reported``).
///
/// prepare() goes from ``unprepared`` (or ``offline``) through ``preparing(_:)`` to ``prepared``;
/// connect() (a live chat through ``checkingAvailability(offline:)``; with secured sessions through
/// ``authenticating(_:)``) to ``opening(_:)``, then
/// ``connected(_:)``: authorizing, loading the threads, ready. A lost socket waits in
/// ``waitingToReconnect(_:)`` and opens again, with backoff, up to the configured number of tries
/// (``lose(reason:maximumAttempts:)``).
package enum ChatConnection: Sendable, Hashable {
    /// Not prepared: prepare() was not called, or it failed (`initial`).
    case unprepared
    /// prepare(): waiting for the channel configuration, then for the visitor (`preparing`).
    case preparing(Preparation)
    /// Prepared, not connected (`prepared`).
    case prepared
    /// background() disconnected a session that foreground() connects again (`prepared`).
    case asleep
    /// The live chat was offline when connect() asked (`offline`).
    case offline
    /// connect() on a live chat waits for its availability (`offline` if the chat was offline, else
    /// `prepared`).
    case checkingAvailability(offline: Bool)
    /// Secured sessions: the token server is asked for the transaction token the socket needs, the first
    /// time since connect() (`nil`) or again after a loss (`connecting`).
    case authenticating(Recovery?)
    /// The socket is asked to open: the first time since connect() (`nil`), or again after a loss
    /// (`connecting`).
    case opening(Recovery?)
    /// The socket is open.
    case connected(Connected)
    /// The socket was lost; the reconnect timer runs (`connecting`).
    case waitingToReconnect(Recovery)

    /// What prepare() waits for.
    package enum Preparation: Sendable, Hashable {
        case configuration
        case visitor
    }

    /// A lost connection being restored: the tries so far (from 1) and why it was last lost.
    package struct Recovery: Sendable, Hashable {
        package var attempt: Int
        package var lastLoss: String

        package init(attempt: Int, lastLoss: String) {
            self.attempt = attempt
            self.lastLoss = lastLoss
        }
    }

    /// An open socket.
    package struct Connected: Sendable, Hashable {
        package var phase: Phase
        /// The loss this connection restores, until the chat is ready again: agent messages its
        /// recoveries bring are news, and a multi-thread chat recovers the threads that were open.
        package var recovery: Recovery?
        /// The outbox entries sent on this socket.
        package var sent = ChatOutbox.Sent()
        package var heartbeat = Heartbeat.scheduled
        /// The large events (EventInS3) this socket announced whose bodies are being downloaded.
        package var downloads: Set<String> = []

        package init(phase: Phase, recovery: Recovery?) {
            self.phase = phase
            self.recovery = recovery
        }

        /// One of the threads loading waits for (metadata or recoveries) was answered (`nil`: all of
        /// them); true if it waits for no more.
        package mutating func answered(_ threadKey: String?) -> Bool {
            switch self.phase {
            case .loading(.metadata(var waiting)):
                // The phase lets go of its set first, so removing does not copy it (1000 threads: 1000
                // copies).
                self.phase = .loading(.recovery)
                if let threadKey { waiting.remove(threadKey) } else { waiting.removeAll() }
                self.phase = .loading(.metadata(waiting))
                return waiting.isEmpty
            case .loading(.recoveries(var waiting)):
                self.phase = .loading(.recovery)
                if let threadKey { waiting.remove(threadKey) } else { waiting.removeAll() }
                self.phase = .loading(.recoveries(waiting))
                return waiting.isEmpty
            default:
                return false
            }
        }
    }

    /// Where the flow on an open socket is.
    package enum Phase: Sendable, Hashable {
        /// AuthorizeCustomer (`withToken`: ReconnectCustomer) is unanswered (`connecting`).
        case authorizing(withToken: Bool)
        /// The threads are being loaded (`connected`).
        case loading(Loading)
        /// `ready`.
        case ready
        /// A live chat whose conversation is over (`closed`).
        case conversationOver
    }

    /// What loading the threads waits for.
    package enum Loading: Sendable, Hashable {
        /// Single-thread or live chat: the thread's recovery.
        case recovery
        case threadList
        /// The metadata of these threads (lower-cased ids).
        case metadata(Set<String>)
        /// Multi-thread after a reconnect: the recoveries of the threads that were open.
        case recoveries(Set<String>)
    }

    /// The heartbeat of an open socket.
    package enum Heartbeat: Sendable, Hashable {
        /// The next heartbeat is due when its timer fires.
        case scheduled
        /// A heartbeat went out; its pong has not come.
        case awaitingPong
    }

    /// The state reported to the host.
    package var reported: ChatState {
        switch self {
        case .unprepared: .initial
        case .preparing: .preparing
        case .prepared, .asleep: .prepared
        case .offline: .offline
        case .checkingAvailability(let offline): offline ? .offline : .prepared
        case .authenticating, .opening, .waitingToReconnect: .connecting
        case .connected(let connected):
            switch connected.phase {
            case .authorizing: .connecting
            case .loading: .connected
            case .ready: .ready
            case .conversationOver: .closed
            }
        }
    }

    /// The open socket, if any.
    package var connected: Connected? {
        if case .connected(let connected) = self { return connected }
        return nil
    }

    /// The loss being restored, if any.
    package var recovery: Recovery? {
        switch self {
        case .authenticating(let recovery), .opening(let recovery): recovery
        case .connected(let connected): connected.recovery
        case .waitingToReconnect(let recovery): recovery
        default: nil
        }
    }

    /// The socket is open or asked to open: a teardown closes it.
    package var hasSocket: Bool {
        switch self {
        case .opening, .connected: true
        default: false
        }
    }

    /// Changes the open socket's state; nil (and nothing changes) if no socket is open.
    ///
    /// The state lets go of its payload first, so changing a set in it does not copy the set (loading
    /// the metadata of a thousand threads would copy it a thousand times).
    @discardableResult
    package mutating func modifyConnected<Result>(_ body: (inout Connected) -> Result) -> Result? {
        guard case .connected(var connected) = self else { return nil }
        self = .unprepared
        defer { self = .connected(connected) }
        return body(&connected)
    }

    /// What a lost socket leads to.
    package enum Loss: Sendable, Hashable {
        /// The socket never opened since connect(): the gateway cannot be reached.
        case unreachable
        /// Try again after the backoff: the state is ``waitingToReconnect(_:)``.
        case reconnect(Recovery)
        /// The last try failed too.
        case gaveUp
    }

    /// The socket closed, failed or missed its pong: with `maximumAttempts` tries left in all, the
    /// connection waits to reconnect. Call only while the socket is open or opening.
    package mutating func lose(reason: String, maximumAttempts: Int) -> Loss {
        let previous: Int
        switch self {
        case .opening(nil), .authenticating(nil):
            return .unreachable
        case .opening(let recovery?), .authenticating(let recovery?):
            previous = recovery.attempt
        case .connected(let connected):
            previous = connected.recovery?.attempt ?? 0
        default:
            preconditionFailure("a loss without a socket (\(self))")
        }
        guard previous < maximumAttempts else { return .gaveUp }
        let recovery = Recovery(attempt: previous + 1, lastLoss: reason)
        self = .waitingToReconnect(recovery)
        return .reconnect(recovery)
    }

    /// The wait before reconnect attempt `attempt` (from 1): `min(1.3^n + rand(0..1), maximum)` seconds,
    /// with `unit` the random part, as the CXone SDK's.
    package static func backoff(attempt: Int, maximum: Duration, unit: Double) -> Duration {
        var growth = 1.0
        for _ in 0..<min(attempt, 64) { growth *= 1.3 }
        let seconds = min(growth + unit, Double(maximum.components.seconds))
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
