package import AttendantPluginAPI
package import AttendantPluginKit
package import GMSCore
import Synchronization

/// A Bayeux 1.0 client on the network the host lends (``ChannelNetwork``): GMSCore's pure
/// ``BayeuxClientStateMachine`` driven over long-polling or a WebSocket.
///
/// - Long-polling: every batch is an HTTP POST of a JSON array. The held `/meta/connect` goes on a request
///   of its own (its time limit above `advice.timeout`), publishes and subscribes on others, so a held
///   connect never queues a publish behind it (Bayeux's two-connection operation). Cookies (`BAYEUX_BROWSER`,
///   a load balancer's stickiness) stay in the channel's cookie jar.
/// - WebSocket: one socket (no subprotocol), each batch one text frame, writes in order. When the upgrade
///   fails before any WebSocket of this client worked, the client falls back to long-polling for good.
///
/// What happens reaches the owner as ``Event``s, after the client's lock is released, on whichever thread
/// reported it; the owner does little there and hands over.
package final class BayeuxClient: Sendable {
    package struct Configuration: Sendable {
        /// The endpoint, `http(s)://host:port/genesys/cometd`; the WebSocket is the same URL as `ws(s)://`.
        package var url: String
        /// Headers on every request and the WebSocket upgrade (GMS v1's `gms_user`).
        package var headers: [NetworkHeader] = []
        package var machine = BayeuxClientStateMachine.Configuration()
        package var limits = BayeuxBatch.Limits()

        package init(url: String) {
            self.url = url
        }
    }

    package enum Event: Sendable {
        /// A new session; bind to it what the application needs (GMS: ask for notifications again).
        case handshook(clientID: String)
        case connected
        case interrupted(BayeuxFailure)
        case delivered(BayeuxMessage)
        /// The client uses another connection type from now on.
        case transportChanged(BayeuxConnectionType)
        /// The session ended: disconnected (nil), or stopped by the server's advice.
        case stopped(BayeuxFailure?)
    }

    package struct Status: Sendable {
        package var machine: BayeuxClientStateMachine.Status
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

    let configuration: Configuration
    let network: any ChannelNetwork
    let now: @Sendable () -> Duration
    let logger: Logger
    let onEvent: @Sendable (Event) -> Void
    let timers: ChannelTimers<BayeuxClientStateMachine.TimerKind>
    let state: Mutex<State>

    struct State {
        var machine: BayeuxClientStateMachine
        /// The machine's id of each armed timer, by kind (the channel's timers have their own).
        var armed: [BayeuxClientStateMachine.TimerKind: TimerID<BayeuxClientStateMachine.TimerKind>] = [:]
        /// The outstanding long-poll connect, cancelled when the machine abandons it.
        var connectRequest: Task<Void, Never>?
        var transport = Generation()
        var socket: (any WebSocketConnection)?
        var opening = false
        /// Frames waiting for the socket to open.
        var pendingFrames: [[UInt8]] = []
        var webSocketWorked = false
        /// The last queued write: the next waits for it, so frames keep their order.
        var lastWrite: Task<Void, Never>?
        var publishes: [String: CheckedContinuation<Result<BayeuxMessage, BayeuxFailure>, Never>] = [:]
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
        var batchesReceived = 0
        var batchesRejected = 0
    }

    package init(
        configuration: Configuration,
        network: any ChannelNetwork,
        clock: any Clock<Duration>,
        now: @escaping @Sendable () -> Duration,
        logger: Logger,
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        onEvent: @escaping @Sendable (Event) -> Void
    ) {
        self.configuration = configuration
        self.network = network
        self.now = now
        self.logger = logger
        self.onEvent = onEvent
        self.timers = ChannelTimers(clock: clock)
        self.state = Mutex(State(machine: BayeuxClientStateMachine(configuration: configuration.machine, random: random)))
    }

    // MARK: Using it

    /// Starts a session (handshake, connect, the subscriptions); does nothing while one runs.
    package func start() {
        let now = self.now()
        self.step { $0.start(now: now) }
    }

    /// Subscribes to `channel` now (if in a session) and after every handshake.
    package func subscribe(_ channel: String) {
        self.step { $0.subscribe(channel) }
    }

    /// Stops subscribing to `channel`, now and after later handshakes.
    package func unsubscribe(_ channel: String) {
        self.step { $0.unsubscribe(channel) }
    }

    /// Publishes `data` on `channel` and returns the server's acknowledgement (`successful: true`).
    /// Without a session the message waits for the next handshake.
    package func publish(_ channel: String, data: JSONValue, ext: [String: JSONValue]? = nil) async throws(BayeuxFailure) -> BayeuxMessage {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<BayeuxMessage, BayeuxFailure>, Never>) in
            self.step { machine, state in
                let (id, actions) = machine.publish(channel, data: data, ext: ext)
                state.publishes[id] = continuation
                return actions
            }
        }
        return try result.get()
    }

    /// Ends the session with `/meta/disconnect` carrying `ext`, and returns once the server answered (or
    /// did not in time, or there was no session).
    package func disconnect(ext: [String: JSONValue]? = nil) async {
        let now = self.now()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            self.step { machine, state in
                state.stopWaiters.append(continuation)
                return machine.disconnect(ext: ext, now: now)
            }
        }
    }

    package var status: Status {
        self.state.withLock { state in
            Status(machine: state.machine.status, now: self.now(), batchesReceived: state.batchesReceived, batchesRejected: state.batchesRejected)
        }
    }

    // MARK: Steps

    typealias Action = BayeuxClientStateMachine.Action

    /// Runs a machine step under the lock, carries out its actions, then reports events.
    func step(_ body: (inout BayeuxClientStateMachine) -> [Action]) {
        self.step { machine, _ in body(&machine) }
    }

    func step(_ body: (inout BayeuxClientStateMachine, inout State) -> [Action]) {
        let after = self.state.withLock { state -> AfterLock in
            var machine = state.machine
            let actions = body(&machine, &state)
            state.machine = machine
            return self.handle(actions, &state)
        }
        after.run(self.onEvent)
    }

    /// What a step leaves for after the lock: waiters to resume and events to report, in order.
    struct AfterLock {
        var publishes: [(CheckedContinuation<Result<BayeuxMessage, BayeuxFailure>, Never>, Result<BayeuxMessage, BayeuxFailure>)] = []
        var stopped: [CheckedContinuation<Void, Never>] = []
        var events: [Event] = []

        func run(_ onEvent: @Sendable (Event) -> Void) {
            for event in self.events { onEvent(event) }
            for (continuation, result) in self.publishes { continuation.resume(returning: result) }
            for continuation in self.stopped { continuation.resume() }
        }
    }

    func handle(_ actions: [Action], _ state: inout State) -> AfterLock {
        var after = AfterLock()
        for action in actions {
            switch action {
            case .send(let messages, let lane):
                self.send(messages, on: lane, &state)
            case .arm(let id, let delay):
                state.armed[id.kind] = id
                self.timers.arm(id.kind, after: delay) { [weak self] fired in self?.timerFired(fired) }
            case .cancel(let id):
                state.armed[id.kind] = nil
                self.timers.cancel(id.kind)
            case .abandonConnect:
                self.abandonConnect(&state)
            case .useConnectionType(let type):
                after.events.append(.transportChanged(type))
            case .handshook(let clientID):
                after.events.append(.handshook(clientID: clientID))
            case .connected:
                after.events.append(.connected)
            case .connectionInterrupted(let failure):
                after.events.append(.interrupted(failure))
            case .deliver(let message):
                after.events.append(.delivered(message))
            case .published(let id, let result):
                if let continuation = state.publishes.removeValue(forKey: id) { after.publishes.append((continuation, result)) }
            case .subscriptionFailed(let channel, let failure):
                // CometD answers a subscription to /service/** as a no-op, Faye refuses it: neither stops
                // the session, and the server's events on a /service channel reach this client anyway.
                self.logger.debug("bayeux: the subscription to \(channel) failed: \(failure)")
            case .stopped(let failure):
                after.events.append(.stopped(failure))
                after.stopped += state.stopWaiters
                state.stopWaiters = []
                self.closeSocket(&state)
            case .note(let note):
                self.logger.trace("bayeux: \(note)")
            }
        }
        return after
    }

    func timerFired(_ fired: TimerID<BayeuxClientStateMachine.TimerKind>) {
        let now = self.now()
        self.step { machine, state in
            guard self.timers.consume(fired), let id = state.armed.removeValue(forKey: fired.kind) else { return [] }
            return machine.timerFired(id, now: now)
        }
    }

    /// A batch arrived: decoded outside the lock, handed to the machine. A batch that is not Bayeux is
    /// named in the log (its size and the problem, never its content) and treated as a failed request.
    func received(_ bytes: [UInt8], generation: Generation?, failing lane: (ids: [String], connect: Bool)?) {
        let messages: [BayeuxMessage]
        do {
            messages = try BayeuxBatch.decode(bytes, limits: self.configuration.limits)
        } catch {
            self.logger.warning("bayeux: ignored a batch from \(self.configuration.url) (\(bytes.count) bytes): \(error)")
            let now = self.now()
            self.step { machine, state in
                state.batchesRejected += 1
                guard let lane else { return [] }
                let failure = BayeuxFailure("the server's answer is not a Bayeux batch: \(error)")
                if lane.connect { return lane.ids.first.map { machine.connectFailed(id: $0, failure, now: now) } ?? [] }
                return machine.requestFailed(ids: lane.ids, failure, now: now)
            }
            return
        }
        let now = self.now()
        self.step { machine, state in
            if let generation, generation != state.transport { return [] }
            state.batchesReceived += 1
            var actions = machine.received(messages, now: now)
            // A long-poll's answer ends its connect, with the connect's reply or without.
            if let lane, lane.connect, let id = lane.ids.first,
                !messages.contains(where: { $0.channel == "/meta/connect" && $0.id == id && $0.isReply })
            {
                actions += machine.connectFailed(id: id, BayeuxFailure("the server answered the connect without its reply"), now: now)
            }
            return actions
        }
    }
}
