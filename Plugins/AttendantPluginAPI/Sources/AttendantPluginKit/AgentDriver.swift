public import AttendantPluginAPI
public import Synchronization

/// What a step of a pure ``ChannelAgent`` asks of its driver.
public enum AgentAction<Timer: Hashable & Sendable, Work: Sendable>: Sendable {
    /// The protocol's own work on the link (send a message, ping): the driver's `perform` does it.
    case work(Work)
    case setTimer(Timer, after: Duration)
    case cancelTimer(Timer)
    /// Cancel every timer whose key passes the filter (in one pass: ending many calls stays linear).
    case cancelTimers(where: @Sendable (Timer) -> Bool)
    case emit(ChannelEvent)
    case log(Logger.Level, String)
    /// The waiting `listen()` hears this (nil: it listens).
    case listened(ChannelError?)
    /// These keep-alives hear this (nil: kept alive).
    case keptAlive([UInt64], ChannelError?)
    /// The waiting stop may return.
    case stopped
    /// Close the link; what arrives on it afterwards is not news.
    case closeLink
}

/// A channel's whole protocol state as a pure value (SIPCore's `SIPAgent`, say): it hears what arrives,
/// what the host asks and the timers that fire, and answers with ``AgentAction``s, among them which of the
/// host's calls (`listen()`, a keep-alive, a stop) may return. ``AgentDriver`` runs it.
public protocol ChannelAgent: Sendable {
    associatedtype Timer: Hashable & Sendable
    associatedtype Work: Sendable

    mutating func timerFired(_ timer: Timer, now: UnixTime) -> [AgentAction<Timer, Work>]
    /// The link could not be opened: what the `listen()` throws.
    mutating func openingFailed(_ reason: String) -> ChannelError
    /// A `listen()` is replacing the link: until it starts the agent on the new one, nothing is answered.
    mutating func detachLink()
    /// A stop has ended (`stopped`) or a `listen()` was abandoned: forget the link and what ran on it (the
    /// driver cancels every timer).
    mutating func reset(stopped: Bool)
    /// A keep-alive's caller went away.
    mutating func forgetKeepAlive(_ waiter: UInt64)
}

/// The connection an agent works on (a SIP flow, a socket).
public protocol AgentLink: Sendable {
    /// Closes it without waiting (from a step's effects).
    func closeNow()
    /// Closes it and waits until it is closed.
    func close() async
}

/// The driver of a ``ChannelAgent``: everything between a pure agent and the host that is the same for
/// every protocol.
///
/// It keeps the agent and its current link under one lock, each link with the next ``Generation`` (what
/// arrives on a link let go of is dropped); hands the agent one event at a time; and carries out its
/// actions: timers on the host's clock (``ChannelTimers``, so tests compress hours into milliseconds),
/// events and log lines for the host, and the continuations of `listen()`, keep-alives and stops, which
/// the agent settles with ``AgentAction/listened(_:)``, ``AgentAction/keptAlive(_:_:)`` and
/// ``AgentAction/stopped``. Work that must not run under the lock (sending, emitting, resuming) runs once
/// it is released, on the caller's thread: an answer to what arrived goes out without a hop, and before
/// any timer the step armed wakes another thread (``ChannelTimers/startingAfter(_:)``).
///
/// The plugin's channel opens links, turns what arrives into the agent's events, and does the agent's
/// ``AgentAction/work(_:)`` in `perform`.
///
/// Its calls throw `ChannelError` typed, and it never turns one into `any Error` itself: a test binary
/// links the API statically besides loading its shared library, so it holds two copies of the type, and
/// an error boxed by the library's copy is not `is ChannelError` to the test. (The daemon and the plugins
/// have one copy.)
public final class AgentDriver<Agent: ChannelAgent, Link: AgentLink>: Sendable {
    public typealias Action = AgentAction<Agent.Timer, Agent.Work>

    public struct State: Sendable {
        public var agent: Agent
        public var link: Link? { self.currentLink }
        /// Which link is current.
        public var generation: Generation { self.currentGeneration }
        /// `listen()` calls under way (preparing, opening, waiting for the agent).
        public var listensUnderWay: Int { self.listens }

        @usableFromInline var currentLink: Link?
        @usableFromInline var currentGeneration = Generation()
        @usableFromInline var listens = 0
        @usableFromInline var listenWaiter: CheckedContinuation<ChannelError?, Never>?
        @usableFromInline var keepAliveWaiters: [UInt64: CheckedContinuation<ChannelError?, Never>] = [:]
        @usableFromInline var nextWaiter: UInt64 = 0
        @usableFromInline var stopWaiter: CheckedContinuation<Void, Never>?

        init(agent: Agent) {
            self.agent = agent
        }
    }

    @usableFromInline enum Effect {
        case work(Agent.Work, Link)
        case emit(ChannelEvent)
        case log(Logger.Level, String)
        case resume(CheckedContinuation<ChannelError?, Never>, ChannelError?)
        case resumeStop(CheckedContinuation<Void, Never>)
        case close(Link)
    }

    // What an answer to an arrival touches is inlinable, so that the plugin's build specializes it for its
    // agent and link: the INVITE → 180 path runs no generic code of the kit's.
    @usableFromInline let state: Mutex<State>
    @usableFromInline let timers: ChannelTimers<Agent.Timer>
    @usableFromInline let host: any ChannelHost
    /// The start of the driver's own messages (the plugin's name).
    let prefix: String
    @usableFromInline let perform: @Sendable (Agent.Work, Link) -> Void

    /// Drives `agent` for a channel of `host`; `perform` does the agent's work on the current link.
    public init(agent: Agent, host: any ChannelHost, prefix: String, perform: @escaping @Sendable (Agent.Work, Link) -> Void) {
        self.state = Mutex(State(agent: agent))
        self.timers = ChannelTimers(clock: host.clock)
        self.host = host
        self.prefix = prefix
        self.perform = perform
    }

    // MARK: The host's calls

    /// A channel's `listen()`: `prepare` (the token, say; the current link stays meanwhile), then the
    /// current link is let go of and closed, `open` opens the next one (tagged with its generation), and
    /// `start` starts the agent on it. Returns once the agent answers ``AgentAction/listened(_:)``.
    /// Cancelled, it closes the new link and resets the agent.
    public func listen<Prepared>(
        prepare: () async throws(ChannelError) -> Prepared,
        open: (Generation) async throws -> Link,
        start: (inout Agent, Link, Prepared) -> [Action]
    ) async throws(ChannelError) {
        self.state.withLock { $0.listens += 1 }
        defer { self.state.withLock { $0.listens -= 1 } }
        let prepared = try await prepare()
        let (generation, previous) = self.state.withLock { state -> (Generation, Link?) in
            defer {
                state.currentLink = nil
                state.agent.detachLink()
            }
            return (state.currentGeneration.advance(), state.currentLink)
        }
        await previous?.close()

        let link: Link
        do {
            link = try await open(generation)
        } catch {
            throw self.state.withLock { $0.agent.openingFailed("\(error)") }
        }
        let failure = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ChannelError?, Never>) in
                self.step { state, effects in
                    guard state.currentGeneration == generation, !Task.isCancelled else {
                        effects += [.close(link), .resume(continuation, self.cancelled("listening"))]
                        return
                    }
                    state.currentLink = link
                    state.listenWaiter = continuation
                    self.apply(start(&state.agent, link, prepared), &state, &effects)
                }
            }
        } onCancel: {
            self.abandonListening(generation)
        }
        if let failure { throw failure }
    }

    /// A keep-alive, as waiter `id` of the agent; returns once the agent answers
    /// ``AgentAction/keptAlive(_:_:)`` for it.
    public func keepAlive(_ event: (inout Agent, _ id: UInt64) -> [Action]) async throws(ChannelError) {
        let id = self.state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let failure = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ChannelError?, Never>) in
                self.step { state, effects in
                    state.keepAliveWaiters[id] = continuation
                    self.apply(event(&state.agent, id), &state, &effects)
                }
            }
        } onCancel: {
            let continuation = self.state.withLock { state in
                state.agent.forgetKeepAlive(id)
                return state.keepAliveWaiters.removeValue(forKey: id)
            }
            continuation?.resume(returning: self.cancelled("the keep-alive"))
        }
        if let failure { throw failure }
    }

    /// A channel's `stopListening()`: `event` stops the agent; once it answers ``AgentAction/stopped``,
    /// the agent is reset, every timer cancelled and the link closed.
    public func stop(_ event: (inout Agent) -> [Action]) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            self.step { state, effects in
                state.stopWaiter = continuation
                self.apply(event(&state.agent), &state, &effects)
            }
        }
        let link = self.state.withLock { self.letGo(&$0, stopped: true) }
        await link?.close()
    }

    // MARK: Events

    /// Hands the agent one event under the lock and carries out what it answers.
    @inlinable
    public func run<Failure: Error>(_ event: (inout Agent) throws(Failure) -> [Action]) throws(Failure) {
        try self.step { (state: inout State, effects: inout [Effect]) throws(Failure) in
            self.apply(try event(&state.agent), &state, &effects)
        }
    }

    /// Something arrived on the link of `generation`: the agent hears it (with the current link, nil while
    /// a `listen()` has opened it and not yet started the agent on it), unless that link was let go of.
    /// What the agent answers goes out before the timers it arms start.
    @inlinable
    public func arrived(on generation: Generation, _ event: (inout Agent, Link?) -> [Action]) {
        self.timers.startingAfter {
            self.step { state, effects in
                guard state.currentGeneration == generation else { return }
                self.apply(event(&state.agent, state.currentLink), &state, &effects)
            }
        }
    }

    /// Reads or changes the state under the lock, with no actions.
    public func withState<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        try self.state.withLock { (state: inout State) throws(Failure) -> Result in try body(&state) }
    }

    // MARK: Carrying out

    @inlinable
    func step<Result, Failure: Error>(_ body: (inout State, inout [Effect]) throws(Failure) -> Result) throws(Failure) -> Result {
        let (result, effects) = try self.state.withLock { (state: inout State) throws(Failure) -> (Result, [Effect]) in
            var effects: [Effect] = []
            let result = try body(&state, &effects)
            return (result, effects)
        }
        for effect in effects { self.carryOut(effect) }
        return result
    }

    @inlinable
    func timerFired(_ id: TimerID<Agent.Timer>) {
        self.step { state, effects in
            guard self.timers.consume(id) else { return }
            self.apply(state.agent.timerFired(id.kind, now: self.host.now()), &state, &effects)
        }
    }

    /// Timers at once; the rest as effects for after the lock.
    @inlinable
    func apply(_ actions: [Action], _ state: inout State, _ effects: inout [Effect]) {
        for action in actions {
            switch action {
            case .work(let work):
                if let link = state.currentLink { effects.append(.work(work, link)) }
            case .setTimer(let timer, let delay):
                self.timers.arm(timer, after: delay) { [weak self] id in self?.timerFired(id) }
            case .cancelTimer(let timer):
                self.timers.cancel(timer)
            case .cancelTimers(let filter):
                self.timers.cancelAll(where: filter)
            case .emit(let event):
                effects.append(.emit(event))
            case .log(let level, let message):
                effects.append(.log(level, message))
            case .listened(let error):
                if let waiter = state.listenWaiter {
                    state.listenWaiter = nil
                    effects.append(.resume(waiter, error))
                }
            case .keptAlive(let ids, let error):
                for id in ids {
                    if let waiter = state.keepAliveWaiters.removeValue(forKey: id) { effects.append(.resume(waiter, error)) }
                }
            case .stopped:
                if let waiter = state.stopWaiter {
                    state.stopWaiter = nil
                    effects.append(.resumeStop(waiter))
                }
            case .closeLink:
                if let link = state.currentLink {
                    state.currentLink = nil
                    state.currentGeneration.advance()
                    effects.append(.close(link))
                }
            }
        }
    }

    @inlinable
    func carryOut(_ effect: Effect) {
        switch effect {
        case .work(let work, let link): self.perform(work, link)
        case .emit(let event): self.host.emit(event)
        case .log(let level, let message): self.host.logger.log(level: level, "\(message)")
        case .resume(let waiter, let error): waiter.resume(returning: error)
        case .resumeStop(let waiter): waiter.resume()
        case .close(let link): link.closeNow()
        }
    }

    /// A cancelled `listen()`: its link closes and the agent forgets it, unless a later one took over.
    private func abandonListening(_ generation: Generation) {
        let (waiter, link) = self.state.withLock { state -> (CheckedContinuation<ChannelError?, Never>?, Link?) in
            guard state.currentGeneration == generation else { return (nil, nil) }
            defer { state.listenWaiter = nil }
            return (state.listenWaiter, self.letGo(&state, stopped: false))
        }
        link?.closeNow()
        waiter?.resume(returning: self.cancelled("listening"))
    }

    /// Lets the current link go (returned, for closing): a new generation, the agent reset, every timer
    /// cancelled.
    private func letGo(_ state: inout State, stopped: Bool) -> Link? {
        state.currentGeneration.advance()
        state.agent.reset(stopped: stopped)
        self.timers.cancelAll()
        defer { state.currentLink = nil }
        return state.currentLink
    }

    private func cancelled(_ what: String) -> ChannelError {
        ChannelError(.transient, "\(self.prefix): \(what) was cancelled")
    }
}
