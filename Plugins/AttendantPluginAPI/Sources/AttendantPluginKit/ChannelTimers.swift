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
    }

    private let clock: any Clock<Duration>
    private let state = Mutex(State())

    public init(clock: any Clock<Duration>) {
        self.clock = clock
    }

    /// Arms `key` to fire after `delay`, replacing (and cancelling) an earlier arming of it.
    public func arm(_ key: Key, after delay: Duration, fire: @escaping @Sendable (TimerID<Key>) -> Void) {
        let clock = self.clock
        self.state.withLock { state in
            let id = state.table.arm(key)
            state.tasks[key]?.cancel()
            state.tasks[key] = Task {
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    return
                }
                fire(id)
            }
        }
    }

    /// Cancels `key`'s timer, if armed.
    public func cancel(_ key: Key) {
        self.state.withLock { state in
            _ = state.table.disarm(key)
            return state.tasks.removeValue(forKey: key)
        }?.cancel()
    }

    /// Cancels every timer, or those whose key passes `filter`.
    public func cancelAll(where filter: (Key) -> Bool = { _ in true }) {
        let cancelled = self.state.withLock { state in
            state.table.armedKinds.filter(filter).compactMap { key -> Task<Void, Never>? in
                _ = state.table.disarm(key)
                return state.tasks.removeValue(forKey: key)
            }
        }
        for task in cancelled { task.cancel() }
    }

    /// Whether `id` is the live arming of its key; if so it is used up (the key is no longer armed).
    public func consume(_ id: TimerID<Key>) -> Bool {
        self.state.withLock { state in
            guard state.table.fire(id) else { return false }
            state.tasks[id.kind] = nil
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
