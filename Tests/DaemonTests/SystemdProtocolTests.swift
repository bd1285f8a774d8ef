import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// The daemon under a stand-in for systemd: `NOTIFY_SOCKET` and `WATCHDOG_USEC` point at the test.
@Suite(.serialized) struct SystemdProtocolTests {
    static func configuration(secondInterval: String) -> String {
        """
        [[channel]]
        name = "first"
        plugin = "loopback"

        [[channel]]
        name = "second"
        plugin = "loopback"
        [channel.loopback]
        contact-interval = "\(secondInterval)"
        """
    }

    @Test func readyStatusWatchdogReloadAndStop() async throws {
        let scratch = try Scratch()
        let config = try scratch.write("attendant.toml", Self.configuration(secondInterval: "1h"))
        let notify = try NotifySocket(path: scratch.path + "/notify")
        let daemon = try DaemonProcess(
            ["--config", config],
            scratch: scratch,
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000"]
        )

        let ready = try #require(await notify.waitFor { $0.contains("READY=1") }, "no READY=1; stderr:\n\(daemon.stderr)")
        #expect(NotifySocket.status(ready) == "2 channels listening")

        // The watchdog (1 s) is pinged every half interval, after every supervisor's loop answered.
        let pings = Mutex(0)
        _ = await notify.waitFor(within: 60) { message in
            pings.withLock { count in
                if message.contains("WATCHDOG=1") { count += 1 }
                return count == 3
            }
        }
        #expect(pings.withLock { $0 } == 3)

        // SIGHUP with one channel changed: RELOADING=1, then READY=1; only that channel restarts.
        _ = try scratch.write("attendant.toml", Self.configuration(secondInterval: "2h"))
        daemon.signal(SIGHUP)
        let reloading = await notify.waitFor { $0.contains("RELOADING=1") }
        #expect(reloading?.contains("MONOTONIC_USEC=") == true)
        let readyAgain = await notify.waitFor { $0.contains("READY=1") }
        #expect(readyAgain.flatMap(NotifySocket.status) == "2 channels listening")
        #expect(daemon.stderr.contains("restarting channel second: its settings changed"))
        #expect(!daemon.stderr.contains("restarting channel first"))
        #expect(daemon.stderr.components(separatedBy: "[first] listening").count == 2, "first listened once only")

        // A broken file on reload keeps the running configuration.
        _ = try scratch.write("attendant.toml", "[[channel]]\nname = \"x\"\n")
        daemon.signal(SIGHUP)
        let refused = await notify.waitFor { $0.contains("READY=1") }
        #expect(refused.flatMap(NotifySocket.status)?.hasPrefix("reload failed, still running the previous configuration") == true)

        // SIGTERM: STOPPING=1, channels stop, exit status 0.
        daemon.signal(SIGTERM)
        #expect(await notify.waitFor { $0.contains("STOPPING=1") } != nil)
        await daemon.expectCleanExit()
        #expect(daemon.stderr.contains("[first] stopped"))
        #expect(daemon.stderr.contains("[second] stopped"))
    }

    /// A channel that takes longer to stop than `shutdown-timeout` is dropped with a warning; the other
    /// channel stops normally and the daemon still exits 0, before systemd's TimeoutStopSec would kill it.
    @Test func aChannelSlowerThanTheShutdownTimeoutIsDroppedAndTheDaemonExitsZero() async throws {
        let scratch = try Scratch()
        let config = try scratch.write(
            "attendant.toml",
            """
            [daemon]
            shutdown-timeout = "1s"

            [[channel]]
            name = "quick"
            plugin = "loopback"

            [[channel]]
            name = "slow"
            plugin = "loopback"
            [channel.loopback]
            stop-delay = "1h"
            """
        )
        let notify = try NotifySocket(path: scratch.path + "/notify")
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: ["NOTIFY_SOCKET": notify.path])
        #expect(await notify.waitFor { $0.contains("READY=1") } != nil, "no READY=1; stderr:\n\(daemon.stderr)")

        daemon.signal(SIGTERM)
        let status = await daemon.waitForExit(within: 10)
        #expect(status == 0, "exit status \(status.map(String.init) ?? "none within 10 s"); stderr:\n\(daemon.stderr.suffix(3000))")
        #expect(daemon.stderr.contains("[slow] did not stop within 1 s; dropping it anyway"))
        #expect(daemon.stderr.contains("[quick] stopped"))
    }

    @Test func secondInstanceForTheSameUserIsRefused() async throws {
        let scratch = try Scratch()
        let config = try scratch.write("attendant.toml", Self.configuration(secondInterval: "1h"))
        let first = try DaemonProcess(["--config", config], scratch: scratch)
        #expect(await first.waitForLog("ready:"))
        let second = try DaemonProcess(["--config", config], scratch: scratch)
        #expect(await second.waitForExit() == 1)
        #expect(second.stderr.contains("attendantd is already running for this user (pid \(first.process.processIdentifier))"))
        #expect(second.stderr.contains("systemctl --user stop attendantd"))
        first.signal(SIGTERM)
        await first.expectCleanExit()
    }
}
