public import AttendantPluginAPI
import Synchronization

/// The channel's reader of its link (``SessionDriver/LinkHandler``), in a struct so that the `Mutex` holds no
/// function value of its own. Swift reabstracts a function value that a generic container holds each time
/// it is reached through `inout`, and `withLock` hands its value over `inout` and writes it back: a bare
/// handler came out of every read wrapped in two more thunks. Read once for each batch of messages, it grew
/// by two calls a batch for the life of the channel, and each message went through all of them: after the
/// fault campaign's hours a CXone chat spent seconds of the event loop's time re-reading its threads, and
/// any other channel's socket on that loop waited (issue 34; swiftlang/swift#91348 reports it at -Onone, and
/// this toolchain does it at -O too). A struct is passed whole, never reabstracted.
struct LinkReader<Session: ChannelSession>: Sendable {
    let read: SessionDriver<Session>.LinkHandler
}

/// Where the session's link is, and what it brought that the session has not heard yet.
struct LinkSlot: Sendable {
    enum Phase: Sendable {
        case none
        /// The upgrade is under way: what the host reports before it returns waits here, and so do
        /// the session's writes.
        case opening(early: [WebSocketEvent], writes: [[UInt8]])
        case open(any WebSocketConnection)
    }

    var phase = Phase.none
    /// Which link is current: what any other brings is dropped.
    var generation = Generation()
    /// Events for the session, each with its link's generation, handed over by one caller at a time so
    /// they keep their order.
    var inbox: [(Generation, LinkEvent)] = []
    var draining = false
    /// A hand-over is queued on the driver's operations and has not started: what arrives meanwhile waits
    /// for it.
    var handOverQueued = false
}

// The link slot: a WebSocket per generation, opened, written and closed as the session's actions, with its
// events handed to the session in order.
extension SessionDriver {
    /// Lets go of the current link (closing it once what was written before has gone out) and opens the
    /// next, as an operation of ``run(_:link:)``.
    func openLink(_ request: WebSocketRequest, _ state: inout State) {
        self.letGoOfLink(&state)
        state.link.phase = .opening(early: [], writes: [])
        let generation = state.link.generation
        self.operationQueue.yield { await self.upgrade(request, generation) }
    }

    func writeLink(_ bytes: [UInt8], _ state: inout State) {
        switch state.link.phase {
        case .open(let connection):
            self.worker.enqueue(.writeLink(bytes, connection, state.link.generation))
        case .opening(let early, var writes):
            writes.append(bytes)
            state.link.phase = .opening(early: early, writes: writes)
        case .none:
            self.worker.enqueue(.log(.debug, "\(self.prefix): a message was not sent: the link is not open"))
        }
    }

    /// A new generation: nothing the link brings reaches the session any more, an open link closes behind
    /// the writes queued for it, and an upgrade under way is closed when it returns.
    func letGoOfLink(_ state: inout State) {
        state.link.generation.advance()
        if case .open(let connection) = state.link.phase { self.worker.enqueue(.closeLink(connection)) }
        state.link.phase = .none
    }

    private func upgrade(_ request: WebSocketRequest, _ generation: Generation) async {
        let connection: any WebSocketConnection
        do throws(NetworkError) {
            connection = try await self.host.network.openWebSocket(request) { [weak self] event in
                self?.arrived(event, on: generation)
            }
        } catch {
            self.state.withLock { state in
                guard state.link.generation == generation, case .opening = state.link.phase else { return }
                state.link.phase = .none
                state.link.inbox.append((generation, .closed(error.message)))
            }
            self.handOver()
            return
        }
        let current = self.state.withLock { state -> Bool in
            guard state.link.generation == generation, case .opening(let early, let writes) = state.link.phase else { return false }
            state.link.phase = .open(connection)
            state.link.inbox.append((generation, .opened))
            for event in early { self.receive(event, generation, &state) }
            for bytes in writes { self.writeLink(bytes, &state) }
            return true
        }
        if current { self.handOver() } else { await connection.close() }
    }

    /// What the host reports for the link of `generation`, on the host's network thread (a swift-nio event
    /// loop, which carries other sockets too, other channels' among them). The event is only queued here:
    /// the channel's reader and the session's step run in a hand-over queued on the driver's operations,
    /// so a channel that reads slowly, or has much to read (a chat re-reading its threads after a
    /// restart), holds back no other socket (issue 34). One hand-over is queued at a time; what arrives
    /// while one is queued or draining is taken by it, in order.
    private func arrived(_ event: WebSocketEvent, on generation: Generation) {
        let queue = self.state.withLock { state -> Bool in
            guard state.link.generation == generation else { return false }
            switch state.link.phase {
            case .opening(var early, let writes):
                early.append(event)
                state.link.phase = .opening(early: early, writes: writes)
                return false
            case .open:
                self.receive(event, generation, &state)
            case .none:
                return false
            }
            guard !state.link.draining, !state.link.handOverQueued, !state.link.inbox.isEmpty else { return false }
            state.link.handOverQueued = true
            return true
        }
        if queue { self.operationQueue.yield { self.handOver() } }
    }

    /// Queues `event` for the session; after a close, the link takes no more writes.
    private func receive(_ event: WebSocketEvent, _ generation: Generation, _ state: inout State) {
        switch event {
        case .text(let bytes), .binary(let bytes):
            state.link.inbox.append((generation, .message(bytes)))
        case .closed(let reason):
            state.link.phase = .none
            state.link.inbox.append((generation, .closed(reason)))
        case .pong:
            // The driver sends no pings.
            break
        @unknown default:
            break
        }
    }

    /// Hands the inbox to the session until it is empty, unless another caller is doing so: each event is
    /// read by the channel's handler outside the lock, then is the session's step if its link is still
    /// current. A `closed` ends its generation. Called from the driver's own tasks, never from the host's
    /// network thread (``arrived(_:on:)``).
    func handOver() {
        let handler = self.linkHandler.withLock { $0 }?.read
        let drains = self.state.withLock { state -> Bool in
            state.link.handOverQueued = false
            guard !state.link.draining, !state.link.inbox.isEmpty else { return false }
            state.link.draining = true
            return true
        }
        guard drains else { return }
        while true {
            let batch = self.state.withLock { state -> [(Generation, LinkEvent)] in
                defer { state.link.inbox = [] }
                if state.link.inbox.isEmpty { state.link.draining = false }
                return state.link.inbox
            }
            guard !batch.isEmpty else { return }
            for (generation, event) in batch {
                let read = handler?(event)
                let replies = self.state.withLock { state -> [Reply] in
                    guard state.link.generation == generation else { return [] }
                    if case .closed = event { state.link.generation.advance() }
                    guard let read, var session = state.session else { return [] }
                    state.session = nil
                    let actions = read(&session)
                    state.session = session
                    return self.apply(actions, &state)
                }
                Self.resume(replies)
            }
        }
    }

    /// One of the session's writes, on the worker; a write that fails ends the link.
    func write(_ bytes: [UInt8], on connection: any WebSocketConnection, _ generation: Generation) async {
        do throws(NetworkError) {
            try await connection.send(text: bytes)
        } catch {
            let ended = self.state.withLock { state -> Bool in
                guard state.link.generation == generation, case .open = state.link.phase else { return false }
                state.link.phase = .none
                state.link.inbox.append((generation, .closed("a write failed: \(error.message)")))
                return true
            }
            if ended {
                self.operationQueue.yield { await connection.close() }
                self.handOver()
            }
        }
    }

    /// The channel has ended: its link closes.
    func closeLinkAtEnd() async {
        let connection = self.state.withLock { state -> (any WebSocketConnection)? in
            defer {
                state.link.generation.advance()
                state.link.phase = .none
            }
            if case .open(let connection) = state.link.phase { return connection }
            return nil
        }
        await connection?.close()
    }
}

/// The operations started under a tag that have not ended, for cancelling.
struct TaggedOperations: Sendable {
    struct Running: Sendable {
        var tag: String
        var cancelled = false
        /// The waiter that ends the operation's task group when it is cancelled.
        var waiter: CheckedContinuation<Bool, Never>?
    }

    var running: [UInt64: Running] = [:]
    var next: UInt64 = 0
}

// The session's HTTP calls.
extension SessionDriver {
    /// Sends `request` on the host's network beside the worker, as ``concurrently(_:)`` runs an operation
    /// (under `tag`, as ``concurrently(tag:_:)``, when given). `read` turns the outcome into the session's
    /// next step outside the lock, where a plugin decodes the answer, as ``LinkHandler`` does for the link.
    /// Since API 1.13.
    ///
    /// ```swift
    /// case .fetch(let call):
    ///     self.driver.send(call.request) { outcome in
    ///         let input = call.read(outcome)
    ///         return { $0.answered(input) }
    ///     }
    /// ```
    @_spi(Experimental) public func send(
        _ request: NetworkRequest,
        tag: String? = nil,
        then read: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> (inout Session) -> [Action]
    ) {
        let operation: @Sendable () async -> (inout Session) -> [Action] = {
            do throws(NetworkError) {
                return read(.success(try await self.host.network.send(request)))
            } catch {
                return read(.failure(error))
            }
        }
        if let tag {
            self.concurrently(tag: tag, operation)
        } else {
            self.concurrently(operation)
        }
    }
}

// Operations that a step may cancel.
extension SessionDriver {
    /// ``concurrently(_:)`` under `tag`: a later step's ``SessionAction/cancelOperations(tagged:)``
    /// cancels its task (a network call sees the cancellation and ends) and drops its step. Since API 1.13.
    @_spi(Experimental) public func concurrently(tag: String, _ operation: @escaping @Sendable () async -> (inout Session) -> [Action]) {
        let serial = self.tagged.withLock { tagged -> UInt64 in
            tagged.next += 1
            tagged.running[tagged.next] = TaggedOperations.Running(tag: tag)
            return tagged.next
        }
        self.operationQueue.yield {
            // The operation and a waiter race: a cancel wakes the waiter, whose error cancels the group.
            try? await withThrowingDiscardingTaskGroup { group in
                group.addTask {
                    let step = await operation()
                    if self.finish(serial) { self.step(step) }
                }
                group.addTask {
                    let cancelled = await withTaskCancellationHandler {
                        await withCheckedContinuation { self.park(serial, $0) }
                    } onCancel: {
                        self.wake(serial)
                    }
                    if cancelled { throw CancellationError() }
                }
            }
        }
    }

    func cancelOperations(tagged tag: String) {
        let waiters = self.tagged.withLock { tagged -> [CheckedContinuation<Bool, Never>] in
            var waiters: [CheckedContinuation<Bool, Never>] = []
            for (serial, running) in tagged.running where running.tag == tag {
                tagged.running[serial]?.cancelled = true
                tagged.running[serial]?.waiter = nil
                if let waiter = running.waiter { waiters.append(waiter) }
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// The waiter of operation `serial` waits for a cancel (true), or for the operation's end or the
    /// channel's (false: the operation's step still counts, as an untagged one's).
    private func park(_ serial: UInt64, _ waiter: CheckedContinuation<Bool, Never>) {
        let now = self.tagged.withLock { tagged -> Bool? in
            guard let running = tagged.running[serial] else { return false }
            if running.cancelled { return true }
            if Task.isCancelled { return false }
            tagged.running[serial]?.waiter = waiter
            return nil
        }
        if let now { waiter.resume(returning: now) }
    }

    /// The channel's run ends: the waiter lets the operation end on its own.
    private func wake(_ serial: UInt64) {
        let waiter = self.tagged.withLock { tagged in
            defer { tagged.running[serial]?.waiter = nil }
            return tagged.running[serial]?.waiter
        }
        waiter?.resume(returning: false)
    }

    /// Operation `serial` is over: its waiter ends. Returns whether its step still counts (it was not
    /// cancelled).
    private func finish(_ serial: UInt64) -> Bool {
        let (running, waiter) = self.tagged.withLock { tagged -> (TaggedOperations.Running?, CheckedContinuation<Bool, Never>?) in
            let running = tagged.running.removeValue(forKey: serial)
            return (running, running?.waiter)
        }
        waiter?.resume(returning: false)
        return running.map { !$0.cancelled } ?? false
    }
}
