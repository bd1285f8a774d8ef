import DaemonTestSupport
import Foundation
import Glibc
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
        #expect(await daemon.waitForExit() == 0)
    }
}
