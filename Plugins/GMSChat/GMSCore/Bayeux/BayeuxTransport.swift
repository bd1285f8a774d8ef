package import AttendantPluginAPI
@_spi(Experimental) package import AttendantPluginKit

/// A Bayeux 1.0 client's transports as pure logic, around its machine (``BayeuxClientStateMachine``): the
/// component a session holds (``GMSChatSession``) so that its steps return what the kit's driver does.
///
/// - Long-polling: every batch is an HTTP POST of a JSON array (``BayeuxPost``). The held `/meta/connect`
///   goes on a request of its own (its time limit above `advice.timeout`), publishes and subscribes on
///   others, so a held connect never queues a publish behind it (Bayeux's two-connection operation); the
///   connect's request is run under ``BayeuxPost/connectTag``, so abandoning it cancels it. Cookies
///   (`BAYEUX_BROWSER`, a load balancer's stickiness) stay in the channel's cookie jar.
/// - WebSocket: the session's link (no subprotocol), each batch one text message, written in order. When
///   the upgrade fails before any WebSocket of this client opened, the server (or a proxy) does not do
///   WebSocket: long-polling from then on, for good. After one opened, it is a network failure like any.
///
/// Its steps return ``Output``s: what the driver does, then what the application hears (``Event``), in
/// the order the old client reported them, after everything else.
package struct BayeuxTransport: Sendable {
    package typealias Machine = BayeuxClientStateMachine

    package struct Configuration: Sendable {
        /// The endpoint, `http(s)://host:port/genesys/cometd`; the WebSocket is the same URL as `ws(s)://`.
        package var url: String
        /// Headers on every request and the WebSocket upgrade (GMS v1's `gms_user`).
        package var headers: [NetworkHeader] = []
        package var machine = Machine.Configuration()
        package var limits = BayeuxBatch.Limits()

        package init(url: String) {
            self.url = url
        }
    }

    /// What the application hears.
    package enum Event: Sendable {
        /// A new session; bind to it what the application needs (GMS: ask for notifications again).
        case handshook(clientID: String)
        case connected
        case interrupted(BayeuxFailure)
        case delivered(BayeuxMessage)
        /// The server's answer to publish `id` (``BayeuxTransport/publish(_:data:ext:)``).
        case published(id: String, Result<BayeuxMessage, BayeuxFailure>)
        /// The client uses another connection type from now on.
        case transportChanged(BayeuxConnectionType)
        /// The session ended: disconnected (nil), or stopped by the server's advice.
        case stopped(BayeuxFailure?)
    }

    /// What a step asks of the driver (each the kit's ``SessionAction`` of the same name, see
    /// ``action(_:timer:work:)``), or what the application hears.
    package enum Output: Sendable {
        /// POST a batch beside the session's other work; its answer is ``BayeuxTransport/posted(_:_:now:)``.
        case post(BayeuxPost)
        /// Cancel the held connect's POST (``BayeuxPost/connectTag``).
        case cancelConnectPost
        case openLink(WebSocketRequest)
        case writeLink([UInt8])
        case closeLink
        case setTimer(TimerID<Machine.TimerKind>, after: Duration)
        case cancelTimer(TimerID<Machine.TimerKind>)
        case log(Logger.Level, String)
        case event(Event)
    }

    enum Link: Sendable, Hashable {
        case none
        case opening
        case open
    }

    package let configuration: Configuration
    package private(set) var machine: Machine
    var link = Link.none
    /// Whether a WebSocket of this client ever opened: before one did, a failed upgrade means the server
    /// does not do WebSocket.
    var webSocketWorked = false
    package private(set) var batchesReceived = 0
    package private(set) var batchesRejected = 0

    package init(configuration: Configuration, random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.configuration = configuration
        self.machine = Machine(configuration: configuration.machine, random: random)
    }

    // MARK: The application's inputs

    /// Starts a session (handshake, connect, the subscriptions); does nothing while one runs.
    package mutating func start(now: Duration) -> [Output] {
        self.drive { $0.start(now: now) }
    }

    /// Subscribes to `channel` now (if in a session) and after every handshake.
    package mutating func subscribe(_ channel: String) -> [Output] {
        self.drive { $0.subscribe(channel) }
    }

    /// Stops subscribing to `channel`, now and after later handshakes.
    package mutating func unsubscribe(_ channel: String) -> [Output] {
        self.drive { $0.unsubscribe(channel) }
    }

    /// Publishes `data` on `channel`; the server's answer is ``Event/published(id:_:)`` with the id returned.
    /// Without a session the message waits for the next handshake.
    package mutating func publish(_ channel: String, data: JSONValue, ext: [String: JSONValue]? = nil) -> (id: String, outputs: [Output]) {
        var id = ""
        let outputs = self.drive { machine in
            let (published, actions) = machine.publish(channel, data: data, ext: ext)
            id = published
            return actions
        }
        return (id, outputs)
    }

    /// Ends the session with `/meta/disconnect` carrying `ext`: ``Event/stopped(_:)`` once the server
    /// answered (or did not in time, or there was no session).
    package mutating func disconnect(ext: [String: JSONValue]? = nil, now: Duration) -> [Output] {
        self.drive { $0.disconnect(ext: ext, now: now) }
    }

    package mutating func timerFired(_ id: TimerID<Machine.TimerKind>, now: Duration) -> [Output] {
        self.drive { $0.timerFired(id, now: now) }
    }

    // MARK: What the transports bring

    /// The link's upgrade succeeded.
    package mutating func linkOpened() -> [Output] {
        guard self.link == .opening else { return [] }
        self.link = .open
        self.webSocketWorked = true
        return []
    }

    /// The link ended without the session closing it, or never opened.
    package mutating func linkClosed(_ reason: String, now: Duration) -> [Output] {
        let link = self.link
        self.link = .none
        switch link {
        case .none:
            return []
        case .open:
            return self.drive { $0.transportLost(BayeuxFailure("the WebSocket closed: \(reason)"), now: now) }
        case .opening:
            let failure = BayeuxFailure("the WebSocket to \(self.configuration.webSocketURL) did not open: \(reason)")
            guard !self.webSocketWorked else { return self.drive { $0.transportLost(failure, now: now) } }
            return [.log(.notice, "bayeux: \(failure); using long-polling")]
                + self.drive { machine in
                    machine.use(.longPolling)
                    return [.useConnectionType(.longPolling)] + machine.transportLost(failure, now: now)
                }
        }
    }

    /// A message on the link, read by ``Configuration/read(_:)`` outside the session's lock.
    package mutating func received(_ answer: BayeuxAnswer, now: Duration) -> [Output] {
        switch answer {
        case .batch(let messages):
            self.batchesReceived += 1
            return self.drive { $0.received(messages, now: now) }
        case .notBayeux(let warning, _):
            self.batchesRejected += 1
            return [.log(.warning, warning)]
        case .failed:
            return []
        }
    }

    /// Whether `post` still matters when its turn comes: a connect the machine gave up on before its
    /// request started is not sent.
    package func wants(_ post: BayeuxPost) -> Bool {
        post.lane == .control || self.machine.outstandingConnect == post.ids.first
    }

    /// What a POST brought, read by ``Configuration/read(_:of:)`` outside the session's lock. A
    /// long-poll's answer ends its connect, with the connect's reply or without.
    package mutating func posted(_ post: BayeuxPost, _ answer: BayeuxAnswer, now: Duration) -> [Output] {
        let failure: BayeuxFailure
        var outputs: [Output] = []
        switch answer {
        case .batch(let messages):
            self.batchesReceived += 1
            return self.drive { machine in
                var actions = machine.received(messages, now: now)
                if post.lane == .connect, let id = post.ids.first,
                    !messages.contains(where: { $0.channel == "/meta/connect" && $0.id == id && $0.isReply })
                {
                    actions += machine.connectFailed(id: id, BayeuxFailure("the server answered the connect without its reply"), now: now)
                }
                return actions
            }
        case .notBayeux(let warning, let problem):
            self.batchesRejected += 1
            outputs.append(.log(.warning, warning))
            failure = BayeuxFailure("the server's answer is not a Bayeux batch: \(problem)")
        case .failed(let reason, let warning):
            // An answer over the size limit is bad input: named even while the session is already known
            // to be interrupted (those failures are reported once).
            if let warning { outputs.append(.log(.warning, warning)) }
            failure = reason
        }
        return outputs
            + self.drive { machine in
                if post.lane == .connect { return post.ids.first.map { machine.connectFailed(id: $0, failure, now: now) } ?? [] }
                return machine.requestFailed(ids: post.ids, failure, now: now)
            }
    }

    // MARK: Status

    /// The machine's status and the batches counted, at `now` (elapsed time, as the machine's).
    package func status(now: Duration) -> Status {
        Status(machine: self.machine.status, now: now, batchesReceived: self.batchesReceived, batchesRejected: self.batchesRejected)
    }

    package struct Status: Sendable {
        package var machine: Machine.Status
        /// Elapsed time now, on the same scale as `machine.handshakeAt`.
        package var now: Duration
        package var batchesReceived: Int
        package var batchesRejected: Int

        /// The machine's fields (``BayeuxClientStateMachine/Status/fields(now:)``) and the batches counted.
        package var fields: [String: String] {
            var fields = self.machine.fields(now: self.now)
            fields["batches-received"] = String(self.batchesReceived)
            fields["batches-rejected"] = String(self.batchesRejected)
            return fields
        }
    }

    // MARK: The machine's actions

    /// Runs a machine step and turns its actions into outputs: the driver's first, the events after.
    mutating func drive(_ body: (inout Machine) -> [Machine.Action]) -> [Output] {
        var outputs: [Output] = []
        var events: [Event] = []
        for action in body(&self.machine) {
            switch action {
            case .send(let messages, let lane):
                outputs += self.send(messages, on: lane)
            case .arm(let id, let delay):
                outputs.append(.setTimer(id, after: delay))
            case .cancel(let id):
                outputs.append(.cancelTimer(id))
            case .abandonConnect:
                outputs.append(.cancelConnectPost)
                // Over a WebSocket the held connect ends with the link; the next batch opens a new one.
                if self.machine.status.connectionType == .webSocket { outputs += self.closeLink() }
            case .useConnectionType(let type):
                events.append(.transportChanged(type))
            case .handshook(let clientID):
                events.append(.handshook(clientID: clientID))
            case .connected:
                events.append(.connected)
            case .connectionInterrupted(let failure):
                events.append(.interrupted(failure))
            case .deliver(let message):
                events.append(.delivered(message))
            case .published(let id, let result):
                events.append(.published(id: id, result))
            case .subscriptionFailed(let channel, let failure):
                // CometD answers a subscription to /service/** as a no-op, Faye refuses it: neither stops
                // the session, and the server's events on a /service channel reach this client anyway.
                outputs.append(.log(.debug, "bayeux: the subscription to \(channel) failed: \(failure)"))
            case .stopped(let failure):
                events.append(.stopped(failure))
                outputs += self.closeLink()
            case .note(let note):
                outputs.append(.log(.trace, "bayeux: \(note)"))
            }
        }
        return outputs + events.map(Output.event)
    }

    mutating func send(_ messages: [BayeuxMessage], on lane: Machine.Lane) -> [Output] {
        let body = BayeuxBatch.encode(messages)
        guard self.machine.status.connectionType == .webSocket else {
            let timeout = lane == .connect ? self.machine.connectRequestTimeout : self.configuration.machine.networkDelay
            return [.post(BayeuxPost(self.configuration.request(body, timeout: timeout), ids: messages.compactMap(\.id), lane: lane))]
        }
        guard self.link == .none else { return [.writeLink(body)] }
        // The kit's link keeps what is written while it opens until it is open.
        self.link = .opening
        return [.openLink(self.configuration.webSocketRequest), .writeLink(body)]
    }

    mutating func closeLink() -> [Output] {
        guard self.link != .none else { return [] }
        self.link = .none
        return [.closeLink]
    }
}
