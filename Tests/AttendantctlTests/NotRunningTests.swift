import Foundation
import TestSupport
import Testing

/// `attendantctl` when there is nothing to talk to: the message says so and how to start the daemon.
@Suite(.timeLimit(.minutes(2))) struct NotRunningTests {
    static let message =
        "attendantctl: attendantd is not running on this session bus (org.attendant.Attendant1 has no owner). Start it with: systemctl --user start attendantd\n"

    @Test func healthIsUnknownOnABusWithoutTheDaemon() async throws {
        let bus = try await PrivateBus()
        let result = try await attendantctl(["health"], bus: bus.address)
        #expect(result.status == 3, "\(result)")
        #expect(
            result.stdout
                == "ATTENDANT UNKNOWN - attendantd is not running on this session bus (org.attendant.Attendant1 has no owner). Start it with: systemctl --user start attendantd\n"
        )
        let json = try await attendantctl(["health", "--json"], bus: bus.address)
        #expect(json.status == 3)
        #expect(json.stdout.hasPrefix(#"{"status":"UNKNOWN","exitCode":3,"summary":"attendantd is not running"#))
    }

    @Test(arguments: [
        ["status"], ["channels"], ["contacts"], ["accept", "c1"], ["decline", "c1"], ["token", "renew", "desk"], ["reload"], ["dnd"], ["dnd", "on"],
        ["monitor"],
    ])
    func everyCommandSaysTheDaemonIsNotRunning(_ arguments: [String]) async throws {
        let bus = try await PrivateBus()
        let result = try await attendantctl(arguments, bus: bus.address)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr == Self.message)
        #expect(result.stdout.isEmpty)
        let json = try await attendantctl(arguments + ["--json"], bus: bus.address)
        #expect(json.status == 3)
        #expect(json.stdout.hasPrefix(#"{"error":{"code":"notRunning","name":null,"message":"attendantd is not running"#), "\(json)")
    }

    @Test func withoutASessionBus() async throws {
        let health = try await attendantctl(["health"], bus: nil)
        #expect(health.status == 3, "\(health)")
        #expect(health.stdout.hasPrefix("ATTENDANT UNKNOWN - cannot reach attendantd: there is no session bus to connect to ("))
        #expect(health.stdout.hasSuffix("start it with: systemctl --user start attendantd\n"))
        let status = try await attendantctl(["status"], bus: nil)
        #expect(status.status == 3)
        #expect(status.stderr.hasPrefix("attendantctl: cannot reach attendantd: there is no session bus"))
    }

    @Test func usageErrorsOfHealthAreUnknownAndOfOthersSixtyFour() async throws {
        let health = try await attendantctl(["health", "--token-warning", "soon"], bus: nil)
        #expect(health.status == 3)
        #expect(health.stdout.hasPrefix("ATTENDANT UNKNOWN - "))
        let contacts = try await attendantctl(["contacts", "--limit", "0"], bus: nil)
        #expect(contacts.status == 64)
        #expect(contacts.stderr.contains("--limit must be 1 or more"))
        let help = try await attendantctl(["health", "--help"], bus: nil)
        #expect(help.status == 0 && help.stdout.contains("3 (UNKNOWN) when attendantd is not running"))
    }
}
