// What exists only while the server knows this client: from a successful handshake until the session ends
// (a new handshake, a disconnect, a stop). It lives inside ``BayeuxClientStateMachine``'s `session` phase, so
// a connect without a client id, or `connected` while handshaking, cannot be written down.

extension BayeuxClientStateMachine {
    package struct Session: Sendable, Hashable {
        /// The session's one `/meta/connect` (Bayeux 1.0: "a client MUST maintain only a single outstanding
        /// connect message").
        package enum Connect: Sendable, Hashable {
            case idle
            case inFlight(id: String)
        }

        /// The id the server gave at handshake; every message of the session carries it.
        package let clientID: String
        /// When the handshake succeeded (elapsed time), for the client id's age.
        package let handshakeAt: Duration
        package private(set) var connect: Connect = .idle
        /// Whether the latest connect succeeded (false from the handshake until the first one does).
        package private(set) var connected = false
        /// When the server last heard a connect end well (or the handshake): past `maxInterval` it has
        /// forgotten the client.
        package private(set) var lastContact: Duration

        package init(clientID: String, handshakeAt: Duration) {
            self.clientID = clientID
            self.handshakeAt = handshakeAt
            self.lastContact = handshakeAt
        }

        /// The id of the `/meta/connect` waiting for its answer, if one is.
        package var outstandingConnect: String? {
            guard case .inFlight(let id) = self.connect else { return nil }
            return id
        }

        /// Connect `id` went out.
        package mutating func sent(connect id: String) {
            self.connect = .inFlight(id: id)
        }

        /// The outstanding connect is over (answered, failed, abandoned, or no longer wanted): its id, if
        /// there was one.
        package mutating func endConnect() -> String? {
            defer { self.connect = .idle }
            return self.outstandingConnect
        }

        /// A connect came back successful at `now`: whether that is news (the first since the handshake or
        /// since connects last failed).
        package mutating func connectSucceeded(now: Duration) -> Bool {
            self.lastContact = now
            defer { self.connected = true }
            return !self.connected
        }

        /// Connects are failing: whether the session was connected until now.
        package mutating func interrupt() -> Bool {
            defer { self.connected = false }
            return self.connected
        }

        /// Whether the server has had no connect for longer than it keeps a client (`maxInterval`, none: it
        /// keeps it).
        package func serverForgotClient(now: Duration, maxInterval: Duration?) -> Bool {
            guard let maxInterval else { return false }
            return now - self.lastContact > maxInterval
        }
    }

    /// The session, while there is one.
    var session: Session? {
        guard case .session(let session) = self.phase else { return nil }
        return session
    }

    /// Changes the session, if there is one; nil without.
    @discardableResult
    mutating func modifySession<Result>(_ body: (inout Session) -> Result) -> Result? {
        guard case .session(var session) = self.phase else { return nil }
        let result = body(&session)
        self.phase = .session(session)
        return result
    }

    /// Ends the outstanding connect, if one is: its id.
    mutating func endConnect() -> String? {
        self.modifySession { $0.endConnect() } ?? nil
    }

    /// Gives up the outstanding connect, if one is: the driver cancels its request.
    mutating func abandonOutstandingConnect() -> [Action] {
        self.endConnect() == nil ? [] : [.abandonConnect]
    }
}
