import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// The real `attendantd` with the SIPVoice plugin, registered with Debian's kamailio and called by Debian's
/// baresip; the user's side is the real `attendantctl` on a private session bus.
@Suite(.serialized, .timeLimit(.minutes(4))) struct SIPVoiceDaemonTests {
    /// A running daemon with one sip-voice channel named "phone" for `user` at `peers`.
    struct Phone {
        let scratch: Scratch
        let bus: PrivateBus
        let daemon: DaemonProcess
        let softphone: String

        func ctl(_ arguments: String...) async throws -> (status: Int32, output: String) {
            try await TokenDaemonTests.ctl(arguments, bus: self.bus)
        }

        func channel(until condition: @escaping ([String: Any]) -> Bool) async throws -> [String: Any] {
            try await TokenDaemonTests.channel("phone", bus: self.bus, until: condition)
        }

        /// The daemon's contact records (newest first).
        func contacts() async throws -> [[String: Any]] {
            let (_, output) = try await self.ctl("contacts", "--limit", "100", "--json")
            return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
        }

        /// Waits (bounded) for a contact that satisfies `condition`.
        func contact(_ what: String, where condition: @escaping ([String: Any]) -> Bool) async throws -> [String: Any] {
            var found: [String: Any]?
            try await eventually("a contact: \(what); stderr:\n\(self.daemon.stderr)") {
                found = try await self.contacts().first(where: condition)
                return found != nil
            }
            return found!
        }
    }

    static func phone(
        _ peers: VoicePeers,
        user: String = "alice",
        transport: String = "udp",
        authentication: String = "ephemeral",
        token: String? = nil,
        softphoneContact: String? = "",
        trusting authority: String? = nil,
        channelExtra: String = "",
        extra: String = "",
        top: String = "",
        environment: [String: String] = [:]
    ) async throws -> Phone {
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let script = try scratch.write("token", "#!/bin/sh\nprintf '%s\\n' '\(token ?? peers.secret)'\n")
        chmod(script, 0o700)
        // `softphoneContact` nil: none (accept = "softphone" redirects nothing); empty: a free loopback port.
        // `tls-ca-file` is `authority` (empty: none), else the CA of the peers' TLS registrar if they have one.
        let softphone = softphoneContact == "" ? "sip:softphone@127.0.0.1:\(try LoopbackPort.pick())" : softphoneContact ?? ""
        let daemon = try await TokenDaemonTests.daemon(
            """
            \(top)
            [[channel]]
            name = "phone"
            plugin = "sip-voice"
            token-command = ["\(script)"]
            \((authority ?? peers.tls?.authority.certificateFile).flatMap { $0.isEmpty ? nil : "tls-ca-file = \"\($0)\"" } ?? "")
            \(channelExtra)

            [channel.sip-voice]
            registrar = "\(peers.registrarURI(transport: PeerTransport(rawValue: transport) ?? .udp))"
            address-of-record = "sip:\(user)@127.0.0.1"
            display-name = "Alice at her desk"
            authentication = "\(authentication)"
            \(softphone.isEmpty ? "" : "softphone-contact = \"<\(softphone)>\"")
            \(extra)
            """,
            scratch: scratch,
            bus: bus,
            environment: environment
        )
        return Phone(scratch: scratch, bus: bus, daemon: daemon, softphone: softphone)
    }

    @Test func registersWithEphemeralCredentialsAndCallsFromBaresipAreAcceptedDeclinedAndMissed() async throws {
        let peers = try await VoicePeers()
        defer { peers.stop() }
        let phone = try await Self.phone(peers)

        let record = try await phone.channel { $0["state"] as? String == "listening" }
        #expect(record["state"] as? String == "listening", "\(record)\n\(phone.daemon.stderr)\n\(peers.registrarReport)")
        let contacts = try await peers.waitForContacts(of: "alice", "one binding from attendantd") { $0.count == 1 }
        #expect(contacts[0].instance?.hasPrefix("<urn:uuid:") == true, "\(contacts[0].fields)")
        #expect(contacts[0].userAgent == "Attendant")
        #expect((540...600).contains(contacts[0].expires ?? 0), "Expires is the keep-alive cycle: \(contacts[0])")

        // Accept: baresip gets 302 to the softphone.
        let accepted = try await peers.call(from: "ada", displayName: "Ada Lovelace", to: "alice")
        try await accepted.waitForProgress(180)
        let ringing = try await phone.contact("ringing from Ada") { $0["from"] as? String == "Ada Lovelace" }
        #expect(ringing["kind"] as? String == "call" && ringing["channel"] as? String == "phone", "\(ringing)")
        #expect((ringing["fromAddress"] as? String)?.hasPrefix("sip:ada@127.0.0.1") == true, "\(ringing)")
        let first = try #require(ringing["id"] as? String)
        #expect(first == accepted.invites.first?.header("Call-ID"), "the contact is the SIP call")
        let accept = try await phone.ctl("accept", first)
        #expect(accept.status == 0, "\(accept)")
        let redirect = try await accepted.waitForFinalResponse()
        #expect(redirect.status == 302, "\(redirect)")
        #expect(redirect.header("Contact") == "<\(phone.softphone)>", "\(redirect)")
        _ = try await phone.contact("answered") { $0["id"] as? String == first && $0["outcome"] as? String == "answered" }
        await accepted.stop()

        // Decline: 603.
        let declined = try await peers.call(from: "grace", displayName: "Grace Hopper", to: "alice")
        try await declined.waitForProgress(180)
        let second = try #require(try await phone.contact("ringing from Grace") { $0["from"] as? String == "Grace Hopper" }["id"] as? String)
        await #expect(try phone.ctl("decline", second).status == 0)
        let decline = try await declined.waitForFinalResponse()
        #expect(decline.status == 603 && decline.reason == "Decline", "\(decline)")
        #expect(try await declined.waitForClosed() == "603 Decline")
        _ = try await phone.contact("declined") { $0["id"] as? String == second && $0["outcome"] as? String == "declined" }

        // The caller hangs up first: CANCEL, 487, a missed call.
        let cancelled = try await peers.call(from: "alan", displayName: "Alan Turing", to: "alice")
        try await cancelled.waitForProgress(180)
        let third = try #require(try await phone.contact("ringing from Alan") { $0["from"] as? String == "Alan Turing" }["id"] as? String)
        try await cancelled.hangUp()
        #expect(try await cancelled.waitForFinalResponse().status == 487)
        _ = try await phone.contact("missed") { $0["id"] as? String == third && $0["outcome"] as? String == "missed" }
        // Accepting a call that is over says so.
        let late = try await phone.ctl("accept", third)
        #expect(late.status != 0, "\(late)")

        // Stopping the daemon unregisters.
        phone.daemon.signal(SIGTERM)
        await phone.daemon.expectCleanExit()
        try await peers.waitForContacts(of: "alice", "no binding after attendantd stopped") { $0.isEmpty }
        #expect(!phone.daemon.stderr.contains(peers.secret), "the secret never shows")
    }

    @Test func anUnansweredCallRingsOutWith480AndIsMissed() async throws {
        let peers = try await VoicePeers()
        defer { peers.stop() }
        let phone = try await Self.phone(peers, extra: "ring-timeout = \"2s\"")
        _ = try await phone.channel { $0["state"] as? String == "listening" }
        try await peers.waitForContacts(of: "alice", "a binding") { $0.count == 1 }
        let call = try await peers.call(from: "ada", displayName: "Ada Lovelace", to: "alice")
        let final = try await call.waitForFinalResponse()
        #expect(final.status == 480, "\(final)")
        _ = try await phone.contact("missed") { $0["from"] as? String == "Ada Lovelace" && $0["outcome"] as? String == "missed" }
    }

    @Test func overTCPWithOutboundTheChannelRecoversOnItsOwnWhenKamailioRestarts() async throws {
        let peers = try await VoicePeers(flowTimer: 20)
        defer { peers.stop() }
        let phone = try await Self.phone(peers, transport: "tcp")
        _ = try await phone.channel { $0["state"] as? String == "listening" }
        let before = try await peers.waitForContacts(of: "alice", "an outbound binding") { $0.count == 1 }
        #expect(before[0].regID == 1 && before[0].socket.hasPrefix("tcp:"), "\(before[0].fields)")
        let report = try await phone.ctl("channels", "--json")
        #expect(report.status == 0)

        try await peers.restartRegistrar()
        // The connection drops: the channel notices at once, stops listening, and registers again by itself.
        #expect(await phone.daemon.waitForLog("the registrar closed the connection"), "\(phone.daemon.stderr)")
        let after = try await peers.waitForContacts(of: "alice", "the binding again after the restart", within: 60) { $0.count == 1 }
        #expect(after[0].instance == before[0].instance, "the same instance: a replacement, not a second phone")
        _ = try await phone.channel { $0["state"] as? String == "listening" }

        // And calls reach it again.
        let call = try await peers.call(from: "ada", displayName: "Ada Lovelace", to: "alice", transport: .tcp)
        try await call.waitForProgress(180)
        let id = try #require(try await phone.contact("ringing after the restart") { $0["from"] as? String == "Ada Lovelace" }["id"] as? String)
        await #expect(try phone.ctl("decline", id).status == 0)
        #expect(try await call.waitForFinalResponse().status == 603)
    }

    @Test func bearerTokensRegisterThroughKamailiosRFC8898Check() async throws {
        let peers = try await VoicePeers(authentication: .bearer)
        defer { peers.stop() }
        let token = peers.bearerToken(for: "alice", lifetime: 3600)
        let phone = try await Self.phone(peers, authentication: "bearer", token: token)
        let record = try await phone.channel { $0["state"] as? String == "listening" }
        #expect(record["state"] as? String == "listening", "\(record)\n\(phone.daemon.stderr)\n\(peers.registrarReport)")
        try await peers.waitForContacts(of: "alice", "a binding") { $0.count == 1 }
        #expect(!phone.daemon.stderr.contains(token) && !phone.daemon.stdout.contains(token))
    }

    @Test func aTokenTheRegistrarRefusesEndsInSignInNeeded() async throws {
        let peers = try await VoicePeers(authentication: .bearer)
        defer { peers.stop() }
        let forged = peers.bearerToken(for: "alice", key: "not-the-registrars-key")
        let phone = try await Self.phone(peers, authentication: "bearer", token: forged)
        let record = try await phone.channel { $0["state"] as? String == "failed" }
        #expect(record["state"] as? String == "failed", "\(record)\n\(phone.daemon.stderr)")
        let detail = record["detail"] as? String ?? ""
        #expect(detail.hasPrefix("sign-in needed: ") && detail.contains("refused the bearer token"), "\(record)")
        #expect(!phone.daemon.stderr.contains(forged))
    }
}
