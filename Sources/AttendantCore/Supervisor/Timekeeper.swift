import AttendantPluginAPI

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

    /// Runs `operation`, cancelling it and throwing ``TimeoutError`` when it takes longer than `limit`.
    package func withTimeout<T: Sendable>(
        _ limit: Duration,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let deadline = self.elapsed + limit
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await self.sleep(untilElapsed: deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw TimeoutError(limit: limit)
            }
            return value
        }
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
