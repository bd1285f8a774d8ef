public import AttendantPluginAPI
import Synchronization

/// A clock that moves only when a test moves it, so hours of keep-alive cycles run in microseconds and
/// no test sleeps.
///
/// ```swift
/// let clock = ManualClock()
/// let host = InMemoryChannelHost(clock: clock)
/// … start something that sleeps on host.clock …
/// await clock.waitForSleepers(atLeast: 1)
/// clock.advance(by: .seconds(600))
/// ```
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// Time since the clock was made.
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Self { Instant(offset: self.offset + duration) }

        public func duration(to other: Self) -> Duration { other.offset - self.offset }

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }

        public var description: String { "t+\(self.offset)" }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var cancelled: Set<Int> = []
        var sleeperWaiters: [(condition: @Sendable ([Instant]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    /// The wall-clock time at the clock's start; ``unixTime()`` moves with the clock from there.
    public let epoch: UnixTime

    public init(epoch: UnixTime = UnixTime(secondsSince1970: 1_800_000_000)) {
        self.epoch = epoch
    }

    public var now: Instant { self.state.withLock { $0.now } }

    public var minimumResolution: Duration { .zero }

    /// Wall-clock time at ``now``.
    public func unixTime() -> UnixTime { self.epoch + self.now.offset }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { self.state.withLock { $0.sleepers.count } }

    /// The earliest deadline anyone sleeps until, if anyone sleeps.
    public var nextDeadline: Instant? { self.state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = self.state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = self.state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else {
                    self.wakeSleeperWaiters()
                }
            }
        } onCancel: {
            let sleeper: Sleeper? = self.state.withLock { state in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                state.cancelled.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
    public func advance(by duration: Duration) {
        let due = self.state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }.sorted { $0.value.deadline < $1.value.deadline }
            for (id, _) in due { state.sleepers[id] = nil }
            return due.map(\.value.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Moves time to the earliest deadline anyone sleeps until (if any) and wakes those sleepers.
    @discardableResult
    public func advanceToNextDeadline() -> Bool {
        guard let next = self.nextDeadline else { return false }
        self.advance(by: self.now.duration(to: next))
        return true
    }

    /// Returns once at least `count` tasks sleep on this clock.
    public func waitForSleepers(atLeast count: Int) async {
        await self.waitForSleepers { $0.count >= count }
    }

    /// Returns once someone sleeps until exactly `deadline`, such as the next keep-alive.
    public func waitForSleeper(until deadline: Instant) async {
        await self.waitForSleepers { $0.contains(deadline) }
    }

    /// Returns once the deadlines of the current sleepers satisfy `condition`.
    public func waitForSleepers(where condition: @escaping @Sendable ([Instant]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = self.state.withLock { state in
                if condition(state.sleepers.values.map(\.deadline)) { return true }
                state.sleeperWaiters.append((condition, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func wakeSleeperWaiters() {
        let ready = self.state.withLock { state in
            let deadlines = state.sleepers.values.map(\.deadline)
            var ready: [CheckedContinuation<Void, Never>] = []
            state.sleeperWaiters.removeAll { waiter in
                guard waiter.condition(deadlines) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}
