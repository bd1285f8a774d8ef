import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// The real daemon without `--config`: it reads the user's file and drop-ins (after /etc/attendant's,
/// which this machine does not have), lists them with `--cat-config`, checks them with `--check-config`,
/// and reads them all again on SIGHUP.
@Suite(.serialized) struct LayeredConfigurationDaemonTests {
    @Test func aDropInIsReadListedCheckedAndReloaded() async throws {
        let scratch = try Scratch()
        let main = try scratch.write("config/attendant/attendant.toml", SystemdProtocolTests.configuration(secondInterval: "1h"))
        let quiet = try scratch.write("config/attendant/attendant.toml.d/10-quiet.toml", "[alerts]\nring = false\n")
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = scratch.path + "/config"

        // --cat-config: the merged values, each with its file and line.
        let (listed, listing) = try await run(BuildProducts.attendantd, ["--cat-config"], environment: environment)
        #expect(listed == 0, "\(listing)")
        #expect(listing.contains("#   \(main)\n#   \(quiet)\n"), "\(listing)")
        #expect(listing.contains("contact-interval = \"1h\"  # \(main):9"), "\(listing)")
        #expect(listing.contains("ring = false  # \(quiet):2"), "\(listing)")

        let notify = try NotifySocket(path: scratch.path + "/notify")
        let daemon = try DaemonProcess([], scratch: scratch, environment: ["NOTIFY_SOCKET": notify.path])
        let ready = try #require(await notify.waitFor { $0.contains("READY=1") }, "no READY=1; stderr:\n\(daemon.stderr)")
        #expect(NotifySocket.status(ready) == "2 channels listening")

        // A new drop-in that changes one channel: SIGHUP restarts that channel only.
        let faster = try scratch.write(
            "config/attendant/attendant.toml.d/20-second.toml",
            "[[channel]]\nname = \"second\"\n[channel.loopback]\ncontact-interval = \"2h\"\n"
        )
        daemon.signal(SIGHUP)
        let readyAgain = await notify.waitFor { $0.contains("READY=1") }
        #expect(readyAgain.flatMap(NotifySocket.status) == "2 channels listening")
        #expect(daemon.stderr.contains("restarting channel second: its settings changed"), "\(daemon.stderr)")
        #expect(!daemon.stderr.contains("restarting channel first"))

        // A drop-in with a mistake: --check-config names it and its line; the running daemon keeps going.
        _ = try scratch.write("config/attendant/attendant.toml.d/20-second.toml", "[[channel]]\nname = \"second\"\nkeepalive-interval = \"soon\"\n")
        let (checked, problems) = try await run(BuildProducts.attendantd, ["--check-config"], environment: environment)
        #expect(checked == 1, "\(problems)")
        #expect(problems.contains("\(faster):3: key \"keepalive-interval\" in [[channel]] number 2: expected a duration"), "\(problems)")
        daemon.signal(SIGHUP)
        let refused = await notify.waitFor { $0.contains("READY=1") }
        #expect(refused.flatMap(NotifySocket.status)?.hasPrefix("reload failed, still running the previous configuration") == true)

        // Only the drop-in removed: the channel is back to the main file's interval.
        unlink(faster)
        let (valid, summary) = try await run(BuildProducts.attendantd, ["--check-config"], environment: environment)
        #expect(valid == 0, "\(summary)")
        #expect(summary.contains("\(main), \(quiet): valid (2 channels: first (loopback), second (loopback))"), "\(summary)")
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }
}
