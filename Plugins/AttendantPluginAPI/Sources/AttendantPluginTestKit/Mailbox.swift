import Synchronization

/// What a test's wait for the network gave up on: nothing came within the time it allowed.
public struct InMemoryNetworkTimeout: Error, CustomStringConvertible {
    /// What was awaited: "a WebSocket opened by the channel".
    public var awaited: String
    public var limit: Duration

    public var description: String { "no \(self.awaited) within \(self.limit)" }
}

/// Things that arrive, kept in order: ``all`` has every one, ``next(_:timeout:where:)`` hands each out once
/// (the first not handed out yet that matches).
final class Mailbox<Element: Sendable>: Sendable {
    private struct Waiter {
        var id: Int
        var matches: @Sendable (Element) -> Bool
        var continuation: CheckedContinuation<Element?, Never>
        /// Gives the wait up at its limit; cancelled when an element comes first.
        var timer: Task<Void, Never>?
    }

    private struct State {
        var items: [Element] = []
        var handedOut: [Bool] = []
        var nextID = 0
        var waiters: [Waiter] = []
    }

    private let state = Mutex(State())

    init() {}

    func put(_ element: Element) {
        let waiter: Waiter? = self.state.withLock { state in
            state.items.append(element)
            guard let index = state.waiters.firstIndex(where: { $0.matches(element) }) else {
                state.handedOut.append(false)
                return nil
            }
            state.handedOut.append(true)
            return state.waiters.remove(at: index)
        }
        waiter?.timer?.cancel()
        waiter?.continuation.resume(returning: element)
    }

    var all: [Element] { self.state.withLock { $0.items } }

    /// The first element not handed out yet that `matches`, waiting up to `timeout` (wall-clock) for it.
    func next(
        _ awaited: String,
        timeout: Duration,
        where matches: @escaping @Sendable (Element) -> Bool = { _ in true }
    ) async throws(InMemoryNetworkTimeout) -> Element {
        let id = self.state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let element: Element? = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let ready: Element?? = self.state.withLock { state in
                    if let index = state.items.indices.first(where: { !state.handedOut[$0] && matches(state.items[$0]) }) {
                        state.handedOut[index] = true
                        return .some(state.items[index])
                    }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters.append(Waiter(id: id, matches: matches, continuation: continuation, timer: nil))
                    return nil
                }
                if let ready {
                    continuation.resume(returning: ready)
                    return
                }
                let timer = Task {
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    self.giveUp(id)
                }
                let late = self.state.withLock { state in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return true }
                    state.waiters[index].timer = timer
                    return false
                }
                if late { timer.cancel() }
            }
        } onCancel: {
            self.giveUp(id)
        }
        guard let element else { throw InMemoryNetworkTimeout(awaited: awaited, limit: timeout) }
        return element
    }

    private func giveUp(_ id: Int) {
        let waiter = self.state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.timer?.cancel()
        waiter?.continuation.resume(returning: nil)
    }
}

/// Runs deliveries one at a time and in the order they were asked for, on the thread that asked (or on
/// the one already delivering), never under a lock: what a host's I/O thread promises a socket's callbacks.
final class SerialDelivery: Sendable {
    private struct State {
        var pending: [@Sendable () -> Void] = []
        var running = false
    }

    private let state = Mutex(State())

    init() {}

    func run(_ work: @escaping @Sendable () -> Void) {
        let start = self.state.withLock { state in
            state.pending.append(work)
            guard !state.running else { return false }
            state.running = true
            return true
        }
        guard start else { return }
        while let next = self.state.withLock({ state -> (@Sendable () -> Void)? in
            guard !state.pending.isEmpty else {
                state.running = false
                return nil
            }
            return state.pending.removeFirst()
        }) {
            next()
        }
    }
}
