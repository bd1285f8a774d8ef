package import AttendantPluginAPI
import GRDB
import Glibc

/// The daemon's persistent state: an SQLite database (WAL) at `<state directory>/state.sqlite`.
///
/// The directory is 0700 and the database 0600. Every write is one transaction, committed before the
/// call returns; with WAL and `synchronous=NORMAL` a commit survives the process being killed at any
/// point (only a power failure can take the last commits back).
///
/// Plugins see it only through ``channelStore(for:)``: their own key-value entries and outbox.
package final class StateStore: Sendable {
    /// The database file.
    package let path: String
    /// The channels' secrets, in a file of their own beside the database.
    package let secrets: SecretsFile
    private let pool: DatabasePool

    /// Opens (creating if needed) the database in `directory`, and migrates it to the current schema.
    package init(directory: String) throws {
        try Paths.makeDirectory(directory, mode: 0o700)
        let path = directory + "/state.sqlite"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError("cannot create the state database", path) }
        close(fd)
        guard chmod(path, 0o600) == 0 else { throw SystemError("cannot restrict permissions of", path) }

        var configuration = Configuration()
        configuration.label = "attendant.state"
        configuration.busyMode = .timeout(5)
        // One reader: reads are short and few (a channel's start, attendantctl); each connection costs about
        // 50 KiB of private memory (issue 11: 4.80 → 4.70 MiB dirty with four channels, three runs each).
        configuration.maximumReaderCount = 1
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        self.path = path
        self.secrets = SecretsFile(directory: directory)
        self.pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(self.pool)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: channel values, outbox, contacts") { db in
            try db.create(table: "channel_value") { t in
                t.column("channel", .text).notNull()
                t.column("key", .text).notNull()
                t.column("value", .text).notNull()
                t.column("updated_at", .double).notNull()
                t.primaryKey(["channel", "key"])
            }
            try db.create(table: "outbox") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("channel", .text).notNull().indexed()
                t.column("payload", .text).notNull()
                t.column("enqueued_at", .double).notNull()
            }
            try db.create(table: "contact") { t in
                t.column("channel", .text).notNull()
                t.column("id", .text).notNull()
                t.column("kind", .text).notNull()
                t.column("from_name", .text).notNull()
                t.column("from_address", .text).notNull()
                t.column("summary", .text).notNull()
                t.column("received_at", .double).notNull().indexed()
                t.column("ended_at", .double)
                t.column("outcome", .text)
                t.primaryKey(["channel", "id"])
            }
        }
        // Issue 30: who is calling. Added columns only, so a v1 database opens and keeps its rows.
        migrator.registerMigration("v2: asserted caller, diversion") { db in
            try db.alter(table: "contact") { t in
                t.add(column: "from_asserted", .boolean).notNull().defaults(to: false)
                t.add(column: "diverted_from_name", .text)
                t.add(column: "diverted_from_address", .text)
                t.add(column: "diversion_reason", .text)
            }
        }
        return migrator
    }

    /// `PRAGMA integrity_check`: "ok" when the database is sound.
    package func integrityCheck() throws -> String {
        try self.pool.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "no answer" }
    }

    // MARK: Channel values

    func value(channel: String, key: String) async throws -> String? {
        try await self.pool.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM channel_value WHERE channel = ? AND key = ?", arguments: [channel, key])
        }
    }

    func setValue(_ value: String?, channel: String, key: String, now: UnixTime) async throws {
        try await self.pool.write { db in
            if let value {
                try db.execute(
                    sql: """
                        INSERT INTO channel_value (channel, key, value, updated_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT (channel, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                        """,
                    arguments: [channel, key, value, now.secondsSince1970]
                )
            } else {
                try db.execute(sql: "DELETE FROM channel_value WHERE channel = ? AND key = ?", arguments: [channel, key])
            }
        }
    }

    func allValues(channel: String) async throws -> [String: String] {
        try await self.pool.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT key, value FROM channel_value WHERE channel = ?", arguments: [channel])
            return Dictionary(rows.map { ($0["key"], $0["value"]) }, uniquingKeysWith: { $1 })
        }
    }

    // MARK: Outbox

    func enqueue(_ payload: String, channel: String, now: UnixTime) async throws -> OutboxItem {
        try await self.pool.write { db in
            try db.execute(
                sql: "INSERT INTO outbox (channel, payload, enqueued_at) VALUES (?, ?, ?)",
                arguments: [channel, payload, now.secondsSince1970]
            )
            return OutboxItem(id: db.lastInsertedRowID, payload: payload, enqueuedAt: now)
        }
    }

    func pendingOutbox(channel: String) async throws -> [OutboxItem] {
        try await self.pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT id, payload, enqueued_at FROM outbox WHERE channel = ? ORDER BY id",
                arguments: [channel]
            ).map { OutboxItem(id: $0["id"], payload: $0["payload"], enqueuedAt: UnixTime(secondsSince1970: $0["enqueued_at"])) }
        }
    }

    func markDelivered(_ id: Int64, channel: String) async throws {
        try await self.pool.write { db in
            try db.execute(sql: "DELETE FROM outbox WHERE id = ? AND channel = ?", arguments: [id, channel])
        }
    }

    // MARK: Contact history

    /// Records an incoming contact (a repeated id updates the summary, not the arrival time).
    package func recordIncoming(_ contact: Contact, channel: String) async throws {
        // One statement is atomic on its own; prepared once per connection (a call records two).
        try await self.pool.writeWithoutTransaction { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO contact (channel, id, kind, from_name, from_address, summary, received_at,
                        from_asserted, diverted_from_name, diverted_from_address, diversion_reason)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (channel, id) DO UPDATE SET summary = excluded.summary
                    """
            ).execute(arguments: [
                channel, contact.id, contact.kind.rawValue, contact.from.displayName, contact.from.address,
                contact.summary, contact.receivedAt.secondsSince1970,
                contact.fromAsserted, contact.diversion?.from.displayName, contact.diversion?.from.address, contact.diversion?.reason,
            ])
        }
    }

    /// Records how a contact ended; returns its kind, or nil when no such contact was recorded.
    @discardableResult
    package func recordOutcome(_ outcome: ContactOutcome, contactID: String, channel: String, at time: UnixTime) async throws -> ContactKind? {
        // RETURNING (SQLite 3.35; Debian 12 has 3.40): the kind comes with the update, in the same statement.
        try await self.pool.writeWithoutTransaction { db in
            try String.fetchOne(
                db.cachedStatement(sql: "UPDATE contact SET outcome = ?, ended_at = ? WHERE channel = ? AND id = ? RETURNING kind"),
                arguments: [outcome.rawValue, time.secondsSince1970, channel, contactID]
            ).map(ContactKind.init)
        }
    }

    /// The most recent contacts, newest first.
    package func recentContacts(limit: Int = 50) async throws -> [ContactRecord] {
        try await self.pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM contact ORDER BY received_at DESC, rowid DESC LIMIT ?",
                arguments: [limit]
            ).map(ContactRecord.init(row:))
        }
    }

    /// The key-value store and outbox of one channel, for its plugin.
    package func channelStore(for channel: String, now: @escaping @Sendable () -> UnixTime) -> any ChannelStore {
        SQLiteChannelStore(store: self, channel: channel, now: now)
    }
}

/// One row of the contact history.
package struct ContactRecord: Sendable, Equatable {
    package var channel: String
    package var contact: Contact
    package var endedAt: UnixTime?
    package var outcome: ContactOutcome?

    init(row: Row) {
        self.channel = row["channel"]
        self.contact = Contact(
            id: row["id"],
            kind: ContactKind(row["kind"]),
            from: Party(displayName: row["from_name"], address: row["from_address"]),
            summary: row["summary"],
            receivedAt: UnixTime(secondsSince1970: row["received_at"])
        )
        self.contact.fromAsserted = row["from_asserted"]
        if let address = row["diverted_from_address"] as String? {
            self.contact.diversion = Contact.Diversion(
                from: Party(displayName: row["diverted_from_name"] ?? "", address: address),
                reason: row["diversion_reason"] ?? ""
            )
        }
        self.endedAt = (row["ended_at"] as Double?).map(UnixTime.init(secondsSince1970:))
        self.outcome = (row["outcome"] as String?).map(ContactOutcome.init)
    }
}

/// A channel's view of the state store.
struct SQLiteChannelStore: ChannelStore {
    let store: StateStore
    let channel: String
    let now: @Sendable () -> UnixTime

    func value(forKey key: String) async throws -> String? {
        try await self.store.value(channel: self.channel, key: key)
    }

    func setValue(_ value: String?, forKey key: String) async throws {
        try await self.store.setValue(value, channel: self.channel, key: key, now: self.now())
    }

    func allValues() async throws -> [String: String] {
        try await self.store.allValues(channel: self.channel)
    }

    func enqueue(_ payload: String) async throws -> OutboxItem {
        try await self.store.enqueue(payload, channel: self.channel, now: self.now())
    }

    func pendingOutbox() async throws -> [OutboxItem] {
        try await self.store.pendingOutbox(channel: self.channel)
    }

    func markDelivered(_ id: Int64) async throws {
        try await self.store.markDelivered(id, channel: self.channel)
    }
}
