public import AttendantPluginAPI

/// A ``ChannelStore`` in memory, for plugin tests.
public actor InMemoryChannelStore: ChannelStore {
    private var values: [String: String] = [:]
    private var outbox: [OutboxItem] = []
    private var nextID: Int64 = 1
    private let now: @Sendable () -> UnixTime

    public init(now: @escaping @Sendable () -> UnixTime = { UnixTime(secondsSince1970: 1_800_000_000) }) {
        self.now = now
    }

    public func value(forKey key: String) -> String? { self.values[key] }

    public func setValue(_ value: String?, forKey key: String) { self.values[key] = value }

    public func allValues() -> [String: String] { self.values }

    public func enqueue(_ payload: String) -> OutboxItem {
        let item = OutboxItem(id: self.nextID, payload: payload, enqueuedAt: self.now())
        self.nextID += 1
        self.outbox.append(item)
        return item
    }

    public func pendingOutbox() -> [OutboxItem] { self.outbox }

    public func markDelivered(_ id: Int64) { self.outbox.removeAll { $0.id == id } }
}
