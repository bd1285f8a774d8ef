import Foundation
import GRDB
import Glibc
import Testing

/// `SIGKILL` in the middle of a stream of writes: the database is consistent on restart and every
/// contact the daemon reported as recorded (after its commit) is there.
@Suite(.serialized) struct CrashConsistencyTests {
    @Test func killedDuringWritesRestartsWithNothingCommittedLost() async throws {
        let scratch = try Scratch()
        let config = try scratch.write(
            "attendant.toml",
            """
            [[channel]]
            name = "busy"
            plugin = "loopback"
            [channel.loopback]
            contact-interval = "2ms"
            ring-timeout = "1ms"

            [[channel]]
            name = "busy-too"
            plugin = "loopback"
            [channel.loopback]
            contact-interval = "3ms"
            ring-timeout = "2ms"
            """
        )
        let daemon = try DaemonProcess(["--config", config], scratch: scratch)
        #expect(await daemon.waitForLog("ready:"))
        // Let it write a few hundred rows, then kill it without warning mid-stream. The wait counts as the
        // assertion below does: counting the pieces between ": recorded" stopped at 299 lines, and on a busy
        // machine the kill could come before the 300th.
        while Self.recordedContacts(daemon.stderr).count < 300 {
            try await Task.sleep(for: .milliseconds(10))
        }
        daemon.signal(SIGKILL)
        #expect(await daemon.waitForExit() == SIGKILL)

        let recorded = Self.recordedContacts(daemon.stderr)
        #expect(recorded.count >= 300)
        let database = scratch.path + "/state/attendant/state.sqlite"
        let queue = try DatabaseQueue(path: database)
        let (integrity, stored) = try await queue.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA integrity_check"),
                Set(try Row.fetchAll(db, sql: "SELECT channel, id FROM contact").map { "\($0["channel"] as String)/\($0["id"] as String)" })
            )
        }
        #expect(integrity == "ok")
        let lost = recorded.subtracting(stored)
        #expect(lost.isEmpty, "recorded but missing after SIGKILL: \(lost.sorted().prefix(5))")
        try queue.close()

        // The daemon starts again on the same database and carries on numbering.
        let again = try DaemonProcess(["--config", config], scratch: scratch)
        #expect(await again.waitForLog("ready: 2 channels listening"))
        again.signal(SIGTERM)
        await again.expectCleanExit()
    }

    /// `channel/contact` for every "incoming … recorded" line (`[busy] … recorded contact=loopback-7`).
    static func recordedContacts(_ log: String) -> Set<String> {
        var result = Set<String>()
        for line in log.split(separator: "\n") where line.contains(": recorded") {
            guard let open = line.firstIndex(of: "["), let close = line.firstIndex(of: "]"),
                let contact = line.range(of: "contact=")
            else { continue }
            let channel = line[line.index(after: open)..<close]
            let id = line[contact.upperBound...].prefix { !$0.isWhitespace }
            result.insert("\(channel)/\(id)")
        }
        return result
    }
}
