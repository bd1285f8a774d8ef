import DaemonTestSupport
import Foundation
import TestSupport
import Testing

/// Issue 30, SIP over TLS through the real `attendantd` and kamailio's tls module: a registrar whose
/// certificate does not verify is a configuration failure that `channels` and `health` name (not an endless
/// silent retry), and `tls-verify = false` takes any certificate with a warning in the log. Registration,
/// ringing, Accept and Decline over TLS are in SIPVoiceForkingDaemonTests (its "tls" cases).
@Suite(.serialized, .timeLimit(.minutes(3))) struct SIPVoiceTLSDaemonTests {
    @Test func aRegistrarCertificateFromAnotherCAFailsTheChannelAndSaysWhyInChannelsAndHealth() async throws {
        let peers = try await VoicePeers(tls: true)
        defer { peers.stop() }
        let other = try await TestCertificateAuthority("Somebody Else's CA")
        let phone = try await SIPVoiceDaemonTests.phone(peers, transport: "tls", trusting: other.certificateFile)
        let record = try await phone.channel { $0["state"] as? String == "failed" }
        let detail = record["detail"] as? String ?? ""
        let registrar = "127.0.0.1:\(try #require(peers.tls?.port))"
        #expect(record["state"] as? String == "failed", "\(record)\n\(phone.daemon.stderr)")
        #expect(detail.contains("the registrar at \(registrar) cannot be used over TLS"), "\(detail)")
        #expect(detail.contains("is not issued by a CA this channel trusts") && detail.contains(other.certificateFile), "\(detail)")

        let health = try await phone.ctl("health")
        #expect(health.status != 0, "\(health)")
        #expect(health.output.contains("phone") && health.output.contains("cannot be used over TLS"), "\(health)")
        // A configuration failure is not retried: nothing reached kamailio, and nothing registered.
        #expect(try await peers.registeredContacts(of: "alice").isEmpty)
        #expect(!peers.registrarTrace.contains { $0.contains("REGISTER") }, "\(peers.registrarTrace)")
    }

    @Test func withTLSVerifyOffAnyCertificateIsTakenAndTheLogSaysSo() async throws {
        let peers = try await VoicePeers(tls: true)
        defer { peers.stop() }
        let phone = try await SIPVoiceDaemonTests.phone(peers, transport: "tls", trusting: "", channelExtra: "tls-verify = false")
        let record = try await phone.channel { $0["state"] as? String == "listening" }
        #expect(record["state"] as? String == "listening", "\(record)\n\(phone.daemon.stderr)\n\(peers.registrarReport)")
        let bindings = try await peers.waitForContacts(of: "alice", "attendantd's binding over TLS") { $0.count == 1 }
        #expect(bindings[0].socket.hasPrefix("tls:"), "\(bindings[0].fields)")
        #expect(phone.daemon.stderr.contains("tls-verify = false"), "\(phone.daemon.stderr)")
    }
}
