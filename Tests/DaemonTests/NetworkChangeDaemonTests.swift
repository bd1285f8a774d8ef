import Foundation
import Glibc
import TestSupport
import Testing

/// attendantd follows the kernel's network changes (rtnetlink): when a link comes up, or an address or a
/// default route appears, a channel waiting out a retry delay retries at once and a listening one checks
/// its connection at once. The daemon runs in a network namespace of its own (`unshare --net`, which
/// needs root), where the test adds a link with `ip`, as a cable plugged in or a Wi-Fi joined would.
@Suite struct NetworkChangeDaemonTests {
    static let configuration = """
        [[channel]]
        name = "steady"
        plugin = "loopback"
        [channel.loopback]
        contact-interval = "1h"

        [[channel]]
        name = "waiting"
        plugin = "loopback"
        [channel.loopback]
        contact-interval = "1h"
        listen-failures = 1
        listen-retry-after = "1h"
        """

    /// Runs `script` with sh in the daemon's network namespace.
    static func inNamespace(of daemon: DaemonProcess, _ script: String) async throws -> (status: Int32, output: String) {
        let (status, output) = try await run(
            "/usr/bin/nsenter",
            ["--net=/proc/\(daemon.process.processIdentifier)/ns/net", "sh", "-c", script]
        )
        return (status, output)
    }

    static func changes(_ daemon: DaemonProcess) -> [Substring] {
        daemon.stderr.split(separator: "\n").filter { $0.contains("the network changed (") }
    }

    @Test func aLinkComingUpRetriesAWaitingChannelAndChecksAListeningOne() async throws {
        try #require(geteuid() == 0, "a network namespace of its own needs root (unshare --net)")
        let scratch = try Scratch()
        let config = try scratch.write("attendant.toml", Self.configuration)
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, launcher: ["/usr/bin/unshare", "--net"])

        #expect(await daemon.waitForLog("[steady] listening"), "\(daemon.stderr)")
        // The waiting channel's one failure asks for an hour's delay: only a network change ends it sooner.
        #expect(await daemon.waitForLog("[waiting] could not listen"), "\(daemon.stderr)")
        // The loopback link is no network: bringing it up changes nothing.
        let loopback = try await Self.inNamespace(of: daemon, "ip link set lo up")
        #expect(loopback.status == 0, "\(loopback.output)")

        // A cable plugged in: a veth pair (this kernel may lack the dummy driver) with an address and a
        // default route.
        let plugged = try await Self.inNamespace(
            of: daemon,
            "ip link add attendant0 type veth peer name attendant1 && ip link set attendant1 up && ip addr add 10.77.0.2/24 dev attendant0 && ip link set attendant0 up && ip route add default via 10.77.0.1 dev attendant0"
        )
        #expect(plugged.status == 0, "\(plugged.output)")
        #expect(await daemon.waitForLog("[waiting] the network changed: retrying now"), "\(daemon.stderr)")
        #expect(await daemon.waitForLog("[waiting] listening"), "\(daemon.stderr)")
        #expect(await daemon.waitForLog("[steady] the network changed: checking the connection now"), "\(daemon.stderr)")
        // What changed is logged (in one line per burst of the kernel's messages).
        #expect(await daemon.waitForLog("default route via 10.77.0.1 on link"), "\(daemon.stderr)")
        let changes = Self.changes(daemon).joined(separator: "\n")
        #expect(changes.contains("address 10.77.0.2 on link"), "\(changes)")
        #expect(changes.range(of: #"link \d+ up"#, options: .regularExpression) != nil, "\(changes)")
        #expect(!changes.contains("127.0.0.1"), "the loopback link is no network: \(changes)")

        // Unplugged and plugged in again: the link's return is a change of its own.
        let before = Self.changes(daemon).count
        let replugged = try await Self.inNamespace(
            of: daemon,
            "ip link set attendant0 down && ip link set attendant0 up && ip route replace default via 10.77.0.1 dev attendant0"
        )
        #expect(replugged.status == 0, "\(replugged.output)")
        func returned() -> Bool {
            Self.changes(daemon).dropFirst(before).contains { $0.range(of: #"link \d+ up"#, options: .regularExpression) != nil }
        }
        let deadline = Date().addingTimeInterval(30)
        while !returned(), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(returned(), "\(Self.changes(daemon).dropFirst(before))")

        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }
}
