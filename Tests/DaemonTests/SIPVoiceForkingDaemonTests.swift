import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// Issue 30, Accept where the provider forks: the real `attendantd` and a real baresip (the softphone)
/// registered on one address of record at kamailio, which forks each call to both (as a Twilio SIP Domain
/// forks to every device registered under the username); a second baresip calls. Over UDP, TCP and TLS: over
/// TLS every leg is TLS (kamailio's tls module with a certificate from the test's CA, which attendantd trusts
/// through `tls-ca-file`).
@Suite(.serialized, .timeLimit(.minutes(4))) struct SIPVoiceForkingDaemonTests {
    struct Fork {
        let peers: VoicePeers
        let phone: SIPVoiceDaemonTests.Phone
        let softphone: Baresip
    }

    /// kamailio, baresip registered as alice (answering nothing by itself), and attendantd registered as
    /// alice too with `accept = "softphone"` and examples/baresip-accept as its answer command.
    static func fork(transport: String) async throws -> Fork {
        let peers = try await VoicePeers(tls: transport == "tls")
        let softphone = try await peers.phone(
            "alice",
            credentials: peers.ephemeralCredentials(for: "alice"),
            transport: PeerTransport(rawValue: transport) ?? .udp
        )
        do {
            try await softphone.waitForRegistration()
        } catch {
            throw FixtureError("\(error)\n\(peers.registrarReport)")
        }
        let script = BuildProducts.packageRoot + "/examples/baresip-accept"
        let phone = try await SIPVoiceDaemonTests.phone(
            peers,
            transport: transport,
            softphoneContact: nil,
            extra: """
                accept = "softphone"
                answer-command = ["/usr/bin/python3", "\(script)", "127.0.0.1:\(softphone.controlPort)"]
                """
        )
        _ = try await phone.channel { $0["state"] as? String == "listening" }
        let bindings = try await peers.waitForContacts(of: "alice", "two bindings: the softphone's and attendantd's") { $0.count == 2 }
        // kamailio's socket for each binding is the transport it came over (e.g. "tls:127.0.0.1:5061").
        #expect(bindings.allSatisfy { $0.socket.hasPrefix(transport + ":") }, "\(bindings.map(\.socket))")
        return Fork(peers: peers, phone: phone, softphone: softphone)
    }

    @Test(arguments: ["udp", "tcp", "tls"]) func acceptTellsTheSoftphoneToAnswerAndTheProxyCancelsThisForkAsAnsweredElsewhere(
        transport: String
    ) async throws {
        let fork = try await Self.fork(transport: transport)
        defer { fork.peers.stop() }
        let call = try await fork.peers.call(
            from: "ada",
            displayName: "Ada Lovelace",
            to: "alice",
            transport: PeerTransport(rawValue: transport) ?? .udp
        )
        // Both forks ring: the softphone reports the incoming call, attendantd raises the contact.
        try await fork.softphone.waitForEvent("CALL_INCOMING")
        let ringing = try await fork.phone.contact("ringing from Ada") { $0["from"] as? String == "Ada Lovelace" }
        let id = try #require(ringing["id"] as? String)

        let accept = try await fork.phone.ctl("accept", id)
        #expect(accept.status == 0, "\(accept)\n\(fork.phone.daemon.stderr)")
        // The softphone answered: the caller's final response is its 200, from baresip's address.
        let answer: SIPMessage
        do {
            answer = try await call.waitForFinalResponse()
        } catch {
            throw FixtureError(
                "\(error)\nthe softphone: \(fork.softphone.events)\n\(fork.softphone.report)\nattendantd:\n\(fork.phone.daemon.stderr)"
            )
        }
        #expect(answer.status == 200, "\(answer)\n\(call.report)")
        // baresip's trace of its 200 is read from its stdout, which may come after the caller has the 200.
        var softphoneAnswer: SIPMessage?
        try? await eventually("baresip's trace to show the 200 it sent", within: 10) {
            softphoneAnswer = fork.softphone.sent.first { $0.cseqMethod == "INVITE" && $0.status == 200 }
            return softphoneAnswer != nil
        }
        #expect(softphoneAnswer != nil && answer.header("Contact") == softphoneAnswer?.header("Contact"), "the softphone's 200: \(answer)")
        // attendantd sent no final response on its own fork: kamailio cancelled it with Reason cause=200
        // (tm's local_cancel_reason), and the call is answered elsewhere, not missed and not redirected.
        let ended = try await fork.phone.contact("answered elsewhere") { $0["id"] as? String == id && $0["outcome"] is String }
        #expect(ended["outcome"] as? String == "answered-elsewhere", "\(ended)\n\(fork.phone.daemon.stderr)")
        #expect(!call.responses.contains { $0.status == 302 }, "no redirect: \(call.responses.compactMap(\.status))")
        #expect(fork.phone.daemon.stderr.contains("the softphone was told to answer"), "\(fork.phone.daemon.stderr)")
        try await call.hangUp()
        await call.stop()
    }

    @Test(arguments: ["udp", "tcp", "tls"]) func declineSends603AndTheProxyCancelsTheSoftphonesFork(transport: String) async throws {
        let fork = try await Self.fork(transport: transport)
        defer { fork.peers.stop() }
        let call = try await fork.peers.call(
            from: "grace",
            displayName: "Grace Hopper",
            to: "alice",
            transport: PeerTransport(rawValue: transport) ?? .udp
        )
        try await fork.softphone.waitForEvent("CALL_INCOMING")
        let id = try #require(try await fork.phone.contact("ringing from Grace") { $0["from"] as? String == "Grace Hopper" }["id"] as? String)
        await #expect(try fork.phone.ctl("decline", id).status == 0)
        // RFC 3261 section 16.7 step 5: the 6xx makes the proxy cancel every other fork, and it is the answer.
        let final = try await call.waitForFinalResponse()
        #expect(final.status == 603, "\(final)\n\(call.report)")
        #expect(try await call.waitForClosed() == "603 Decline")
        try await fork.softphone.waitForEvent("CALL_CLOSED") { $0["direction"]?.string == "incoming" }
        #expect(fork.softphone.received.contains { $0.method == "CANCEL" }, "\(fork.softphone.report)")
        #expect(!fork.softphone.sent.contains { $0.cseqMethod == "INVITE" && $0.status == 200 }, "the softphone never answered")
        _ = try await fork.phone.contact("declined") { $0["id"] as? String == id && $0["outcome"] as? String == "declined" }
    }

    @Test func anAnswerCommandThatCannotReachTheSoftphoneSaysSoAndTheCallRingsOn() async throws {
        let fork = try await Self.fork(transport: "udp")
        defer { fork.peers.stop() }
        let call = try await fork.peers.call(from: "alan", displayName: "Alan Turing", to: "alice")
        try await fork.softphone.waitForEvent("CALL_INCOMING")
        let id = try #require(try await fork.phone.contact("ringing from Alan") { $0["from"] as? String == "Alan Turing" }["id"] as? String)
        // baresip's control port goes away: the command fails, and Accept says what failed and how.
        await fork.softphone.stop()
        let accept = try await fork.phone.ctl("accept", id)
        #expect(accept.status != 0, "\(accept)")
        #expect(accept.output.contains("the softphone was not told to answer") && accept.output.contains("exited with status 1"), "\(accept)")
        // attendantd's fork still rings: it can be declined, which the caller hears.
        await #expect(try fork.phone.ctl("decline", id).status == 0)
        #expect(try await call.waitForFinalResponse().status == 603)
    }
}
