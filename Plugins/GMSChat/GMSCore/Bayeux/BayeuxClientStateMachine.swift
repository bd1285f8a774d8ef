package import AttendantPluginKit

/// A Bayeux 1.0 client with no I/O: it takes what happened (a batch arrived, a request failed, a timer
/// fired) and returns the ``Action``s its driver carries out. Time comes in as the elapsed time on the
/// channel's clock, so tests walk hours of connects in microseconds.
///
/// What it guarantees (CometD's Bayeux specification and the failures real clients hit, gms-cometd.md §4):
/// - one handshake in flight, and one `/meta/connect` outstanding, sent on a lane of its own and never
///   batched with anything else;
/// - the server's advice decides: `handshake` re-handshakes (whatever the error text: GMS says
///   `402::Unknown client`, CometD 4 `402::session_unknown`, Faye `401::Unknown client`), `retry`
///   connects again after `interval`, `none` stops;
/// - a connect that fails at the transport is retried at once and then with growing, jittered waits; once
///   the server must have forgotten the client (`maxInterval` without a connect), it handshakes instead;
/// - replies are matched by `id` and `successful` together, because events may carry their publisher's id;
/// - subscriptions are made again after every handshake, and publishes wait for a session.
package struct BayeuxClientStateMachine: Sendable {
    package struct Configuration: Sendable, Hashable {
        package var connectionType: BayeuxConnectionType = .longPolling
        /// Advice until the server gives its own: CometD's defaults (connect held 60 s by the client's
        /// reckoning, the server forgets a client 10 s after its last connect ended).
        package var defaultAdvice = BayeuxAdvice(reconnect: .retry, interval: .zero, timeout: .seconds(60), maxInterval: .seconds(10))
        /// Added to `advice.timeout` for a connect's deadline, and the deadline of every other request
        /// (CometD's `maxNetworkDelay`).
        package var networkDelay: Duration = .seconds(10)
        /// How long a `/meta/disconnect` waits for its answer (never longer than `networkDelay`). The
        /// disconnect is a courtesy: the chat's position is also kept on this side, and a stop or a sleep
        /// has a budget of its own (the daemon's shutdown, logind's 5 s delay lock), so it is short.
        package var disconnectDelay: Duration = .seconds(3)
        /// Waits between failed attempts after the first, which is immediate.
        package var backoff = Backoff(base: .seconds(1), factor: 2, cap: .seconds(30), jitter: .full)
        /// Extension fields for every handshake.
        package var handshakeExt: [String: JSONValue]? = nil

        package init() {}
    }

    /// Which request lane a batch goes on. Over long-polling each is its own HTTP connection, so a held
    /// `/meta/connect` never queues a publish behind it; over WebSocket both share the socket.
    package enum Lane: Sendable, Hashable {
        case connect
        case control
    }

    package enum TimerKind: Sendable, Hashable {
        /// Wait before the next handshake attempt.
        case handshake
        /// Wait before the next connect (`advice.interval`, or backoff).
        case connect
        /// The outstanding connect's deadline.
        case connectDeadline
        /// The deadline of a handshake, publish, subscribe or disconnect, by its message id.
        case reply(String)
    }

    package enum Action: Sendable, Hashable {
        case send([BayeuxMessage], on: Lane)
        case arm(TimerID<TimerKind>, after: Duration)
        case cancel(TimerID<TimerKind>)
        /// Give up the outstanding connect: cancel its request, or close the WebSocket.
        case abandonConnect
        /// Use this connection type from now on (the server does not offer the one asked for).
        case useConnectionType(BayeuxConnectionType)
        /// A new session: the application binds what it needs to the new client id (GMS: ask for the
        /// chat's notifications again, from the stored transcript position).
        case handshook(clientID: String)
        /// A connect came back successful after none had (or after the first handshake).
        case connected
        /// Connects are failing; the machine is retrying.
        case connectionInterrupted(BayeuxFailure)
        /// An event on a channel: the application's data.
        case deliver(BayeuxMessage)
        case published(id: String, Result<BayeuxMessage, BayeuxFailure>)
        case subscriptionFailed(channel: String, BayeuxFailure)
        /// Stopped for good (`reconnect: none`), or after ``disconnect(ext:now:)``; ``start(now:)`` begins a
        /// new session.
        case stopped(BayeuxFailure?)
        /// Something the driver should log at debug level: a stale reply, an ignored message.
        case note(String)
    }

    package struct Status: Sendable, Hashable {
        package var clientID: String?
        /// When the session's handshake succeeded (elapsed time), for its age.
        package var handshakeAt: Duration?
        package var connectionType: BayeuxConnectionType
        package var advice: BayeuxAdvice
        package var connected: Bool
        package var failures: Int

        package init(
            clientID: String?,
            handshakeAt: Duration?,
            connectionType: BayeuxConnectionType,
            advice: BayeuxAdvice,
            connected: Bool,
            failures: Int
        ) {
            self.clientID = clientID
            self.handshakeAt = handshakeAt
            self.connectionType = connectionType
            self.advice = advice
            self.connected = connected
            self.failures = failures
        }
    }

    /// One state; what exists only in a session (its client id, its connect) lives in ``Session``.
    enum Phase: Sendable, Hashable {
        case idle
        case waitingToHandshake
        case handshaking(id: String)
        case session(Session)
        case disconnecting(id: String)
        case stopped
    }

    enum Request: Sendable, Hashable {
        case publish
        case subscribe(String)
        case unsubscribe(String)
    }

    let configuration: Configuration
    var phase: Phase = .idle
    var connectionType: BayeuxConnectionType
    var advice: BayeuxAdvice
    /// Consecutive failures of the current kind of attempt, for the backoff.
    var failures = 0
    var nextMessageID: UInt64 = 0
    var subscriptions: [String] = []
    // Requests outlive a session: a publish waits for one in `queued`, and replies are awaited while
    // disconnecting.
    var inFlight: [String: Request] = [:]
    var queued: [BayeuxMessage] = []
    var timers = TimerTable<TimerKind>()
    var random: any RandomNumberGenerator & Sendable

    package init(configuration: Configuration = Configuration(), random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.configuration = configuration
        self.connectionType = configuration.connectionType
        self.advice = configuration.defaultAdvice
        self.random = random
    }

    package var status: Status {
        Status(
            clientID: self.session?.clientID,
            handshakeAt: self.session?.handshakeAt,
            connectionType: self.connectionType,
            advice: self.advice,
            connected: self.session?.connected ?? false,
            failures: self.failures
        )
    }

    /// The id of the `/meta/connect` waiting for its answer, if one is.
    package var outstandingConnect: String? { self.session?.outstandingConnect }

    /// The deadline the driver gives the outstanding connect's request: the server's hold plus the
    /// network's delay (HTTP timeouts above `advice.timeout`).
    package var connectRequestTimeout: Duration {
        (self.advice.timeout ?? .zero) + self.configuration.networkDelay
    }

    // MARK: Application inputs

    /// Begins a session: handshake, connect, subscribe. Does nothing while one is running.
    package mutating func start(now: Duration) -> [Action] {
        switch self.phase {
        case .idle, .stopped:
            self.failures = 0
            return self.handshake()
        case .waitingToHandshake, .handshaking, .session, .disconnecting:
            return []
        }
    }

    /// The transport changed (a WebSocket upgrade failed, so long-polling it is); the next handshake and
    /// connect say so.
    package mutating func use(_ connectionType: BayeuxConnectionType) {
        self.connectionType = connectionType
    }

    /// Subscribes to `channel` now and after every handshake.
    package mutating func subscribe(_ channel: String) -> [Action] {
        guard !self.subscriptions.contains(channel) else { return [] }
        self.subscriptions.append(channel)
        return self.sendSubscribe([channel])
    }

    /// Stops subscribing to `channel`: `/meta/unsubscribe` now (in a session), and no subscription after
    /// later handshakes.
    package mutating func unsubscribe(_ channel: String) -> [Action] {
        guard let index = self.subscriptions.firstIndex(of: channel) else { return [] }
        self.subscriptions.remove(at: index)
        guard let clientID = self.session?.clientID else { return [] }
        let id = self.makeID()
        var message = BayeuxMessage(channel: "/meta/unsubscribe", id: id, clientID: clientID)
        message.subscription = [channel]
        self.inFlight[id] = .unsubscribe(channel)
        return self.sendControl([message])
    }

    /// Publishes `data` on `channel`; the reply comes as ``Action/published(id:_:)`` with the returned id.
    /// Without a session the message waits for the next handshake.
    package mutating func publish(_ channel: String, data: JSONValue, ext: [String: JSONValue]? = nil) -> (id: String, actions: [Action]) {
        let id = self.makeID()
        let message = BayeuxMessage(channel: channel, id: id, data: data, ext: ext)
        self.inFlight[id] = .publish
        guard let clientID = self.session?.clientID else {
            self.queued.append(message)
            return (id, [])
        }
        var bound = message
        bound.clientID = clientID
        return (id, self.sendControl([bound]))
    }

    /// Ends the session with `/meta/disconnect` (carrying `ext`, such as GMS's transcript position), and
    /// stops. Publishes still waiting fail.
    package mutating func disconnect(ext: [String: JSONValue]? = nil, now: Duration) -> [Action] {
        var actions = self.stopSessionTimers()
        actions += self.failQueued(.disconnected)
        guard let clientID = self.session?.clientID else {
            self.phase = .stopped
            return actions + [.stopped(nil)]
        }
        let id = self.makeID()
        let message = BayeuxMessage(channel: "/meta/disconnect", id: id, clientID: clientID, ext: ext)
        // The session ends here. The server ends the held connect itself; its answer no longer matters.
        self.phase = .disconnecting(id: id)
        actions += self.sendControl([message], deadline: min(self.configuration.disconnectDelay, self.configuration.networkDelay))
        return actions
    }
}

/// A connection type a Bayeux client and server agree on at handshake.
package struct BayeuxConnectionType: Sendable, Hashable, CustomStringConvertible {
    package let rawValue: String
    package init(_ rawValue: String) { self.rawValue = rawValue }

    package static let longPolling = BayeuxConnectionType("long-polling")
    package static let webSocket = BayeuxConnectionType("websocket")

    package var description: String { self.rawValue }
}

/// Why a request or the session failed.
package struct BayeuxFailure: Error, Sendable, Hashable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) { self.description = description }

    /// The server's refusal, with its error text (`402::Unknown client`).
    package static func refused(_ what: String, error: String?) -> BayeuxFailure {
        BayeuxFailure("the server refused the \(what)" + (error.map { ": \($0)" } ?? " without saying why"))
    }

    package static func transport(_ what: String) -> BayeuxFailure { BayeuxFailure(what) }

    package static let timedOut = BayeuxFailure("no reply in time")
    package static let disconnected = BayeuxFailure("the session was disconnected before the message went out")
    package static let endedBeforeReply = BayeuxFailure("the session ended before the server answered")
    package static let noCommonConnectionType = BayeuxFailure("the server offers none of this client's connection types")
}

extension BayeuxClientStateMachine.Status {
    /// The session as `chat status` shows it: the transport, the client id's age at `now` (elapsed time,
    /// as `handshakeAt`), the server's last advice (`reconnect=retry interval=0 ms timeout=30000 ms`) and
    /// the failures in a row, if any.
    package func fields(now: Duration) -> [String: String] {
        var fields = ["transport": self.connectionType.rawValue]
        if let handshakeAt = self.handshakeAt, self.clientID != nil {
            fields["client-id-age"] = "\((now - handshakeAt).components.seconds) s"
        }
        func milliseconds(_ name: String, _ value: Duration?) -> String? {
            value.map { "\(name)=\($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) ms" }
        }
        let advice = [
            self.advice.reconnect.map { "reconnect=\($0)" }, milliseconds("interval", self.advice.interval),
            milliseconds("timeout", self.advice.timeout), milliseconds("maxInterval", self.advice.maxInterval),
        ]
        fields["advice"] = advice.compactMap { $0 }.joined(separator: " ")
        if self.failures > 0 { fields["failures"] = String(self.failures) }
        return fields
    }
}
