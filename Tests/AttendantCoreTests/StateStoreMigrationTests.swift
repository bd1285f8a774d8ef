import AttendantCore
import AttendantPluginAPI
import Foundation
import TestSupport
import Testing

/// The state database's migrations: a database written by an older daemon opens, keeps its rows, and
/// takes what the new schema records.
@Suite struct StateStoreMigrationTests {
    /// The v1 schema as GRDB's migrator left it (`sqlite3 .schema` of a database from before issue 30), with
    /// one contact.
    static let version1 = """
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        INSERT INTO grdb_migrations VALUES ('v1: channel values, outbox, contacts');
        CREATE TABLE "channel_value" ("channel" TEXT NOT NULL, "key" TEXT NOT NULL, "value" TEXT NOT NULL, "updated_at" DOUBLE NOT NULL, PRIMARY KEY ("channel", "key"));
        CREATE TABLE "outbox" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "channel" TEXT NOT NULL, "payload" TEXT NOT NULL, "enqueued_at" DOUBLE NOT NULL);
        CREATE INDEX "outbox_on_channel" ON "outbox"("channel");
        CREATE TABLE "contact" ("channel" TEXT NOT NULL, "id" TEXT NOT NULL, "kind" TEXT NOT NULL, "from_name" TEXT NOT NULL, "from_address" TEXT NOT NULL, "summary" TEXT NOT NULL, "received_at" DOUBLE NOT NULL, "ended_at" DOUBLE, "outcome" TEXT, PRIMARY KEY ("channel", "id"));
        CREATE INDEX "contact_on_received_at" ON "contact"("received_at");
        INSERT INTO contact VALUES ('phone', 'old-call', 'call', 'Ada Lovelace', 'sip:ada@example.org', 'Call to sip:alice@example.org', 1800000000, 1800000030, 'missed');
        """

    @Test func aVersion1DatabaseOpensKeepsItsContactsAndRecordsWhoIsCalling() async throws {
        let folder = try makeTemporaryFolder("attendant-store")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (status, output) = try await run("/usr/bin/sqlite3", [folder + "/state.sqlite", Self.version1])
        try #require(status == 0, "sqlite3: \(output)")

        let store = try StateStore(directory: folder)
        #expect(try store.integrityCheck() == "ok")
        let old = try await store.recentContacts()
        #expect(old.count == 1)
        #expect(old.first?.contact.from == Party(displayName: "Ada Lovelace", address: "sip:ada@example.org"))
        #expect(old.first?.outcome == .missed)
        #expect(old.first?.contact.fromAsserted == false && old.first?.contact.diversion == nil)

        var call = Contact(
            id: "new-call",
            kind: .call,
            from: Party(displayName: "Grace Hopper", address: "tel:+15551230002"),
            summary: "Call to sip:alice@example.org",
            receivedAt: UnixTime(secondsSince1970: 1_800_000_100)
        )
        call.fromAsserted = true
        call.diversion = Contact.Diversion(from: Party(displayName: "Sales", address: "sip:sales@example.org"), reason: "no-answer")
        try await store.recordIncoming(call, channel: "phone")
        try await store.recordOutcome(.answeredElsewhere, contactID: "new-call", channel: "phone", at: UnixTime(secondsSince1970: 1_800_000_110))
        let now = try await store.recentContacts()
        #expect(now.map(\.contact.id) == ["new-call", "old-call"])
        #expect(now.first?.contact == call)
        #expect(now.first?.outcome == .answeredElsewhere)

        // Opening it again migrates nothing twice.
        _ = try StateStore(directory: folder)
    }
}
