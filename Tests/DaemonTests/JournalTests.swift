import DaemonTestSupport
import Foundation
import TestSupport
import Testing

/// The daemon's log, as a real `systemd-journald` stores it when stderr is the journal stream.
@Suite(.serialized) struct JournalTests {
    /// One journal entry from `journalctl -o json` (every field a string here: no binary fields).
    typealias Entry = [String: String]

    static func entries(_ json: String) -> [Entry] {
        json.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return object.compactMapValues { $0 as? String }
        }
    }

    /// Runs a daemon with a Loopback channel (`desk`, a call from Grace Hopper every 200 ms) and one whose
    /// plugin does not exist (`ghost`) under `journal-sandbox` until the call is in the journal; the
    /// sandbox's output: the journal as JSON lines, or with `collect`, the collector's entries matching it.
    static func runDaemon(collect match: String? = nil) async throws -> String {
        let scratch = try Scratch()
        let config = try scratch.write(
            "attendant.toml",
            """
            [[channel]]
            name = "desk"
            plugin = "loopback"
            [channel.loopback]
            contact-interval = "200ms"
            caller = "Grace Hopper"

            [[channel]]
            name = "ghost"
            plugin = "nonexistent"
            """
        )
        let sandbox = BuildProducts.packageRoot + "/Tests/Fixtures/journal-sandbox"
        let environment = ProcessInfo.processInfo.environment.merging([
            "XDG_RUNTIME_DIR": scratch.path + "/run",
            "XDG_STATE_HOME": scratch.path + "/state",
            "XDG_CONFIG_HOME": scratch.path + "/config",
            "JOURNAL_SANDBOX_COLLECT": match ?? "",
        ]) { $1 }
        let (status, output) = try await run(
            sandbox,
            ["incoming call from Grace Hopper", "--", BuildProducts.attendantd, "--config", config],
            environment: environment
        )
        try #require(status == 0, "journal-sandbox failed:\n\(output)")
        return output
    }

    @Test func structuredEntriesReachTheJournal() async throws {
        let output = try await Self.runDaemon()
        let entries = Self.entries(output)
        let daemon = entries.filter { $0["SYSLOG_IDENTIFIER"] == "attendantd" }

        // Native journal entries, not lines on the stream: the handler chose sd_journal_sendv.
        try #require(!daemon.isEmpty, "no attendantd entries in the journal:\n\(output)")
        #expect(daemon.allSatisfy { $0["_TRANSPORT"] == "journal" })
        #expect(
            entries.filter { $0["SYSLOG_IDENTIFIER"] == "journal-sandbox-stream" }.isEmpty,
            "plain lines went to the stream: \(entries.filter { $0["SYSLOG_IDENTIFIER"] == "journal-sandbox-stream" }.map { $0["MESSAGE"] ?? "" })"
        )

        // An incoming contact: notice priority, the channel and contact as fields, the code location.
        let incoming = try #require(daemon.first { $0["MESSAGE"] == "incoming call from Grace Hopper <loopback:caller>: recorded" })
        #expect(incoming["PRIORITY"] == "5")
        #expect(incoming["CHANNEL"] == "desk")
        #expect(incoming["CONTACT"]?.isEmpty == false)
        #expect(incoming["CODE_FILE"]?.hasSuffix("EventRouter.swift") == true)
        #expect(Int(incoming["CODE_LINE"] ?? "") != nil)
        #expect(incoming["CODE_FUNC"]?.isEmpty == false)
        #expect(incoming["LOGGER"]?.isEmpty == false)

        // A channel that cannot start: error priority and its channel field.
        let failed = try #require(daemon.first { $0["CHANNEL"] == "ghost" && $0["PRIORITY"] == "3" }, "no error entry for ghost")
        #expect(failed["MESSAGE"]?.hasPrefix(#"cannot start: plugin "nonexistent" not found"#) == true)

        // Readiness and the graceful stop are in the journal too.
        #expect(daemon.contains { $0["MESSAGE"]?.hasPrefix("ready: ") == true && $0["PRIORITY"] == "5" })
        #expect(daemon.contains { $0["MESSAGE"] == "stopped" && $0["CHANNEL"] == "desk" })
    }

    /// Issue 31, logs for fleets: the journal shipped as a workstation ships it (systemd-journal-upload to
    /// a systemd-journal-remote collector), where a query on the `CHANNEL=` field finds that channel's
    /// entries and no other's: the example in docs/operations.md's "Logs for fleets".
    @Test func aCollectorFiltersTheShippedJournalByChannel() async throws {
        let output = try await Self.runDaemon(collect: "CHANNEL=desk")
        let collected = Self.entries(output)
        try #require(!collected.isEmpty, "the collector has no CHANNEL=desk entries:\n\(output)")
        #expect(collected.allSatisfy { $0["CHANNEL"] == "desk" && $0["SYSLOG_IDENTIFIER"] == "attendantd" })
        #expect(
            collected.contains { $0["MESSAGE"] == "incoming call from Grace Hopper <loopback:caller>: recorded" && $0["CONTACT"]?.isEmpty == false }
        )
        // The other channel's entries reached the collector too, and the match left them out.
        #expect(!collected.contains { $0["MESSAGE"]?.contains("nonexistent") == true })
        let held = output.split(separator: "\n").first { $0.hasPrefix("journal-sandbox: the collector holds ") }
        let total = held.flatMap { Int($0.split(separator: " ")[4]) } ?? 0
        #expect(total > collected.count, "\(held ?? "no count"): the collector should hold the ghost channel's entries too")
    }
}
