package import AttendantPluginAPI

/// A channel's store whose writes wait until the host has recorded every event the channel reported
/// before them (``EventRouter/recorded(channel:)``).
///
/// A channel keeps in its store what it has reported (CXone's shown messages and started contacts,
/// KARTE's events still waiting for an answer). If such a write reached the database before the contact
/// it follows, a daemon killed in between would come back believing it had reported a contact that the
/// history never got, and never report it again. With this order, what the store says was reported is
/// always in the history. Reads do not wait.
package struct HistoryFirstStore: ChannelStore {
    let base: any ChannelStore
    let router: EventRouter
    let channel: String

    package init(_ base: any ChannelStore, router: EventRouter, channel: String) {
        self.base = base
        self.router = router
        self.channel = channel
    }

    package func value(forKey key: String) async throws -> String? {
        try await self.base.value(forKey: key)
    }

    package func setValue(_ value: String?, forKey key: String) async throws {
        await self.router.recorded(channel: self.channel)
        try await self.base.setValue(value, forKey: key)
    }

    package func allValues() async throws -> [String: String] {
        try await self.base.allValues()
    }

    package func enqueue(_ payload: String) async throws -> OutboxItem {
        await self.router.recorded(channel: self.channel)
        return try await self.base.enqueue(payload)
    }

    package func pendingOutbox() async throws -> [OutboxItem] {
        try await self.base.pendingOutbox()
    }

    package func markDelivered(_ id: Int64) async throws {
        await self.router.recorded(channel: self.channel)
        try await self.base.markDelivered(id)
    }
}
