import AttendantPluginAPI
import AttendantPluginTestKit
import SIPCore
import TestSupport
import Testing

/// SIP over a TLS stream the host lends (RFC 3261 section 26.2, RFC 5626), on the test kit's network: the
/// channel asks for TLS to the registrar's name, registers on the flow, keeps it alive with CRLFCRLF,
/// rings for a call that comes back on it, and takes a certificate that does not verify as a
/// configuration failure. (The handshake itself, with a real certificate: SIPVoiceTLSTests in
/// PluginIntegrationTests.)
@Suite(.timeLimit(.minutes(2))) struct SIPVoiceStreamTests {
    static func rig(registrar: String) throws -> (host: InMemoryChannelHost, channel: any Channel) {
        let host = InMemoryChannelHost(channelName: "phone", token: SIPVoiceChannelTests.token)
        let settings = ChannelSettings([
            "registrar": .string(registrar),
            "address-of-record": .string("sip:alice@example.org"),
            "softphone-contact": .string("<sip:softphone@127.0.0.1:5099>"),
        ])
        return (host, try SIPVoicePlugin.factory.makeChannel(settings: settings, host: host))
    }

    @Test func registersKeepsTheFlowAliveAndRingsOverTLS() async throws {
        let (host, channel) = try Self.rig(registrar: "sips:127.0.0.1:5061")
        let listening = Task { try await channel.listen() }
        let flow = try await host.inMemoryNetwork.nextStreamFlow()
        #expect(flow.remote == NetworkAddress(ip: "127.0.0.1", port: 5061))
        #expect(flow.options.tls == StreamTLS(serverName: "127.0.0.1") && !flow.options.listen)
        let registrar = StreamRegistrar(flow.connection)

        guard case .message(.request(let register)) = try await registrar.next() else {
            Issue.record("expected a REGISTER: \(flow.connection.writtenText)")
            listening.cancel()
            return
        }
        #expect(register.method == .register && register.uri.scheme == "sips")
        #expect(register.headers[.via]?.hasPrefix("SIP/2.0/TLS 127.0.0.1:\(flow.local.port);") == true, "\(register.headers[.via] ?? "")")
        var granted = try #require(try register.headers.contacts.first)
        #expect(granted.uri.description == "sips:alice@127.0.0.1:\(flow.local.port)")
        granted.parameters.set("expires", "600")
        var extra = SIPHeaders()
        extra.add(.require, "outbound")
        extra.add(.flowTimer, "30")
        registrar.send(.response(.answering(register, statusCode: 200, toTag: "pbx1", contact: granted, extraHeaders: extra)))
        try await listening.value

        // RFC 5626 section 4.4.1: CRLFCRLF within the Flow-Timer, due 80 to 100 % of it after the 200.
        let clock = host.manualClock
        let (earliest, latest) = (clock.now.advanced(by: .seconds(24)), clock.now.advanced(by: .seconds(30)))
        await clock.waitForSleepers { deadlines in deadlines.contains { $0 >= earliest && $0 <= latest } }
        clock.advance(by: .seconds(31))
        #expect(try await registrar.next() == .keepAlivePing)
        registrar.deliver("\r\n")

        registrar.send(.request(SIPVoiceTLSCall.invite(local: flow.local.port)))
        guard case .message(.response(let ringing)) = try await registrar.next() else {
            Issue.record("expected the 180: \(flow.connection.writtenText)")
            return
        }
        #expect(ringing.statusCode == 180)
        guard case .incomingContact(let contact) = await host.nextEvent() else {
            Issue.record("expected an incoming contact: \(host.events)")
            return
        }
        #expect(contact.id == "tls-call-1")

        // Stopping ends the ringing call (480) and then the registration (Expires: 0).
        let stopped = Task { await channel.stopListening() }
        guard case .message(.response(let ended)) = try await registrar.next() else {
            Issue.record("expected the call's final answer")
            return
        }
        #expect(ended.statusCode == 480)
        let item = try await registrar.next()
        guard case .message(.request(let unregister)) = item else {
            Issue.record("expected the unregistering REGISTER, got \(item)")
            return
        }
        #expect(try unregister.headers.expires == 0)
        registrar.send(.response(.answering(unregister, statusCode: 200, toTag: "pbx1")))
        await stopped.value
    }

    /// Found by Fuzz/SIPParser once its stream passes had to agree: the framer threw away the messages it
    /// had read from a chunk when a later part of the same chunk broke the framing. An INVITE followed in
    /// one read by bytes that are not SIP was a call never alerted.
    @Test func anInviteBeforeBytesThatBreakTheFramingInTheSameReadStillRings() async throws {
        let (host, channel) = try Self.rig(registrar: "sips:127.0.0.1:5061")
        let listening = Task { try await channel.listen() }
        let flow = try await host.inMemoryNetwork.nextStreamFlow()
        let registrar = StreamRegistrar(flow.connection)
        guard case .message(.request(let register)) = try await registrar.next() else {
            Issue.record("expected a REGISTER: \(flow.connection.writtenText)")
            listening.cancel()
            return
        }
        var granted = try #require(try register.headers.contacts.first)
        granted.parameters.set("expires", "600")
        registrar.send(.response(.answering(register, statusCode: 200, toTag: "pbx1", contact: granted)))
        try await listening.value

        let invite = SIPMessage.request(SIPVoiceTLSCall.invite(local: flow.local.port)).serialized()
        flow.connection.deliver(invite + Array("\r\nnot SIP at all\r\n\r\n".utf8))
        guard case .incomingContact(let contact) = await host.nextEvent() else {
            Issue.record("expected an incoming contact: \(host.events)")
            return
        }
        #expect(contact.id == "tls-call-1")
        await channel.stopListening()
    }

    @Test func aCertificateThatDoesNotVerifyIsAConfigurationFailureThatNamesTheRegistrar() async throws {
        let (host, channel) = try Self.rig(registrar: "sip:127.0.0.1:5061;transport=tls")
        host.inMemoryNetwork.refuseFlows(
            to: "127.0.0.1",
            port: 5061,
            with: NetworkError(.certificate, "the certificate of 127.0.0.1 does not verify: it is not issued by a CA this channel trusts")
        )
        let refused = await #expect(throws: ChannelError.self) { try await channel.listen() }
        #expect(refused?.code == .configuration, "\(String(describing: refused))")
        #expect(refused?.message.contains("the registrar at 127.0.0.1:5061 cannot be used over TLS") == true, "\(String(describing: refused))")
        #expect(refused?.message.contains("set tls-ca-file") == true)
        #expect(host.inMemoryNetwork.streamFlows.isEmpty)
    }
}

/// The registrar's end of the channel's TLS stream: SIP framed as RFC 3261 section 18.3 says, and CRLF
/// keep-alives.
final class StreamRegistrar: Sendable {
    let connection: StreamPeer
    private let framer = Locked(SIPStreamFramer(role: .server))

    init(_ connection: StreamPeer) { self.connection = connection }

    /// The next message or ping the channel wrote (bounded wait).
    func next() async throws -> SIPStreamFramer.Item {
        while true {
            if let item = try self.framer.withLock({ framer in try framer.next() }) { return item }
            let bytes = try await self.connection.nextWrite()
            self.framer.withLock { $0.append(bytes) }
        }
    }

    func send(_ message: SIPMessage) { self.connection.deliver(message.serialized()) }

    func deliver(_ text: String) { self.connection.deliver(text: text) }
}

/// A call that a registrar relays on the channel's TLS flow.
enum SIPVoiceTLSCall {
    static func invite(local: Int) -> SIPRequest {
        var headers = SIPHeaders()
        headers.add(.via, "SIP/2.0/TLS 127.0.0.1:5061;branch=z9hG4bK-tls-1")
        headers.add(.maxForwards, "70")
        headers.add(.from, "\"Ada Lovelace\" <sip:ada@example.org>;tag=ada1")
        headers.add(.to, "<sip:alice@example.org>")
        headers.add(.callID, "tls-call-1")
        headers.add(.cseq, "1 INVITE")
        headers.add(.contact, "<sip:ada@127.0.0.1:5061;transport=tls>")
        return SIPRequest(method: .invite, uri: try! SIPURI(parsing: "sip:alice@127.0.0.1:\(local);transport=tls"), headers: headers)
    }
}
