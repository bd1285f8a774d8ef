import Synchronization

/// Timers on the host's clock (``AttendantPluginAPI/ChannelHost/clock``) for a channel's driver, by key.
///
/// Arming a key again replaces its timer. A firing reaches the driver as the ``TimerID`` of its arming,
/// and the driver asks ``consume(_:)``, under its own lock, whether that arming is still the live one: a
/// timer that fired while it was being cancelled or armed again does nothing.
///
/// ```swift
/// func arm(_ key: TimerKey, after delay: Duration) {
///     self.timers.arm(key, after: delay) { [weak self] id in self?.timerFired(id) }
/// }
/// func timerFired(_ id: TimerID<TimerKey>) {
///     self.step { state, effects in
///         guard self.timers.consume(id) else { return }
///         …
///     }
/// }
/// ```
public final class ChannelTimers<Key: Hashable & Sendable>: Sendable {
    private struct State {
        /// Which arming of each key is live (the same bookkeeping a pure machine keeps).
        var table = TimerTable<Key>()
        var tasks: [Key: Task<Void, Never>] = [:]
        /// Open ``startingAfter(_:)`` scopes, and the sleeps armed inside them, not yet started.
        var holds = 0
        var held: [Key: HeldStart] = [:]
        var cancelled: [Task<Void, Never>] = []

        /// Cancels `task` now, or at the end of the open scopes (cancelling a sleep wakes the executor too).
        mutating func cancel(_ task: Task<Void, Never>?) {
            guard let task else { return }
            if self.holds > 0 { self.cancelled.append(task) } else { task.cancel() }
        }
    }

    private struct HeldStart {
        let id: TimerID<Key>
        let delay: Duration
        let fire: @Sendable (TimerID<Key>) -> Void
    }

    private let clock: any Clock<Duration>
    private let state = Mutex(State())

    public init(clock: any Clock<Duration>) {
        self.clock = clock
    }

    /// Arms `key` to fire after `delay`, replacing (and cancelling) an earlier arming of it.
    public func arm(_ key: Key, after delay: Duration, fire: @escaping @Sendable (TimerID<Key>) -> Void) {
        self.state.withLock { state in
            let id = state.table.arm(key)
            state.cancel(state.tasks.removeValue(forKey: key))
            if state.holds > 0 {
                state.held[key] = HeldStart(id: id, delay: delay, fire: fire)
            } else {
                state.held[key] = nil
                state.tasks[key] = self.sleep(for: delay, then: fire, id)
            }
        }
    }

    /// Runs `body` (a step of the driver, effects included) and starts the sleeps of the timers it armed,
    /// and cancels those it cancelled, only once it has returned. Starting or cancelling a sleep hands work
    /// to the host's executor, which wakes its thread: an INVITE's 180 goes out first, and the waking
    /// thread does not compete with it. The table changes at once, so ``consume(_:)`` sees every arming
    /// and cancellation as usual (a sleep cancelled late that ends meanwhile fires a stale id); a sleep
    /// starts as late as `body` took (microseconds: protocol timers are milliseconds and more).
    ///
    /// Outside a task (on the network's thread, say, where a response arrived) the starts and cancels go to
    /// the executor in one job: handed over one by one, each would wake the executor's thread again (a
    /// REGISTER's 200 cancels two timers and the next request arms two, and every cancel woke it twice:
    /// once for the cancelled sleep, once more on the lock the two threads then shared).
    public func startingAfter<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        self.state.withLock { $0.holds += 1 }
        defer {
            let due = self.state.withLock { state -> Bool in
                state.holds -= 1
                return state.holds == 0 && !(state.cancelled.isEmpty && state.held.isEmpty)
            }
            if due {
                if withUnsafeCurrentTask(body: { $0 != nil }) {
                    self.startHeld()
                } else {
                    Task { self.startHeld() }
                }
            }
        }
        return try body()
    }

    /// Cancels the sleeps cancelled in finished ``startingAfter(_:)`` scopes and starts those armed there
    /// that are still live (an arming cancelled or replaced since never starts); nothing while a scope is open.
    private func startHeld() {
        self.state.withLock { state in
            guard state.holds == 0 else { return }
            for task in state.cancelled { task.cancel() }
            state.cancelled.removeAll()
            for (key, start) in state.held where state.table.isLive(start.id) {
                state.tasks[key] = self.sleep(for: start.delay, then: start.fire, start.id)
            }
            state.held.removeAll()
        }
    }

    private func sleep(for delay: Duration, then fire: @escaping @Sendable (TimerID<Key>) -> Void, _ id: TimerID<Key>) -> Task<Void, Never> {
        let clock = self.clock
        return Task {
            do {
                try await clock.sleep(for: delay)
            } catch {
                return
            }
            fire(id)
        }
    }

    /// Cancels `key`'s timer, if armed.
    public func cancel(_ key: Key) {
        self.state.withLock { state in
            _ = state.table.disarm(key)
            state.held[key] = nil
            state.cancel(state.tasks.removeValue(forKey: key))
        }
    }

    /// Cancels every timer, or those whose key passes `filter`.
    public func cancelAll(where filter: (Key) -> Bool = { _ in true }) {
        self.state.withLock { state in
            for key in state.table.armedKinds where filter(key) {
                _ = state.table.disarm(key)
                state.held[key] = nil
                state.cancel(state.tasks.removeValue(forKey: key))
            }
        }
    }

    /// Whether `id` is the live arming of its key; if so it is used up (the key is no longer armed).
    public func consume(_ id: TimerID<Key>) -> Bool {
        self.state.withLock { state in
            guard state.table.fire(id) else { return false }
            state.tasks[id.kind] = nil
            state.held[id.kind] = nil
            return true
        }
    }

    public func isArmed(_ key: Key) -> Bool {
        self.state.withLock { $0.table.isArmed(key) }
    }

    deinit {
        self.cancelAll()
    }
}

/// Which connection (or flow, or session) of a driver is the current one. Each new connection takes the
/// next generation; whatever arrives tagged with an older one comes from a connection the driver has let
/// go of, and is dropped.
@frozen
public struct Generation: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let value: UInt64

    public init() { self.value = 0 }

    /// Moves on to the next generation and returns it.
    @discardableResult
    public mutating func advance() -> Generation {
        self = Generation(value: self.value + 1)
        return self
    }

    private init(value: UInt64) { self.value = value }

    public static func < (lhs: Generation, rhs: Generation) -> Bool { lhs.value < rhs.value }

    public var description: String { "#\(self.value)" }
}
