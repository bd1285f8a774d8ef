import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation
import Glibc
import SIPCore
import TestSupport
import Testing

/// The SIPVoice channel through its factory, with the test kit's in-memory host, network and manual clock,
/// against a scripted registrar over UDP: what goes on the wire, what the host hears. (Over the daemon's
/// real network: SIPVoiceTLSTests in PluginIntegrationTests, and the daemon tests with kamailio.)
@Suite(.timeLimit(.minutes(2))) struct SIPVoiceChannelTests {
    static let token = ChannelToken(value: "header.payload.signature-one", expiresAt: nil)

    struct Rig {
        let peer: ScriptedPeer
        let host: InMemoryChannelHost
        let channel: any Channel
    }

    static func rig(_ extra: [String: SettingValue] = [:], token: ChannelToken? = Self.token) throws -> Rig {
        // The test kit's network and hashes, lent to the plugin as attendantd lends its own.
        let host = InMemoryChannelHost(channelName: "phone", token: token)
        let peer = ScriptedPeer(on: host.inMemoryNetwork)
        var values: [String: SettingValue] = [
            "registrar": .string(peer.registrarURI),
            "address-of-record": .string("sip:alice@example.org"),
            "softphone-contact": .string("<sip:softphone@127.0.0.1:5099>"),
        ]
        values.merge(extra) { $1 }
        // "-" leaves a key out.
        for (key, value) in values where value == .string("-") { values[key] = nil }
        let settings = ChannelSettings(values)
        let channel = try SIPVoicePlugin.factory.makeChannel(settings: settings, host: host)
        #expect(settings.unknownKeys.isEmpty)
        return Rig(peer: peer, host: host, channel: channel)
    }

    /// Listens, answering registration; returns the authenticated REGISTER.
    static func listen(_ rig: Rig, expires: UInt32? = nil) async throws -> SIPRequest {
        let listening = Task { try await rig.channel.listen() }
        do {
            let register = try await rig.peer.register(expires: expires)
            try await listening.value
            return register
        } catch {
            // Left behind: the channel's wait runs on the manual clock, so awaiting it (as `async let` does
            // on the way out) would hang the test instead of failing it.
            listening.cancel()
            throw error
        }
    }

    /// Stops listening and answers the unregistering REGISTER (`Expires: 0`), as a registrar does; the
    /// channel's wait for that answer runs on the manual clock, so a silent peer would hold it.
    static func stop(_ rig: Rig) async throws {
        let stopped = Task { await rig.channel.stopListening() }
        do {
            let unregister = try await rig.peer.receiveRequest(.register)
            #expect(try unregister.headers.expires == 0)
            rig.peer.respond(unregister, 200)
        } catch {
            stopped.cancel()  // left behind, as in `listen`
            throw error
        }
        await stopped.value
    }

    // MARK: Registration

    @Test func registersWithTheBearerTokenWhenChallengedAndForTheCycle() async throws {
        let rig = try Self.rig()
        async let listening: Void = rig.channel.listen()
        let first = try await rig.peer.receiveRequest(.register)
        #expect(first.headers[.authorization] == nil)
        #expect(try first.headers.expires == 600)
        let contact = try #require(try first.headers.contacts.first)
        #expect(contact.instanceID?.hasPrefix("urn:uuid:") == true)
        #expect(contact.uri.user == "alice" && contact.uri.host == "127.0.0.1")
        rig.peer.respond(first, 401, [(.wwwAuthenticate, "Bearer realm=\"example.org\"")])
        let second = try await rig.peer.receiveRequest(.register)
        #expect(second.headers[.authorization] == "Bearer \(Self.token.value)")
        try rig.peer.accept(second)
        try await listening

        // The instance ID is kept, so a restart replaces this binding.
        let stored = try await rig.host.store.value(forKey: "instance-id")
        #expect(contact.instanceID != nil && contact.instanceID == stored)
        #expect(!rig.host.logRecords.text.contains(Self.token.value))
        try await Self.stop(rig)
    }

    @Test func keepAliveConfirmsAFreshBindingAndRefreshesAnOlderOne() async throws {
        let rig = try Self.rig()
        _ = try await Self.listen(rig)
        // Just registered: the keep-alive sends nothing.
        try await rig.channel.keepAlive()
        #expect(try await rig.peer.expectSilence(for: 0.2) == nil)
        // Half the binding's life later, it re-registers and waits for the answer.
        rig.host.manualClock.advance(by: .seconds(301))
        async let keptAlive: Void = rig.channel.keepAlive()
        let refresh = try await rig.peer.receiveRequest(.register)
        #expect(refresh.headers[.authorization] == "Bearer \(Self.token.value)", "the cached challenge is answered at once")
        try rig.peer.accept(refresh)
        try await keptAlive
        try await Self.stop(rig)
    }

    @Test func aRenewedTokenReRegistersAtOnceWithoutStoppingListening() async throws {
        let rig = try Self.rig()
        _ = try await Self.listen(rig)
        let renewed = ChannelToken(value: "header.payload.signature-two")
        await rig.channel.tokenDidChange(renewed)
        let register = try await rig.peer.receiveRequest(.register)
        #expect(register.headers[.authorization] == "Bearer \(renewed.value)")
        try rig.peer.accept(register)
        // The 200 is handled on the channel's own time: wait for the second registration, not a fixed spell.
        var report: [String: String] = [:]
        try await eventually("the second registration; last report \(report)") {
            guard case .fields(let fields) = try await rig.channel.perform(.custom(command: "registration", arguments: [:])) else { return false }
            report = fields
            return fields["registrations"] == "2"
        }
        #expect(report["listening"] == "yes", "\(report)")
        #expect(rig.host.events.isEmpty, "no stopped-listening: \(rig.host.events)")
        try await Self.stop(rig)
    }

    @Test func intervalTooBriefIsHonoured() async throws {
        let rig = try Self.rig()
        async let listening: Void = rig.channel.listen()
        let first = try await rig.peer.receiveRequest(.register)
        rig.peer.respond(first, 423, [(.minExpires, "900")])
        let second = try await rig.peer.receiveRequest(.register)
        #expect(try second.headers.expires == 900)
        rig.peer.respond(second, 401, [(.wwwAuthenticate, "Bearer realm=\"example.org\"")])
        let third = try await rig.peer.receiveRequest(.register)
        try rig.peer.accept(third)
        try await listening
        try await Self.stop(rig)
    }

    @Test func aRefusedRefreshReportsStoppedListeningAsAuthentication() async throws {
        let rig = try Self.rig()
        _ = try await Self.listen(rig)
        await rig.channel.applicationStateDidChange(.foreground)  // back from sleep: one REGISTER checks the flow
        let refresh = try await rig.peer.receiveRequest(.register)
        rig.peer.respond(refresh, 403)
        guard case .stoppedListening(let error) = await rig.host.nextEvent() else {
            Issue.record("expected stopped-listening")
            return
        }
        #expect(error.code == .authentication)
        #expect(
            error.message.hasPrefix(
                "sip-voice: registering sip:alice@example.org at 127.0.0.1:\(rig.peer.port) over UDP failed: the registrar refuses to register sip:alice@example.org (403 Forbidden)"
            ),
            "\(error)"
        )
        await #expect(throws: ChannelError.self) { try await rig.channel.keepAlive() }
    }

    @Test func aSilentRegistrarIsATransientFailureAfterTheTransactionTimeout() async throws {
        let rig = try Self.rig()
        let listening = Task { try await rig.channel.listen() }
        _ = try await rig.peer.receiveRequest(.register)
        // Retransmissions on the host's clock, then timer F: 64·T1 = 32 s.
        for _ in 0..<32 {
            await rig.host.manualClock.waitForSleepers(atLeast: 1)
            rig.host.manualClock.advance(by: .seconds(1))
        }
        let error = await #expect(throws: ChannelError.self) { try await listening.value }
        #expect(error?.code == .transient)
        #expect(error?.message.contains("did not answer REGISTER within 32 s") == true, "\(String(describing: error))")
    }

    @Test func overUDPARegistrarThatIsGoneIsNoticedAtTheNextREGISTER() async throws {
        let rig = try Self.rig()
        _ = try await Self.listen(rig)
        rig.peer.close()  // the registrar stops: its port answers with ICMP port unreachable
        await rig.channel.applicationStateDidChange(.foreground)
        // The ICMP error fails the REGISTER long before timer F (32 s on the manual clock). (A kernel
        // rate-limits ICMP errors per destination, so on a real network one may be dropped: then the next
        // retransmission, timer E on the manual clock, draws another. The loop keeps that allowance.)
        var waited: Duration = .zero
        while !rig.host.events.contains(where: { if case .stoppedListening = $0 { true } else { false } }) {
            try await Task.sleep(for: .milliseconds(20))
            waited += .milliseconds(20)
            if waited >= .milliseconds(1500) {
                waited = .zero
                rig.host.manualClock.advanceToNextDeadline()
            }
        }
        #expect(rig.host.manualClock.now.offset < .seconds(32), "before timer F")
        guard case .stoppedListening(let error)? = rig.host.events.first else {
            Issue.record("expected stopped-listening first: \(rig.host.events)")
            return
        }
        #expect(error.code == .transient)
        #expect(error.message.contains("nothing answers at 127.0.0.1:\(rig.peer.port) over UDP"), "\(error)")
    }

    // MARK: Calls

    @Test func anInviteRingsAndDeclineSends603() async throws {
        let rig = try Self.rig()
        _ = try await Self.listen(rig)
        let invite = rig.peer.invite()
        rig.peer.send(.request(invite))
        guard case .incomingContact(let contact) = await rig.host.nextEvent() else {
            Issue.record("expected an incoming contact")
            return
        }
        #expect(contact.id == "call-1@peer" && contact.kind == .call)
        #expect(contact.from == Party(displayName: "Ada Lovelace", address: "sip:ada@example.org"))
        #expect(contact.actions == [.accept, .decline])
        // It rings at once, so the first answer is the 180: RFC 3261 section 17.2.1 lets a server transaction
        // whose user agent answers within 200 ms leave out the 100.
        let ringing = try await rig.peer.receiveResponse()
        #expect(ringing.statusCode == 180)
        let tag = try #require(try ringing.headers.to.tag)

        // A retransmitted INVITE gets the 180 again and raises nothing new.
        rig.peer.send(.request(invite))
        #expect(try await rig.peer.receiveResponse().statusCode == 180)

        _ = try await rig.channel.perform(.decline(contactID: contact.id))
        let declined = try await rig.peer.receiveResponse()
        #expect(declined.statusCode == 603)
        rig.peer.send(.request(rig.peer.inTransaction(.ack, of: invite, toTag: tag)))
        guard case .contactEnded(contact.id, .declined) = await rig.host.nextEvent() else {
            Issue.record("expected the contact to end as declined")
            return
        }
        #expect(rig.host.events.count == 2)
        try await Self.stop(rig)
    }

    @Test func acceptRedirectsToTheSoftphoneAndCancelEndsAsMissed() async throws {
        let rig = try Self.rig()
        _ = try await Self.listen(rig)
        let first = rig.peer.invite(callID: "call-a")
        rig.peer.send(.request(first))
        _ = await rig.host.nextEvent()
        _ = try await rig.channel.perform(.accept(contactID: "call-a"))
        var response = try await rig.peer.receiveResponse()
        while response.statusCode < 200 { response = try await rig.peer.receiveResponse() }
        #expect(response.statusCode == 302)
        #expect(response.headers[.contact] == "<sip:softphone@127.0.0.1:5099>")
        guard case .contactEnded("call-a", .answered) = await rig.host.nextEvent() else {
            Issue.record("expected answered")
            return
        }

        let second = rig.peer.invite(branch: "z9hG4bK-call-2", callID: "call-b")
        rig.peer.send(.request(second))
        _ = await rig.host.nextEvent()
        rig.peer.send(.request(rig.peer.inTransaction(.cancel, of: second)))
        var statuses: [Int] = []
        while !statuses.contains(487) { statuses.append(try await rig.peer.receiveResponse().statusCode) }
        #expect(statuses.contains(200), "the CANCEL itself is answered 200: \(statuses)")
        guard case .contactEnded("call-b", .missed) = await rig.host.nextEvent() else {
            Issue.record("expected missed")
            return
        }
        let late = await #expect(throws: ChannelError.self) { try await rig.channel.perform(.accept(contactID: "call-b")) }
        #expect(late?.code == .illegalState)
        try await Self.stop(rig)
    }

    @Test func theRingTimeoutAnswers480AndTheCallIsMissed() async throws {
        let rig = try Self.rig(["ring-timeout": .string("20s")])
        _ = try await Self.listen(rig)
        let ringEnds = rig.host.manualClock.now.advanced(by: .seconds(20))
        rig.peer.send(.request(rig.peer.invite()))
        _ = await rig.host.nextEvent()
        // The ring timer is armed on the channel's worker after the contact is raised: wait for it, not for
        // a count of sleepers that other timers (registration refresh, keep-alive) may already make up.
        await rig.host.manualClock.waitForSleeper(until: ringEnds)
        rig.host.manualClock.advance(by: .seconds(20))
        var response = try await rig.peer.receiveResponse()
        while response.statusCode < 200 { response = try await rig.peer.receiveResponse() }
        #expect(response.statusCode == 480)
        guard case .contactEnded("call-1@peer", .missed) = await rig.host.nextEvent() else {
            Issue.record("expected missed")
            return
        }
        try await Self.stop(rig)
    }

    // MARK: Bad input

    @Test func malformedMessagesAreAnsweredOrIgnoredAndTheChannelKeepsListening() async throws {
        let rig = try Self.rig()
        _ = try await Self.listen(rig)
        rig.peer.send(text: "this is not SIP at all\r\n\r\n")
        rig.peer.send(bytes: [0xff, 0xfe, 0x00, 0x01])
        rig.peer.send(text: "SIP/2.0 200 OK\r\nVia: nonsense\r\n\r\n")

        // An INVITE without From is refused with 400 and raises nothing.
        rig.peer.send(.request(rig.peer.invite(callID: "broken", headers: ["From"])))
        #expect(try await rig.peer.receiveResponse().statusCode == 400)

        // Other methods.
        var options = rig.peer.invite(branch: "z9hG4bK-o", callID: "opt")
        options.method = .options
        options.headers.set(.cseq, "1 OPTIONS")
        rig.peer.send(.request(options))
        #expect(try await rig.peer.receiveResponse().statusCode == 200)
        var message = options
        message.method = "MESSAGE"
        message.headers.set(.cseq, "2 MESSAGE")
        rig.peer.send(.request(message))
        let refused = try await rig.peer.receiveResponse()
        #expect(refused.statusCode == 405 && refused.headers[.allow] == "INVITE, ACK, CANCEL, OPTIONS, BYE")

        // Still listening: a proper INVITE rings.
        rig.peer.send(.request(rig.peer.invite()))
        guard case .incomingContact(let contact) = await rig.host.nextEvent() else {
            Issue.record("expected an incoming contact, got \(rig.host.events)")
            return
        }
        #expect(contact.id == "call-1@peer")
        #expect(rig.host.logRecords.text.contains("not valid SIP"), "\(rig.host.logRecords.text)")
        try await Self.stop(rig)
    }
}
