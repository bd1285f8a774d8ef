import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation
import Glibc
import SIPCore
import TestSupport
import Testing

/// What reaches the channel over UDP and where its answers go: datagrams up to the UDP maximum, requests
/// from sources other than the registrar (RFC 3261 lets any proxy reach a Contact), responses routed by
/// RFC 3261 section 18.2.2, and the retry delay handed to the host after a failure.
@Suite(.timeLimit(.minutes(2))) struct SIPVoiceTransportTests {
    typealias Rig = SIPVoiceChannelTests.Rig

    /// The first event `matching` what the host heard, waiting (bounded) for it.
    static func event(_ rig: Rig, within seconds: Double = 30, _ matching: (ChannelEvent) -> Bool) async throws -> ChannelEvent {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let event = rig.host.events.first(where: matching) { return event }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw PeerError("no such event within \(seconds) s; heard \(rig.host.events); log: \(rig.host.logRecords.text)")
    }

    static func incomingContact(_ rig: Rig) async throws -> Contact {
        guard case .incomingContact(let contact) = try await Self.event(rig, { if case .incomingContact = $0 { true } else { false } }) else {
            throw PeerError("not an incoming contact")
        }
        return contact
    }

    /// An INVITE carrying an SDP offer of `size` bytes, as real callers with many codecs and ICE
    /// candidates send.
    static func largeInvite(_ peer: ScriptedPeer, size: Int, callID: String) -> SIPRequest {
        var invite = peer.invite(branch: "z9hG4bK-\(callID)", callID: callID)
        var sdp = "v=0\r\no=ada 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0 8 9\r\n"
        var candidate = 1
        while sdp.utf8.count < size - 80 {
            sdp += "a=candidate:\(candidate) 1 UDP 2130706431 192.0.2.\(candidate % 250) \(50000 + candidate) typ host\r\n"
            candidate += 1
        }
        invite.headers.add(.contentType, "application/sdp")
        invite.body = Array(sdp.utf8)
        invite.headers.set(.contentLength, String(invite.body.count))
        return invite
    }

    @Test(arguments: [2_100, 4_500, 9_000, 60_000])
    func anInviteWithALargeSDPRings(size: Int) async throws {
        let rig = try SIPVoiceChannelTests.rig()
        _ = try await SIPVoiceChannelTests.listen(rig)
        let invite = Self.largeInvite(rig.peer, size: size, callID: "large-\(size)")
        #expect(invite.serialized().count > size - 200)
        rig.peer.send(.request(invite))
        let contact = try await Self.incomingContact(rig)
        #expect(contact.id == "large-\(size)")
        #expect(try await rig.peer.receiveResponse().statusCode == 180)
        #expect(!rig.host.logRecords.text.contains("not valid SIP"), "\(rig.host.logRecords.text)")
        try await SIPVoiceChannelTests.stop(rig)
    }

    @Test func aRequestFromAnotherSourceRingsAndIsAnsweredThere() async throws {
        let rig = try SIPVoiceChannelTests.rig()
        _ = try await SIPVoiceChannelTests.listen(rig)
        let contactAddress = try #require(rig.peer.channelAddress)
        // Another proxy of the same farm (or an SBC) relays the call from its own address.
        let proxy = ScriptedPeer(on: rig.host.inMemoryNetwork)
        let invite = proxy.invite(branch: "z9hG4bK-other", callID: "via-other-proxy")
        proxy.send(.request(invite), to: contactAddress)
        let contact = try await Self.incomingContact(rig)
        #expect(contact.id == "via-other-proxy")
        let ringing = try await proxy.receiveResponse()
        #expect(ringing.statusCode == 180)
        #expect(try await rig.peer.expectSilence(for: 0.2) == nil, "nothing goes to the registrar for it")

        // Decline: the final answer goes to the same proxy, whose ACK ends the transaction.
        _ = try await rig.channel.perform(.decline(contactID: contact.id))
        #expect(try await proxy.receiveResponse().statusCode == 603)
        proxy.send(.request(proxy.inTransaction(.ack, of: invite, toTag: try ringing.headers.to.tag)), to: contactAddress)
        let ended = try await Self.event(rig) { if case .contactEnded = $0 { true } else { false } }
        guard case .contactEnded("via-other-proxy", .declined) = ended else {
            Issue.record("expected the contact to end as declined: \(rig.host.events)")
            return
        }
        try await SIPVoiceChannelTests.stop(rig)
    }

    @Test func withoutRportTheResponseGoesToTheViaPortAndWithItToTheSource() async throws {
        let rig = try SIPVoiceChannelTests.rig()
        _ = try await SIPVoiceChannelTests.listen(rig)
        let contactAddress = try #require(rig.peer.channelAddress)
        let sender = ScriptedPeer(on: rig.host.inMemoryNetwork)
        let listener = ScriptedPeer(on: rig.host.inMemoryNetwork)
        // RFC 3261 18.2.2: the source address (received), at the port in the Via's sent-by.
        var options = Self.options(from: sender, callID: "options-1", via: "SIP/2.0/UDP 127.0.0.1:\(listener.port);branch=z9hG4bK-opt1")
        sender.send(.request(options), to: contactAddress)
        #expect(try await listener.receiveResponse().statusCode == 200)
        #expect(try await sender.expectSilence(for: 0.2) == nil)
        // RFC 3581: with rport, back to the source port.
        options.headers.set(.via, "SIP/2.0/UDP 127.0.0.1:\(listener.port);rport;branch=z9hG4bK-opt2")
        options.headers.set(.callID, "options-2")
        sender.send(.request(options), to: contactAddress)
        #expect(try await sender.receiveResponse().statusCode == 200)
        try await SIPVoiceChannelTests.stop(rig)
    }

    /// An OPTIONS from `peer` with the Via lines `via`.
    static func options(from peer: ScriptedPeer, callID: String, via: String) -> SIPRequest {
        var options = peer.invite(branch: "z9hG4bK-\(callID)", callID: callID)
        options.method = .options
        options.headers.set(.cseq, "1 OPTIONS")
        options.headers.set(.via, via)
        return options
    }

    /// The parameters of the top Via of `response`, by name (a flag's value is "").
    static func topViaParameters(_ response: SIPResponse) throws -> [String: String] {
        let via = try response.headers.topVia
        return Dictionary(via.parameters.map { ($0.name.lowercased(), $0.value ?? "") }) { first, _ in first }
    }

    @Test func responsesSayInTheTopViaWhereTheRequestCameFrom() async throws {
        let rig = try SIPVoiceChannelTests.rig()
        _ = try await SIPVoiceChannelTests.listen(rig)
        let contactAddress = try #require(rig.peer.channelAddress)
        let caller = ScriptedPeer(on: rig.host.inMemoryNetwork)
        // RFC 3581 section 4: an empty rport gets the source port, and received the source address even
        // though it is the sent-by host.
        var options = Self.options(
            from: caller,
            callID: "stamp-1",
            via: "SIP/2.0/UDP 127.0.0.1:\(caller.port);rport;branch=z9hG4bK-stamp1, SIP/2.0/UDP 192.0.2.9:5060;rport;branch=z9hG4bK-upstream"
        )
        caller.send(.request(options), to: contactAddress)
        let answered = try await caller.receiveResponse()
        #expect(answered.statusCode == 200)
        #expect(
            try Self.topViaParameters(answered) == ["rport": String(caller.port), "received": "127.0.0.1", "branch": "z9hG4bK-stamp1"],
            "\(answered.headers)"
        )
        #expect(
            try answered.headers.vias.map(\.description).last == "SIP/2.0/UDP 192.0.2.9:5060;rport;branch=z9hG4bK-upstream",
            "only the top Via is ours to stamp"
        )

        // Every response of a call carries it: the 180 at once and the final answer.
        var invite = caller.invite(branch: "z9hG4bK-stamp2", callID: "stamp-2")
        invite.headers.set(.via, "SIP/2.0/UDP 127.0.0.1:\(caller.port);branch=z9hG4bK-stamp2;rport")
        caller.send(.request(invite), to: contactAddress)
        let ringing = try await caller.receiveResponse()
        #expect(ringing.statusCode == 180)
        #expect(
            try Self.topViaParameters(ringing) == ["rport": String(caller.port), "received": "127.0.0.1", "branch": "z9hG4bK-stamp2"],
            "\(ringing.headers)"
        )
        let contact = try await Self.incomingContact(rig)
        _ = try await rig.channel.perform(.decline(contactID: contact.id))
        let declined = try await caller.receiveResponse()
        #expect(declined.statusCode == 603)
        #expect(
            try Self.topViaParameters(declined)["received"] == "127.0.0.1" && Self.topViaParameters(declined)["rport"] == String(caller.port),
            "\(declined.headers)"
        )

        // RFC 3261 section 18.2.1: a sent-by that is a name gets received, without rport.
        let listener = ScriptedPeer(on: rig.host.inMemoryNetwork)
        options.headers.set(.via, "SIP/2.0/UDP caller.invalid:\(listener.port);branch=z9hG4bK-stamp3")
        options.headers.set(.callID, "stamp-3")
        caller.send(.request(options), to: contactAddress)
        let named = try await listener.receiveResponse()
        #expect(try named.headers.topVia.description == "SIP/2.0/UDP caller.invalid:\(listener.port);branch=z9hG4bK-stamp3;received=127.0.0.1")
        try await SIPVoiceChannelTests.stop(rig)
    }

    @Test func a503WithRetryAfterIsTheEarliestNextTry() async throws {
        let rig = try SIPVoiceChannelTests.rig()
        let listening = Task { try await rig.channel.listen() }
        let register = try await rig.peer.receiveRequest(.register)
        rig.peer.respond(register, 503, [(.retryAfter, "20")])
        let error = await #expect(throws: ChannelError.self) { try await listening.value }
        #expect(error?.code == .transient)
        let waited = try #require(error?.retryAfter)
        #expect(waited >= .seconds(20) && waited <= .seconds(40), "never sooner, spread up to as long again: \(waited)")
        #expect(error?.message.contains("503 Service Unavailable") == true, "\(String(describing: error))")

        // Without Retry-After a 5xx is retried within 30 s, at random (RegistrationRetry.refusalBackoff).
        let again = Task { try await rig.channel.listen() }
        let second = try await rig.peer.receiveRequest(.register)
        rig.peer.respond(second, 500)
        let plain = await #expect(throws: ChannelError.self) { try await again.value }
        let refused = try #require(plain?.retryAfter)
        #expect(refused <= .seconds(30), "\(refused)")
    }

    @Test func aRegistrarThatIsGoneIsProbedWithinSeconds() async throws {
        let rig = try SIPVoiceChannelTests.rig()
        _ = try await SIPVoiceChannelTests.listen(rig)
        rig.peer.close()
        await rig.channel.applicationStateDidChange(.foreground)
        var waited: Duration = .zero
        while !rig.host.events.contains(where: { if case .stoppedListening = $0 { true } else { false } }) {
            try await Task.sleep(for: .milliseconds(20))
            waited += .milliseconds(20)
            if waited >= .milliseconds(1500) {
                waited = .zero
                rig.host.manualClock.advanceToNextDeadline()
            }
        }
        guard case .stoppedListening(let error)? = rig.host.events.first else {
            Issue.record("expected stopped-listening: \(rig.host.events)")
            return
        }
        // Nothing answers: probe again soon (a recovered registrar is used within seconds), not after a
        // backoff of minutes.
        let delay = try #require(error.retryAfter, "\(error)")
        #expect(delay > .zero && delay <= .seconds(4), "\(delay)")
    }
}
