import Synchronization
// A clock whose sleeps cost nothing once cancelled. `Task.sleep` hands its job to the executor, and the
// custom-executor SPI has no call to take it back: a cancelled sleep (a transaction timer that was not
// needed, the timeout around a command that finished) still wakes the loop once at its old deadline. The
// daemon gives this clock to its channels as `host.clock`; its sleeps are actions in the executor's timer
// heap, and cancelling one removes it there.
@_spi(ExperimentalCustomExecutors) import _Concurrency

/// `ContinuousClock`'s time (it counts suspended time), with sleeps the daemon's executor can cancel. A
/// sleep's `tolerance` lets it end that much early when the executor is awake anyway, so that timers close
/// together share one wake-up.
public struct IdleClock: Clock {
    public typealias Instant = ContinuousClock.Instant

    let executor: IdleExecutor

    public var now: Instant { ContinuousClock.now }

    public var minimumResolution: Duration { ContinuousClock().minimumResolution }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let nanoseconds = IdleExecutor.nanoseconds(ContinuousClock.now.duration(to: deadline))
        let target = IdleExecutor.now(.continuous) &+ nanoseconds
        let slack = tolerance.map { IdleExecutor.nanoseconds($0) } ?? 0
        let sleep = Sleep()
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                sleep.start(continuation) {
                    self.executor.schedule(at: target, tolerance: slack, on: .continuous) { sleep.finish() }
                }
            }
        } onCancel: {
            sleep.cancel(on: self.executor)
        }
    }
}

/// One sleep's continuation and timer; whichever of the timer and cancellation comes first resumes it.
private final class Sleep: Sendable {
    private enum State {
        case starting
        case cancelled
        case waiting(UnsafeContinuation<Void, any Error>, IdleExecutor.TimerID)
        case finished
    }

    private let state = Mutex(State.starting)

    func start(_ continuation: UnsafeContinuation<Void, any Error>, schedule: () -> IdleExecutor.TimerID) {
        // Scheduled under the lock so cancellation sees either no timer or its identifier; the action
        // runs later on the loop's thread and cannot need this lock while it is held here.
        let cancelled = self.state.withLock { state -> Bool in
            guard case .starting = state else { return true }
            state = .waiting(continuation, schedule())
            return false
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
    }

    func finish() {
        let continuation = self.state.withLock { state -> UnsafeContinuation<Void, any Error>? in
            guard case .waiting(let continuation, _) = state else { return nil }
            state = .finished
            return continuation
        }
        continuation?.resume()
    }

    func cancel(on executor: IdleExecutor) {
        let waiting = self.state.withLock { state -> (UnsafeContinuation<Void, any Error>, IdleExecutor.TimerID)? in
            switch state {
            case .starting:
                state = .cancelled
                return nil
            case .waiting(let continuation, let timer):
                state = .finished
                return (continuation, timer)
            case .cancelled, .finished:
                return nil
            }
        }
        guard let (continuation, timer) = waiting else { return }
        executor.cancel(timer)
        continuation.resume(throwing: CancellationError())
    }
}
