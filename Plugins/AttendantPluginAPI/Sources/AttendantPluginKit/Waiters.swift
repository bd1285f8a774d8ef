import Synchronization

/// Callers of a driver waiting for its machine to get somewhere (`listen()` for the first registration, a
/// request for the server's answer), each with a condition and, if it likes, a deadline on the host's
/// clock.
///
/// The driver adds a waiter in the same locked step that starts what it waits for, and after each later
/// step asks ``settle(_:)`` which conditions are met; the resumptions it gets back are done after its lock
/// is released. When a deadline passes, `expired` is called with the waiter's id; the driver takes it out
/// with ``remove(_:)`` (under its lock) and decides what the caller hears.
@available(
    *,
    deprecated,
    message: "retired: no plugin of this project waits this way any more; a SessionDriver request(_:) answers its caller when the session says so"
)
public final class Waiters<Condition: Sendable, Value: Sendable>: Sendable {
    public typealias Continuation = CheckedContinuation<Value, any Error>

    private struct Entry {
        var condition: Condition
        var continuation: Continuation
        var deadline: Task<Void, Never>?
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var next: UInt64 = 0
    }

    private let clock: any Clock<Duration>
    private let state = Mutex(State())

    public init(clock: any Clock<Duration>) {
        self.clock = clock
    }

    /// Adds a waiter and returns its id. After `timeout` (if any), `expired` is called with the id, unless
    /// the waiter was settled or removed before.
    @discardableResult
    public func add(
        _ continuation: Continuation,
        until condition: Condition,
        timeout: Duration? = nil,
        expired: @escaping @Sendable (UInt64) -> Void = { _ in }
    ) -> UInt64 {
        let clock = self.clock
        return self.state.withLock { state in
            state.next += 1
            let id = state.next
            let deadline = timeout.map { timeout in
                Task {
                    do {
                        try await clock.sleep(for: timeout)
                    } catch {
                        return
                    }
                    expired(id)
                }
            }
            state.entries[id] = Entry(condition: condition, continuation: continuation, deadline: deadline)
            return id
        }
    }

    /// Takes out the waiters whose condition `decide` gives an outcome for (nil: keep waiting).
    public func settle(_ decide: (Condition) -> Result<Value, any Error>?) -> [Resumption<Value>] {
        self.state.withLock { state in
            var resumptions: [Resumption<Value>] = []
            for (id, entry) in state.entries.sorted(by: { $0.key < $1.key }) {
                guard let result = decide(entry.condition) else { continue }
                state.entries[id] = nil
                entry.deadline?.cancel()
                resumptions.append(Resumption(continuation: entry.continuation, result: result))
            }
            return resumptions
        }
    }

    /// Takes out waiter `id` if `decide` gives its outcome (it may be there already when it starts).
    public func settle(_ id: UInt64, _ decide: (Condition) -> Result<Value, any Error>?) -> Resumption<Value>? {
        self.state.withLock { state in
            guard let entry = state.entries[id], let result = decide(entry.condition) else { return nil }
            state.entries[id] = nil
            entry.deadline?.cancel()
            return Resumption(continuation: entry.continuation, result: result)
        }
    }

    /// Takes out one waiter (its deadline passed, or its caller was cancelled): its condition and a
    /// resumption with `outcome` for it. Nil when it is gone already.
    public func remove(_ id: UInt64, outcome: (Condition) -> Result<Value, any Error>) -> Resumption<Value>? {
        self.state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: id) else { return nil }
            entry.deadline?.cancel()
            return Resumption(continuation: entry.continuation, result: outcome(entry.condition))
        }
    }

    /// Takes out every waiter, each to hear `error` (the channel stops).
    public func removeAll(throwing error: any Error) -> [Resumption<Value>] {
        self.settle { _ in .failure(error) }
    }

    public var isEmpty: Bool { self.state.withLock { $0.entries.isEmpty } }

    public var count: Int { self.state.withLock { $0.entries.count } }
}

/// A waiter's outcome, to hand over once the driver's lock is released.
@available(
    *,
    deprecated,
    message: "retired: no plugin of this project waits this way any more; a SessionDriver request(_:) answers its caller when the session says so"
)
public struct Resumption<Value: Sendable>: Sendable {
    let continuation: CheckedContinuation<Value, any Error>
    let result: Result<Value, any Error>

    public func resume() {
        self.continuation.resume(with: self.result)
    }
}

@available(*, deprecated, message: "retired with Waiters")
extension Sequence {
    /// Resumes each waiter in order.
    public func resume<Value>() where Element == Resumption<Value> {
        for resumption in self { resumption.resume() }
    }
}
