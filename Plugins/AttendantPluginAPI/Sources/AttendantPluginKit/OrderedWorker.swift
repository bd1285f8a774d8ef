import Synchronization

/// Work a driver leaves for later, done one item at a time in the order it was queued: writes to a
/// connection, the store, events for the host. Queueing never blocks, so a driver can queue under its lock.
///
/// The channel runs the worker from ``AttendantPluginAPI/Channel/run()``, which the host runs for the
/// channel's life and cancels when it drops the channel:
///
/// ```swift
/// func run() async { await self.worker.run { item in await self.carryOut(item) } }
/// ```
public final class OrderedWorker<Item: Sendable>: Sendable {
    private enum Job: Sendable {
        case item(Item)
        case barrier(CheckedContinuation<Void, Never>)
    }

    private struct State {
        var jobs: [Job] = []
        var head = 0
        var runner: CheckedContinuation<Job?, Never>?
        /// Nothing more is taken; what is queued is still done.
        var finished = false
        /// ``run(_:)`` has ended: nothing is done any more.
        var stopped = false

        mutating func take() -> Job? {
            guard self.head < self.jobs.count else { return nil }
            let job = self.jobs[self.head]
            self.head += 1
            if self.head == self.jobs.count {
                self.jobs.removeAll(keepingCapacity: true)
                self.head = 0
            }
            return job
        }
    }

    private let state = Mutex(State())

    public init() {}

    /// Queues `item` behind everything queued before it. After ``finish()`` it is dropped.
    public func enqueue(_ item: Item) {
        self.add(.item(item))
    }

    /// Returns once everything queued so far is done (at once once the worker has stopped).
    public func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            self.add(.barrier(continuation))
        }
    }

    private func add(_ job: Job) {
        let runner = self.state.withLock { state -> CheckedContinuation<Job?, Never>?? in
            if state.stopped || state.finished { return .some(nil) }
            if let runner = state.runner {
                state.runner = nil
                return runner
            }
            state.jobs.append(job)
            return nil
        }
        switch runner {
        case .some(let runner?): runner.resume(returning: job)
        case .some(nil): Self.drop(job)
        case nil: break
        }
    }

    /// Does the queued items in order until ``finish()`` (then the items queued before it are done) or
    /// until the calling task is cancelled (then they are dropped). Run it once.
    public func run(_ body: (Item) async -> Void) async {
        while let job = await self.next() {
            switch job {
            case .item(let item): await body(item)
            case .barrier(let continuation): continuation.resume()
            }
        }
        let left = self.state.withLock { state -> [Job] in
            state.stopped = true
            defer {
                state.jobs = []
                state.head = 0
            }
            return Array(state.jobs[state.head...])
        }
        for job in left { Self.drop(job) }
    }

    private func next() async -> Job? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Job?, Never>) in
                let ready = self.state.withLock { state -> Job?? in
                    if Task.isCancelled { return .some(nil) }
                    if let job = state.take() { return job }
                    if state.finished { return .some(nil) }
                    state.runner = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let runner = self.state.withLock { state in
                state.finished = true
                defer { state.runner = nil }
                return state.runner
            }
            runner?.resume(returning: nil)
        }
    }

    /// Ends the worker: nothing more is queued, and ``run(_:)`` returns once the items queued are done.
    public func finish() {
        let runner = self.state.withLock { state in
            state.finished = true
            defer { state.runner = nil }
            return state.runner
        }
        runner?.resume(returning: nil)
    }

    private static func drop(_ job: Job) {
        if case .barrier(let continuation) = job { continuation.resume() }
    }
}
