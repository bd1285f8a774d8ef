// MARK: - Host API: persistence

/// A channel's own persistent storage: a key-value map and an outbox, kept in the daemon's state
/// database across restarts and crashes. Each channel sees only its own entries.
///
/// Every write is committed when the call returns: after a crash or `SIGKILL` it is there.
/// Do not store secrets here; the host keeps tokens itself.
public protocol ChannelStore: Sendable {
    /// The value stored under `key`, or `nil`.
    func value(forKey key: String) async throws -> String?

    /// Stores `value` under `key`; `nil` removes the key.
    func setValue(_ value: String?, forKey key: String) async throws

    /// Every key and value of the channel.
    func allValues() async throws -> [String: String]

    /// Keeps a message that must reach the server: it stays in the outbox, also across restarts, until
    /// ``markDelivered(_:)``. Returns its id.
    func enqueue(_ payload: String) async throws -> OutboxItem

    /// Messages not yet delivered, oldest first.
    func pendingOutbox() async throws -> [OutboxItem]

    /// Removes a delivered message from the outbox. Removing an id twice is not an error.
    func markDelivered(_ id: Int64) async throws
}

/// A message waiting in a channel's outbox.
public struct OutboxItem: Sendable, Hashable {
    /// Increasing in the order the messages were enqueued.
    public var id: Int64
    public var payload: String
    public var enqueuedAt: UnixTime

    public init(id: Int64, payload: String, enqueuedAt: UnixTime) {
        self.id = id
        self.payload = payload
        self.enqueuedAt = enqueuedAt
    }
}

// MARK: - Host API: secrets

/// Secrets a channel must keep across restarts, such as a CXone customer access token: kept apart from
/// the state database, in a file only the user can read (mode 0600). Each channel sees only its own.
/// Since API 1.2; ``ChannelHost/secrets`` of an older host keeps nothing, so a channel must cope with a
/// secret that is gone (for example by authorizing again).
public protocol ChannelSecrets: Sendable {
    /// The secret stored under `key`, or `nil`.
    func secret(forKey key: String) async throws -> String?

    /// Stores `value` under `key`; `nil` removes it. Committed when the call returns.
    func setSecret(_ value: String?, forKey key: String) async throws
}

/// Secrets kept nowhere: what a host without a secrets file gives.
public struct NoChannelSecrets: ChannelSecrets {
    public init() {}
    public func secret(forKey key: String) async throws -> String? { nil }
    public func setSecret(_ value: String?, forKey key: String) async throws {}
}
