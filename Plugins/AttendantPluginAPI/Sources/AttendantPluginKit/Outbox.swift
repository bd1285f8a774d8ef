public import AttendantPluginAPI
import FoundationEssentials
import Synchronization

/// What a channel must deliver, kept in its ``AttendantPluginAPI/ChannelStore`` outbox until the server
/// has it: across reconnections, restarts and crashes. Entries are `Codable` values (stored as JSON), each
/// known by a key of the channel's choosing (a message id), by which it is taken out when delivered.
public final class Outbox<Entry: Codable & Sendable>: Sendable {
    private let store: any ChannelStore
    private let key: @Sendable (Entry) -> String
    /// The store's ids by entry key.
    private let ids = Mutex<[String: Int64]>([:])

    /// - Parameter key: the entry's key; keys are compared as given (normalise case yourself).
    public init(store: any ChannelStore, key: @escaping @Sendable (Entry) -> String) {
        self.store = store
        self.key = key
    }

    /// What the store holds, oldest first, and the store ids of entries that could not be read (they stay
    /// in the store; ``discard(_:)`` removes them).
    public func load() async throws -> (entries: [Entry], unreadable: [Int64]) {
        var entries: [Entry] = []
        var unreadable: [Int64] = []
        var ids: [String: Int64] = [:]
        let decoder = JSONDecoder()
        for item in try await self.store.pendingOutbox() {
            guard let entry = try? decoder.decode(Entry.self, from: Data(item.payload.utf8)) else {
                unreadable.append(item.id)
                continue
            }
            entries.append(entry)
            ids[self.key(entry)] = item.id
        }
        self.ids.withLock { $0 = ids }
        return (entries, unreadable)
    }

    /// Keeps `entry` until ``remove(_:)``.
    public func add(_ entry: Entry) async throws {
        let payload = String(decoding: try JSONEncoder().encode(entry), as: UTF8.self)
        let item = try await self.store.enqueue(payload)
        self.ids.withLock { $0[self.key(entry)] = item.id }
    }

    /// Takes out the entry with `key` (delivered); false when there is none.
    @discardableResult
    public func remove(_ key: String) async throws -> Bool {
        guard let id = self.ids.withLock({ $0.removeValue(forKey: key) }) else { return false }
        try await self.store.markDelivered(id)
        return true
    }

    /// Removes entries by store id (ones ``load()`` could not read).
    public func discard(_ ids: [Int64]) async throws {
        for id in ids { try await self.store.markDelivered(id) }
    }

    /// The keys of the entries kept.
    public var keys: Set<String> { Set(self.ids.withLock { $0.keys }) }
}
