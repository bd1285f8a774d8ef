import AttendantPluginAPI
import AttendantPluginKit
import CXoneCore
import FoundationEssentials
import Synchronization

/// A CXone customer chat: the mobile SDK's chat session, on the gateway's WebSocket and REST endpoints.
///
/// Everything protocol-shaped is decided by CXoneCore's pure ``ChatStateMachine``; this class is its
/// driver. A machine step (a user operation, a frame from the socket, a REST answer, a timer) runs under
/// one lock and its actions are handled in two ways:
/// - at once, under the lock: timers (on the host's clock, so tests compress time), the socket's
///   generation (frames from a socket the machine closed are dropped), frames to send (encoded with the
///   current customer and visitor), and the waiters of user operations;
/// - in order, by the kit's ``OrderedWorker``, which ``run()`` runs for the channel's life: REST calls (started as tasks of their own, their answers fed back as
///   inputs), writes to the socket, the state store and secrets, and events for the host.
/// Keeping the second kind in one ordered queue means a message is in the outbox (committed to the state
/// database) before its frame is written, and events reach the host in the machine's order.
final class CXoneChatChannel: Channel {
    typealias Action = ChatStateMachine.Action
    typealias Report = ChatStateMachine.Report
    typealias Input = ChatStateMachine.Input

    let configuration: CXoneChatConfiguration
    let host: any ChannelHost
    let rest: CXoneREST
    let state = Mutex(State())
    let worker = OrderedWorker<Work>()
    let timers: ChannelTimers<ChatTimerID>
    /// User operations waiting for the machine to get somewhere.
    let waiters: Waiters<Awaited, ChannelReply>
    /// Messages the gateway has not confirmed, by message id (lower case), across restarts.
    let outbox: Outbox<ChatStorage.OutboxRecord>

    init(configuration: CXoneChatConfiguration, host: any ChannelHost) {
        self.configuration = configuration
        self.host = host
        self.rest = CXoneREST(
            network: host.network, endpoints: configuration.endpoints, timeout: configuration.requestTimeout, limits: configuration.limits
        )
        self.timers = ChannelTimers(clock: host.clock)
        self.waiters = Waiters(clock: host.clock)
        self.outbox = Outbox(store: host.store) { $0.key }
    }

    /// The worker, for as long as the host keeps the channel.
    func run() async {
        await self.worker.run { item in await self.carryOut(item) }
    }

    // MARK: State

    struct State: Sendable {
        /// Made by the first `listen()` or request, from what the store holds.
        var machine: ChatStateMachine?
        var socket: CXoneSocket?
        /// Which socket is current; events from an older one are dropped.
        var socketGeneration = Generation()
        /// The current socket's requests and large-event notices.
        var link = ChatWireLink()
        /// Whether the channel listens, the desktop's background, the last error.
        var presence = ChatPresence()
        /// The thread a send without a thread id goes to (multi-thread: the one created or opened last).
        var currentThread: String?
        var framesReceived = 0
        var framesRejected = 0
        /// The last analytics event sent; the next waits for it.
        var analytics: Task<Void, Never>?
        /// Threads recorded as contacts.
        var contacts = ChatContactHistory()
    }

    /// What a user operation waits for.
    struct Awaited: Sendable {
        /// The reply or error once the machine is there; nil to keep waiting.
        var settle: @Sendable (ChatStateMachine, [Report]) -> Result<ChannelReply, ChannelError>?
        /// The outcome when the deadline passes; nil for the "no answer" error.
        var timedOut: (@Sendable (ChatStateMachine) -> Result<ChannelReply, ChannelError>)? = nil
    }

    /// Work done in order by the worker task.
    enum Work: Sendable {
        case action(Action)
        case openSocket(url: String, generation: Generation)
        case closeSocket(CXoneSocket)
        case write(generation: Generation, [UInt8])
        case emit(ChannelEvent)
        case log(Logger.Level, String)
    }

    var prefix: String { "cxone-chat" }

    typealias Resumption = AttendantPluginKit.Resumption<ChannelReply>

    // MARK: Driving the machine

    /// Runs one machine step under the lock and handles its actions. Does nothing before the machine exists.
    ///
    /// The machine is taken out of the state for the body, so that the body's copy is the only reference
    /// to its threads, messages and sets, and changing them copies nothing (with a second reference left
    /// in the state, each step would copy every collection it touched: a long chat's whole history).
    func feed(_ body: (inout ChatStateMachine, inout State) -> [Action]) {
        let resumptions = self.state.withLock { state -> [Resumption] in
            guard var machine = state.machine else { return [] }
            state.machine = nil
            let actions = body(&machine, &state)
            state.machine = machine
            return self.handle(actions, &state)
        }
        resumptions.resume()
    }

    /// Handles a step's actions under the lock; returns the waiters that are settled.
    func handle(_ actions: [Action], _ state: inout State) -> [Resumption] {
        var reports: [Report] = []
        for action in actions {
            switch action {
            case .setTimer(let id, let delay):
                self.timers.arm(id, after: delay) { [weak self] armed in self?.timerFired(armed) }
            case .cancelTimer(let id):
                self.timers.cancel(id)
            case .openSocket(let brandID, let channelID, let visitorID):
                self.dropSocket(&state)
                let url = self.configuration.endpoints.webSocket(
                    brandId: brandID, channelId: channelID, visitorId: CXoneID(visitorID), sdkVersion: CXoneChatConfiguration.sdkVersion
                )
                self.worker.enqueue(.openSocket(url: url, generation: state.socketGeneration))
            case .closeSocket:
                self.dropSocket(&state)
            case .send(let command):
                self.send(command, &state)
            case .report(let report):
                reports.append(report)
                self.worker.enqueue(.action(action))
            default:
                self.worker.enqueue(.action(action))
            }
        }
        guard let machine = state.machine else { return [] }
        for notice in state.presence.after(reports, machine: machine) {
            switch notice {
            case .reconnecting(let attempt, let reason):
                let gateway = self.configuration.gatewayDescription
                let why = reason.map { ": \($0)" } ?? ""
                self.worker.enqueue(.log(.notice, "\(self.prefix): lost the connection to \(gateway)\(why); reconnecting (attempt \(attempt))"))
            case .lost(let reason):
                self.worker.enqueue(.emit(.stoppedListening(ChannelError(.transient, "\(self.prefix): \(reason)"))))
            }
        }
        guard !self.waiters.isEmpty else { return [] }
        return self.waiters.settle { $0.settle(machine, reports)?.mapError { $0 } }
    }

    /// Forgets the current socket (closing it) and starts a new generation.
    func dropSocket(_ state: inout State) {
        state.socketGeneration.advance()
        state.link = ChatWireLink()
        if let socket = state.socket {
            state.socket = nil
            self.worker.enqueue(.closeSocket(socket))
        }
    }

    /// Encodes a command with the current identities and queues its frame.
    func send(_ command: ChatStateMachine.Command, _ state: inout State) {
        guard let machine = state.machine,
            let context = ChatWireOutput.Context(
                machine: machine, firstName: self.configuration.firstName, lastName: self.configuration.lastName, sdkVersion: CXoneChatConfiguration.sdkVersion
            )
        else { return }
        do {
            let bytes = try state.link.frame(for: command, context: context)
            self.worker.enqueue(.write(generation: state.socketGeneration, bytes))
        } catch {
            self.worker.enqueue(.log(.error, "\(self.prefix): could not encode a frame: \(error)"))
        }
    }

    // MARK: Timers

    /// The machine's timers are its own ``TimerID``s: the machine's table and the channel's both guard
    /// against a stale firing.
    func timerFired(_ armed: TimerID<ChatTimerID>) {
        self.feed { machine, state in
            guard self.timers.consume(armed) else { return [] }
            return machine.timerFired(armed.kind)
        }
    }

    // MARK: The socket

    func socketEvent(_ event: CXoneSocket.Event, generation: Generation) {
        switch event {
        case .opened:
            self.feed { machine, state in
                guard state.socketGeneration == generation else { return [] }
                return machine.handle(.socketOpened)
            }
        case .closed(let reason):
            self.feed { machine, state in
                guard state.socketGeneration == generation else { return [] }
                state.socket = nil
                self.worker.enqueue(.log(.info, "\(self.prefix): the connection to \(self.configuration.gatewayDescription) ended: \(reason)"))
                return machine.handle(.socketClosed(reason: reason))
            }
        case .text(let bytes):
            self.received(bytes, generation: generation)
        }
    }

    /// One frame from the gateway: decoded (outside the lock), matched to its request, handed to the machine.
    func received(_ bytes: [UInt8], generation: Generation) {
        let inbound: CXoneInbound
        do {
            inbound = try CXoneInbound.decode(bytes, limits: self.configuration.limits)
        } catch {
            self.state.withLock { $0.framesRejected += 1 }
            self.host.logger.warning("\(self.prefix): ignored a frame from \(self.configuration.gatewayDescription) (\(bytes.count) bytes): \(error)")
            return
        }
        let now = self.host.now()
        self.feed { machine, state in
            guard state.socketGeneration == generation else { return [] }
            state.framesReceived += 1
            let (meaning, ignored) = state.link.receive(inbound, now: now)
            if let ignored { self.worker.enqueue(.log(ignored.unknown ? .notice : .debug, "\(self.prefix): ignored \(ignored.text)")) }
            switch meaning {
            case .input(let input): return machine.handle(input)
            case .refusal(let messageID, let error, let transient): return machine.messageRefused(messageID: messageID, error, transient: transient)
            case .nothing: return []
            }
        }
    }
}
