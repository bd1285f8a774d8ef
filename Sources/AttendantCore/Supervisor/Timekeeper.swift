import AttendantPluginAPI
import Synchronization

/// Elapsed time and sleeping on whatever clock the daemon (or a test) injects.
///
/// Built from an existential `any Clock<Duration>`, it measures time since it was made, so state
/// machines can work with plain `Duration`s.
package struct Timekeeper: Sendable {
    private let elapsedTime: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration, Duration?) async throws -> Void

    package init(_ clock: any Clock<Duration>) {
        (self.elapsedTime, self.sleeper) = Self.make(clock)
    }

    private static func make<C: Clock<Duration>>(
        _ clock: C
    ) -> (@Sendable () -> Duration, @Sendable (Duration, Duration?) async throws -> Void) {
        let start = clock.now
        return (
            { start.duration(to: clock.now) },
            { try await clock.sleep(until: start.advanced(by: $0), tolerance: $1) }
        )
    }

    /// Time since this timekeeper was made.
    package var elapsed: Duration { self.elapsedTime() }

    /// Sleeps until `elapsed` reaches `deadline`, or up to `tolerance` before when the clock allows it
    /// (the daemon's ends a sleep early only when its executor is awake for something else then).
    package func sleep(untilElapsed deadline: Duration, tolerance: Duration? = nil) async throws {
        try await self.sleeper(deadline, tolerance)
    }

    /// Runs `operation`, and throws ``TimeoutError`` when it takes longer than `limit`: then the operation
    /// is cancelled, and given up to ``abandonGrace`` of real time to end (a token command is killed and
    /// reaped in that time). One that ignores cancellation is left behind, so one stuck plugin call cannot
    /// hold the supervisor, or the daemon's shutdown, past its limit; a task group would wait for it.
    /// Cancelling the caller cancels the operation, still bounded the same way.
    package func withTimeout<T: Sendable>(
        _ limit: Duration,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let deadline = self.elapsed + limit
        let outcome = FirstOutcome<Result<T, any Error>>()
        let work = Task { outcome.settle(await Result(catching: operation)) }
        let timer = Task {
            try? await self.sleep(untilElapsed: deadline)
            outcome.settle(.failure(TimeoutError(limit: limit)))
        }
        let result = await withTaskCancellationHandler {
            await outcome.value
        } onCancel: {
            work.cancel()
        }
        timer.cancel()
        if case .failure(let error) = result, error is TimeoutError {
            work.cancel()
            _ = await Self.awaitEnd(of: work)
        }
        return try result.get()
    }

    /// How long a timed-out operation gets to end once cancelled, in real time whatever the clock.
    package static let abandonGrace = Duration.seconds(1)

    /// Waits for `task` to end, for at most `grace` of real time; whether it ended.
    package static func awaitEnd(of task: Task<Void, Never>, within grace: Duration = abandonGrace) async -> Bool {
        let ended = FirstOutcome<Bool>()
        let watcher = Task {
            await task.value
            ended.settle(true)
        }
        let timer = Task {
            try? await Task.sleep(for: grace)
            ended.settle(false)
        }
        let result = await ended.value
        watcher.cancel()
        timer.cancel()
        return result
    }
}

/// The first of several outcomes, for whoever waits for it.
private final class FirstOutcome<T: Sendable>: Sendable {
    private struct State {
        var value: T?
        var waiters: [CheckedContinuation<T, Never>] = []
    }

    private let state = Mutex(State())

    func settle(_ value: T) {
        let waiters = self.state.withLock { state -> [CheckedContinuation<T, Never>] in
            guard state.value == nil else { return [] }
            state.value = value
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    var value: T {
        get async {
            await withCheckedContinuation { continuation in
                let settled = self.state.withLock { state -> T? in
                    if state.value == nil { state.waiters.append(continuation) }
                    return state.value
                }
                if let settled { continuation.resume(returning: settled) }
            }
        }
    }
}

fileprivate extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

package struct TimeoutError: Error, CustomStringConvertible {
    package var limit: Duration
    package var description: String { "did not finish within \(limit.seconds.formatted) s" }
}

extension Double {
    /// `30`, `1.5`: at most three decimals, no trailing zeros.
    var formatted: String {
        let milliseconds = (self * 1000).rounded()
        if milliseconds.truncatingRemainder(dividingBy: 1000) == 0 { return String(Int64(milliseconds / 1000)) }
        var text = String(milliseconds / 1000)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
