/// The CometD session as the chat sees it: whether its latest `/meta/connect` succeeded. The callers of
/// `listen()` wait for one, so they exist only while none has (``connecting(waiting:)``).
package enum GMSChatConnection: Sendable, Hashable {
    /// No connect has succeeded since the session started, or since it was interrupted or ended: the
    /// callers waiting for one, by request id, each with its timeout.
    case connecting(waiting: [UInt64: Duration])
    /// The latest connect succeeded.
    case connected

    package var isConnected: Bool { self == .connected }

    /// Request `id` waits for a connect, for at most `timeout`; false when the latest succeeded (the
    /// caller hears so at once).
    package mutating func wait(_ id: UInt64, timeout: Duration) -> Bool {
        guard case .connecting(var waiting) = self else { return false }
        waiting[id] = timeout
        self = .connecting(waiting: waiting)
        return true
    }

    /// A connect succeeded: the callers that waited for it, in request order.
    package mutating func connect() -> [UInt64] {
        defer { self = .connected }
        return self.waiting
    }

    /// The connection failed; the client reconnects by itself, and the callers wait on.
    package mutating func interrupt() {
        if self == .connected { self = .connecting(waiting: [:]) }
    }

    /// The session ended: the callers waiting, in request order, who hear that no connect will come.
    package mutating func stop() -> [UInt64] {
        defer { self = .connecting(waiting: [:]) }
        return self.waiting
    }

    /// Request `id`'s time is up: its timeout, if it was waiting.
    package mutating func timeOut(_ id: UInt64) -> Duration? {
        guard case .connecting(var waiting) = self, let timeout = waiting.removeValue(forKey: id) else { return nil }
        self = .connecting(waiting: waiting)
        return timeout
    }

    /// Request `id`'s caller is gone.
    package mutating func forget(_ id: UInt64) {
        _ = self.timeOut(id)
    }

    var waiting: [UInt64] {
        guard case .connecting(let waiting) = self else { return [] }
        return waiting.keys.sorted()
    }
}
