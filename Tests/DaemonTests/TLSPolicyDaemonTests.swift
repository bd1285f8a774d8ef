import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// `tls-verify = false` is the one way to turn certificate checks off, and it does not pass unseen: the
/// channel that says so is named in a warning when it starts; the others say nothing.
@Suite(.serialized) struct TLSPolicyDaemonTests {
    @Test func aChannelWithoutCertificateChecksIsAWarningAtStart() async throws {
        let scratch = try Scratch()
        let config = try scratch.write(
            "attendant.toml",
            """
            [[channel]]
            name = "checked"
            plugin = "loopback"

            [[channel]]
            name = "trusting"
            plugin = "loopback"
            tls-verify = false
            """
        )
        let daemon = try DaemonProcess(["--config", config], scratch: scratch)
        #expect(await daemon.waitForLog("[trusting] listening"))
        #expect(await daemon.waitForLog("[checked] listening"))
        let warnings = daemon.stderr.split(separator: "\n").filter { $0.contains("tls-verify = false") }
        #expect(warnings.count == 1, "\(daemon.stderr)")
        #expect(warnings.first?.contains("[trusting]") == true)
        #expect(warnings.first?.contains("do not check the server's certificate") == true)
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }

    /// The CA file is read when the channel starts; a reload after it was edited in place (the same
    /// configuration text) restarts the channel that names it, and only that one.
    @Test func aReloadAfterTheCAFileChangedInPlaceRestartsTheChannelThatNamesIt() async throws {
        let scratch = try Scratch()
        let first = try await TestCertificateAuthority("Attendant Test CA one")
        let second = try await TestCertificateAuthority("Attendant Test CA two")
        let caFile = scratch.path + "/pbx-ca.pem"
        try FileManager.default.copyItem(atPath: first.certificateFile, toPath: caFile)
        let config = try scratch.write(
            "attendant.toml",
            """
            [[channel]]
            name = "office"
            plugin = "loopback"
            tls-ca-file = "\(caFile)"

            [[channel]]
            name = "other"
            plugin = "loopback"
            """
        )
        let daemon = try DaemonProcess(["--config", config], scratch: scratch)
        defer { daemon.signal(SIGTERM) }
        try #require(await daemon.waitForLog("ready: 2 channels listening"), "\(daemon.stderr)")

        // Nothing changed: nothing restarts.
        daemon.signal(SIGHUP)
        try #require(await daemon.waitForLog("reloaded"), "\(daemon.stderr)")
        #expect(!daemon.stderr.contains("restarting channel"), "\(daemon.stderr)")

        // The file's contents change, the configuration text does not.
        try String(contentsOfFile: second.certificateFile, encoding: .utf8).write(toFile: caFile, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try #require(await daemon.waitForLog("restarting channel office"), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("restarting channel office: its tls-ca-file \(caFile) changed"), "\(daemon.stderr)")
        #expect(await daemon.waitForLog("[office] listening"))
        #expect(!daemon.stderr.contains("restarting channel other"), "\(daemon.stderr)")
    }
}
