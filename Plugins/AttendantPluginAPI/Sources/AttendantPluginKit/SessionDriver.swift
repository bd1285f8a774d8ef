public import AttendantPluginAPI
import Synchronization

/// What a step of a pure ``ChannelSession`` asks of its driver.
public enum SessionAction<Timer: Hashable & Sendable, Work: Sendable>: Sendable {
    /// The protocol's own work (a REST call, a socket write, a store write): the channel's `carryOut`
    /// does it on the driver's worker, in order with the events and log lines.
    case work(Work)
    case setTimer(Timer, after: Duration)
    case cancelTimer(Timer)
    /// A value to keep across restarts, written on the worker in order with the work (since API 1.9).
    case write(StoreWrite)
    /// An event for the host, in order with the work queued before it.
    case emit(ChannelEvent)
    case log(Logger.Level, String)
    /// Request `id` (``SessionDriver/request(_:)``) is over: its caller hears this.
    case replied(UInt64, Result<ChannelReply, ChannelError>)
    /// Open the session's link, a WebSocket on the host's network, closing the one open (since API 1.13).
    /// What it brings reaches the session in order as ``LinkEvent``s, through the `link` handler given to
    /// ``SessionDriver/run(_:link:)``: what arrives on a link let go of never does.
    @_spi(Experimental) case openLink(WebSocketRequest)
    /// Write a text message on the link, in order with the work queued before it; while the link is
    /// opening it waits for it, and without a link it is dropped (since API 1.13).
    @_spi(Experimental) case writeLink([UInt8])
    /// Let go of the link: what was written before still goes out, then it closes, and nothing it brings
    /// afterwards reaches the session; no ``LinkEvent/closed(_:)`` follows (since API 1.13).
    @_spi(Experimental) case closeLink
    /// Cancel the operations started with ``SessionDriver/concurrently(tag:_:)`` under `tag` (a held
    /// long-poll the session gave up on): their tasks are cancelled and their steps dropped (since API 1.13).
    @_spi(Experimental) case cancelOperations(tagged: String)
}

/// What the session's link (``SessionAction/openLink(_:)``) brings, in order: ``opened`` once the upgrade
/// succeeded, each message, and at most one ``closed(_:)``, also when the link never opened. Since API 1.13.
@_spi(Experimental) public enum LinkEvent: Sendable, Hashable {
    case opened
    /// A text or binary message.
    case message([UInt8])
    /// The link ended without the session closing it: the peer closed it, a write failed, or it never
    /// opened. The reason is the host's.
    case closed(String)
}

/// A channel's whole protocol state as a pure value, for protocols whose user requests wait for the
/// session to get somewhere (a chat's connect, a message's confirmation) and whose work must be done in
/// order (a message is in the outbox before its frame is written). ``SessionDriver`` runs it.
///
/// The session keeps its requests by the ids the driver gives them, decides after each step which are
/// over (``SessionAction/replied(_:_:)``), and arms a timer of its own for a request's deadline.
public protocol ChannelSession: Sendable {
    associatedtype Timer: Hashable & Sendable
    associatedtype Work: Sendable

    mutating func timerFired(_ timer: Timer, now: UnixTime) -> [SessionAction<Timer, Work>]
    /// Request `id` is answered no more (its caller was cancelled, or the channel stops): forget it.
    mutating func forgetRequest(_ id: UInt64)
}

/// The driver of a ``ChannelSession``: everything between a pure session and the host that is the same
/// for every protocol of that kind.
///
/// It keeps the session under one lock (taken out of the state while a step changes it, so the step's
/// copy is the only reference to its collections and changing them copies nothing) and carries out its
/// actions: timers on the host's clock (``ChannelTimers``, with the stale-firing guard), the session's
/// work, its store writes (``StoreWrite``), events and log lines in one ``OrderedWorker`` (run by
/// ``run(_:)`` from the channel's `run()`, beside the operations ``concurrently(_:)`` starts), and the
/// callers of ``request(_:)``, resumed once the lock is released.
///
/// A chat over a socket also has a link (since API 1.13, experimental: `@_spi(Experimental) import
/// AttendantPluginKit` until a plugin outside this repository needs it): the session opens, writes and closes it as
/// actions (``SessionAction/openLink(_:)``, ``SessionAction/writeLink(_:)``,
/// ``SessionAction/closeLink``), and the driver keeps which link is current. What the link brings reaches
/// the session in order (``LinkEvent``: `opened` first, also for what the server sent before the upgrade
/// returned; at most one `closed`), read by the channel's handler given to ``run(_:link:)``, and nothing
/// from a link let go of ever does; so the session tracks no connection generation of its own:
///
/// ```swift
/// func run() async {
///     await self.driver.run({ await self.carryOut($0) }) { event in
///         switch event {
///         case .opened: { $0.linkOpened() }
///         case .message(let bytes): self.decode(bytes).map { frame in { $0.received(frame) } }
///         case .closed(let reason): { $0.linkClosed(reason) }
///         @unknown default: nil
///         }
///     }
/// }
/// ```
///
/// The session is made when the channel has what it needs (``load(_:)``: from the store, say); until
/// then, steps do nothing.
///
/// Its calls throw `ChannelError` typed, and it never turns one into `any Error` itself (see
/// ``AgentDriver``: a test binary holds two copies of the type).
public final class SessionDriver<Session: ChannelSession>: Sendable {
    public typealias Action = SessionAction<Session.Timer, Session.Work>
    typealias Outcome = Result<ChannelReply, ChannelError>
    typealias Reply = (CheckedContinuation<Outcome, Never>, Outcome)

    enum Job: Sendable {
        case work(Session.Work)
        case write(StoreWrite)
        case emit(ChannelEvent)
        case log(Logger.Level, String)
        case writeLink([UInt8], any WebSocketConnection, Generation)
        case closeLink(any WebSocketConnection)
    }

    struct State: Sendable {
        var session: Session?
        var requests: [UInt64: CheckedContinuation<Outcome, Never>] = [:]
        var nextRequest: UInt64 = 0
        var link = LinkSlot()
    }

    /// How the channel reads what the link brings: a step for the session, or nil to ignore it.
    @_spi(Experimental) public typealias LinkHandler = @Sendable (LinkEvent) -> ((inout Session) -> [Action])?

    let state = Mutex(State())
    private let timers: ChannelTimers<Session.Timer>
    let worker = OrderedWorker<Job>()
    /// What ``concurrently(_:)`` started, for ``run(_:)`` to run as its child tasks.
    private let operations: AsyncStream<@Sendable () async -> Void>
    let operationQueue: AsyncStream<@Sendable () async -> Void>.Continuation
    /// The operations started under a tag, for ``SessionAction/cancelOperations(tagged:)``.
    let tagged = Mutex(TaggedOperations())
    /// The channel's reader of the link, from ``run(_:link:)``.
    let linkHandler = Mutex<LinkReader<Session>?>(nil)
    let host: any ChannelHost
    /// The start of the driver's own messages (the plugin's name).
    let prefix: String

    public init(host: any ChannelHost, prefix: String) {
        self.host = host
        self.prefix = prefix
        self.timers = ChannelTimers(clock: host.clock)
        (self.operations, self.operationQueue) = AsyncStream.makeStream()
    }

    /// Does the session's work, its events and its log lines in order, `carryOut` doing the work, and
    /// runs the operations ``concurrently(_:)`` starts as its child tasks, until the calling task is
    /// cancelled: the channel's `run()`.
    public func run(_ carryOut: (Session.Work) async -> Void) async {
        await self.run(carryOut, link: { _ in nil })
    }

    /// ``run(_:)`` for a session with a link (``SessionAction/openLink(_:)``): `link` turns what it brings
    /// into the session's steps (decoding a message outside the lock), called for one event at a time, in
    /// order, from the driver's own tasks: never on the host's network thread, so a slow reader holds back
    /// no other socket. When the channel ends, its link closes. Since API 1.13.
    @_spi(Experimental) public func run(_ carryOut: (Session.Work) async -> Void, link: @escaping LinkHandler) async {
        self.linkHandler.withLock { $0 = LinkReader(read: link) }
        await withDiscardingTaskGroup { group in
            group.addTask {
                await withDiscardingTaskGroup { operations in
                    for await operation in self.operations {
                        operations.addTask { await operation() }
                    }
                }
            }
            await self.worker.run { job in
                switch job {
                case .work(let work): await carryOut(work)
                case .write(let write): await self.carryOut(write)
                case .emit(let event): self.host.emit(event)
                case .log(let level, let message): self.host.logger.log(level: level, "\(message)")
                case .writeLink(let bytes, let connection, let generation): await self.write(bytes, on: connection, generation)
                case .closeLink(let connection): self.operationQueue.yield { await connection.close() }
                }
            }
            group.cancelAll()
        }
        await self.closeLinkAtEnd()
    }

    /// Runs `operation` beside the worker (a REST call, a download: work whose answer the session waits
    /// for, while the worker goes on), as a child task of ``run(_:)``, so it ends with the channel; the
    /// step it returns is the session's next. Since API 1.9.
    ///
    /// ```swift
    /// case .fetch(let url):
    ///     self.driver.concurrently {
    ///         let answer = await self.fetch(url)
    ///         return { session in session.fetched(url, answer) }
    ///     }
    /// ```
    public func concurrently(_ operation: @escaping @Sendable () async -> (inout Session) -> [Action]) {
        self.operationQueue.yield {
            let step = await operation()
            self.step(step)
        }
    }

    /// Starts driving `session`, unless one is driven already (two callers loaded at once); returns
    /// whether it took this one.
    @discardableResult
    public func load(_ session: Session) -> Bool {
        self.state.withLock { state in
            guard state.session == nil else { return false }
            state.session = session
            return true
        }
    }

    public var isLoaded: Bool { self.state.withLock { $0.session != nil } }

    /// Hands the session one event under the lock and carries out what it answers; nothing before
    /// ``load(_:)``.
    public func step(_ event: (inout Session) -> [Action]) {
        let replies = self.state.withLock { state -> [Reply] in
            guard var session = state.session else { return [] }
            state.session = nil
            let actions = event(&session)
            state.session = session
            return self.apply(actions, &state)
        }
        Self.resume(replies)
    }

    /// A user's request: `begin` starts it in the session as request `id` (or throws why it cannot start),
    /// and this returns what the session answers with ``SessionAction/replied(_:_:)`` for `id`.
    public func request(_ begin: (inout Session, _ id: UInt64) throws(ChannelError) -> [Action]) async throws(ChannelError) -> ChannelReply {
        let id = self.state.withLock { state -> UInt64 in
            state.nextRequest += 1
            return state.nextRequest
        }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let replies = self.state.withLock { state -> [Reply] in
                    guard !Task.isCancelled else { return [(continuation, .failure(self.cancelled))] }
                    guard var session = state.session else {
                        return [(continuation, .failure(ChannelError(.transient, "\(self.prefix): the channel's state is not loaded yet")))]
                    }
                    state.session = nil
                    let actions: [Action]
                    do throws(ChannelError) {
                        actions = try begin(&session, id)
                    } catch {
                        state.session = session
                        return [(continuation, .failure(error))]
                    }
                    state.session = session
                    state.requests[id] = continuation
                    return self.apply(actions, &state)
                }
                Self.resume(replies)
            }
        } onCancel: {
            let continuation = self.state.withLock { state in
                defer { state.session?.forgetRequest(id) }
                return state.requests.removeValue(forKey: id)
            }
            continuation?.resume(returning: .failure(self.cancelled))
        }
        return try outcome.get()
    }

    /// Stops the session: `event` (a disconnect, say) is its last step; then every timer is cancelled,
    /// every waiting request hears `error`, and this returns once the worker has done what was queued.
    public func stop(failing error: ChannelError, _ event: (inout Session) -> [Action]) async {
        self.step(event)
        self.timers.cancelAll()
        self.state.withLock { self.letGoOfLink(&$0) }
        let waiting = self.state.withLock { state -> [Reply] in
            defer { state.requests = [:] }
            return state.requests.sorted { $0.key < $1.key }.map { id, continuation in
                state.session?.forgetRequest(id)
                return (continuation, .failure(error))
            }
        }
        Self.resume(waiting)
        await self.worker.drain()
    }

    /// Waits until the worker has done everything queued so far.
    public func drain() async {
        await self.worker.drain()
    }

    /// Reads or changes the session under the lock, with no actions; nil before ``load(_:)``.
    public func withSession<Result>(_ body: (inout Session) -> Result) -> Result? {
        self.state.withLock { state in
            guard var session = state.session else { return nil }
            state.session = nil
            defer { state.session = session }
            return body(&session)
        }
    }

    // MARK: Carrying out

    /// Timers and replies at once; the rest to the worker, in order.
    func apply(_ actions: [Action], _ state: inout State) -> [Reply] {
        var replies: [Reply] = []
        for action in actions {
            switch action {
            case .work(let work):
                self.worker.enqueue(.work(work))
            case .write(let write):
                self.worker.enqueue(.write(write))
            case .emit(let event):
                self.worker.enqueue(.emit(event))
            case .log(let level, let message):
                self.worker.enqueue(.log(level, message))
            case .setTimer(let timer, let delay):
                self.timers.arm(timer, after: delay) { [weak self] id in self?.timerFired(id) }
            case .cancelTimer(let timer):
                self.timers.cancel(timer)
            case .replied(let id, let outcome):
                if let continuation = state.requests.removeValue(forKey: id) { replies.append((continuation, outcome)) }
            case .openLink(let request):
                self.openLink(request, &state)
            case .writeLink(let bytes):
                self.writeLink(bytes, &state)
            case .closeLink:
                self.letGoOfLink(&state)
            case .cancelOperations(let tag):
                self.cancelOperations(tagged: tag)
            }
        }
        return replies
    }

    private func carryOut(_ write: StoreWrite) async {
        do {
            switch write.place {
            case .store: try await self.host.store.setValue(write.value, forKey: write.key)
            case .secrets: try await self.host.secrets.setSecret(write.value, forKey: write.key)
            }
        } catch {
            let place = write.place == .store ? "the state database" : "the secrets file"
            let ifLost = write.ifLost.map { "; \($0)" } ?? ""
            self.host.logger.error("\(self.prefix): could not keep \(write.what) in \(place): \(error)\(ifLost)")
        }
    }

    private func timerFired(_ id: TimerID<Session.Timer>) {
        let now = self.host.now()
        self.step { session in
            guard self.timers.consume(id) else { return [] }
            return session.timerFired(id.kind, now: now)
        }
    }

    private var cancelled: ChannelError {
        ChannelError(.transient, "\(self.prefix): the request was cancelled")
    }

    static func resume(_ replies: [Reply]) {
        for (continuation, outcome) in replies { continuation.resume(returning: outcome) }
    }
}
