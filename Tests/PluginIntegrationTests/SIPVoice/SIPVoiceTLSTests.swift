import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import SIPCore
import Synchronization
import TestSupport
import Testing

/// SIP over TLS (RFC 3261 section 26.2, RFC 5630): the channel registers over a TLS stream the host lends
/// it, verified by the channel's one TLS policy (the system's trust store and `tls-ca-file`, or nothing
/// with `tls-verify = false`); Via says TLS, Contact says `transport=tls` (or is `sips:`), RFC 5626
/// keep-alives and calls arrive on the flow; and a certificate that does not verify is a configuration
/// failure that names the registrar and the reason, with nothing sent to it.
@Suite(.timeLimit(.minutes(2))) struct SIPVoiceTLSTests {
    static let token = ChannelToken(value: "header.payload.signature-one", expiresAt: nil)

    struct Rig {
        let host: InMemoryChannelHost
        let channel: any AttendantPluginAPI.Channel
    }

    /// The incoming contact the host heard, waiting (bounded) for it.
    static func incomingContact(_ rig: Rig, within seconds: Double = 30) async throws -> Contact {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            for case .incomingContact(let contact) in rig.host.events { return contact }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TLSTestError("no incoming contact within \(seconds) s; heard \(rig.host.events); log: \(rig.host.logRecords.text)")
    }

    static func rig(registrar: String, tls: TLSPolicy) throws -> Rig {
        let host = InMemoryChannelHost(
            channelName: "phone",
            token: Self.token,
            network: HostNetwork(tls: tls, logger: Logger(label: "test.network")),
            hashing: HostHashing()
        )
        let settings = ChannelSettings([
            "registrar": .string(registrar),
            "address-of-record": .string("sip:alice@example.org"),
            "softphone-contact": .string("<sip:softphone@127.0.0.1:5099>"),
        ])
        let channel = try SIPVoicePlugin.factory.makeChannel(settings: settings, host: host)
        return Rig(host: host, channel: channel)
    }

    /// The policy that trusts `authority` beside the system's store, as `tls-ca-file` makes it.
    static func trusting(_ authority: TestCertificateAuthority) throws -> TLSPolicy {
        TLSPolicy(authorities: try NIOSSLCertificate.fromPEMFile(authority.certificateFile), authoritiesFile: authority.certificateFile)
    }

    @Test(arguments: [
        ("sip:127.0.0.1:PORT;transport=tls", "sip:alice@127.0.0.1:LOCAL;transport=tls"), ("sips:127.0.0.1:PORT", "sips:alice@127.0.0.1:LOCAL"),
    ])
    func registersKeepsTheFlowAliveAndRingsOverTLS(registrar: String, contact: String) async throws {
        let authority = try await TestCertificateAuthority("Attendant Test PBX CA")
        let server = try await TLSRegistrar.start(authority.issue("pbx", names: ["IP:127.0.0.1"]))
        defer { Task { await server.stop() } }
        let rig = try Self.rig(registrar: registrar.replacingOccurrences(of: "PORT", with: "\(server.port)"), tls: Self.trusting(authority))

        let listening = Task { try await rig.channel.listen() }
        let register = try await Self.firstRegister(server, listening)
        let local = try #require(await server.peerPort())
        #expect(register.headers[.via]?.hasPrefix("SIP/2.0/TLS 127.0.0.1:\(local);") == true, "\(register.headers[.via] ?? "")")
        let registered = try #require(try register.headers.contacts.first)
        #expect(registered.uri.description == contact.replacingOccurrences(of: "LOCAL", with: "\(local)"))
        #expect(registered.parameters["reg-id"] == "1")
        #expect(register.uri.scheme == (registrar.hasPrefix("sips:") ? "sips" : "sip"))
        var granted = registered
        granted.parameters.set("expires", "600")
        var extra = SIPHeaders()
        extra.add(.require, "outbound")
        extra.add(.flowTimer, "30")
        server.send(.response(.answering(register, statusCode: 200, toTag: "pbx1", contact: granted, extraHeaders: extra)))
        try await listening.value

        // RFC 5626 section 4.4.1: CRLFCRLF on the TLS flow within the Flow-Timer; the registrar's CRLF pong keeps it.
        // The ping is due 80 to 100 % of the Flow-Timer after the 200 (SIPOutbound): the one timer in that span.
        let clock = rig.host.manualClock
        let (earliest, latest) = (clock.now.advanced(by: .seconds(24)), clock.now.advanced(by: .seconds(30)))
        await clock.waitForSleepers { deadlines in deadlines.contains { $0 >= earliest && $0 <= latest } }
        clock.advance(by: .seconds(31))
        #expect(try await Self.step("the keep-alive ping") { try await server.nextPing() })

        // A call on the flow rings: 180 back over TLS, an incoming contact for the host.
        server.send(.request(Self.invite(local: local)))
        let ringing = try await Self.step("the INVITE's 180") { try await server.response() }
        #expect(ringing.statusCode == 180)
        let contactEvent = try await Self.incomingContact(rig)
        #expect(contactEvent.id == "tls-call-1")

        let stopped = Task { await rig.channel.stopListening() }
        let unregister = try await Self.step(
            "the unregistering REGISTER",
            context: "received: \(server.received)\nevents: \(rig.host.events)\nlog: \(rig.host.logRecords.text)"
        ) { try await server.request(.register) }
        server.send(.response(.answering(unregister, statusCode: 200, toTag: "pbx1")))
        await stopped.value
    }

    @Test func aCertificateFromAnotherCAIsAConfigurationFailureThatNamesTheRegistrarAndWhy() async throws {
        let trusted = try await TestCertificateAuthority("Attendant Test PBX CA")
        let other = try await TestCertificateAuthority("Somebody Else's CA")
        let server = try await TLSRegistrar.start(other.issue("pbx", names: ["IP:127.0.0.1"]))
        defer { Task { await server.stop() } }
        let rig = try Self.rig(registrar: "sip:127.0.0.1:\(server.port);transport=tls", tls: Self.trusting(trusted))
        let refused = try await Self.refusal(rig)
        #expect(refused.code == .configuration, "\(refused.message)")
        let message = refused.message
        #expect(message.contains("the registrar at 127.0.0.1:\(server.port) cannot be used over TLS"), "\(message)")
        #expect(
            message.contains(
                "does not verify: it is not issued by a CA this channel trusts (the system's trust store and tls-ca-file \(trusted.certificateFile))"
            ),
            "\(message)"
        )
        #expect(message.contains("set tls-ca-file"), "\(message)")
        #expect(server.received.isEmpty)
    }

    @Test func aCertificateForAnotherNameIsRefused() async throws {
        let authority = try await TestCertificateAuthority("Attendant Test PBX CA")
        let server = try await TLSRegistrar.start(authority.issue("pbx", names: ["DNS:pbx.example.org"]))
        defer { Task { await server.stop() } }
        let rig = try Self.rig(registrar: "sip:127.0.0.1:\(server.port);transport=tls", tls: Self.trusting(authority))
        let refused = try await Self.refusal(rig)
        #expect(refused.code == .configuration)
        #expect(refused.message.contains("is not for 127.0.0.1"), "\(refused.message)")
    }

    @Test func withoutVerificationAnyCertificateIsTaken() async throws {
        let other = try await TestCertificateAuthority("Somebody Else's CA")
        let server = try await TLSRegistrar.start(other.issue("pbx", names: ["DNS:pbx.example.org"]))
        defer { Task { await server.stop() } }
        let rig = try Self.rig(registrar: "sip:127.0.0.1:\(server.port);transport=tls", tls: TLSPolicy(verifies: false))
        let listening = Task { try await rig.channel.listen() }
        let register = try await Self.firstRegister(server, listening)
        var granted = try #require(try register.headers.contacts.first)
        granted.parameters.set("expires", "600")
        server.send(.response(.answering(register, statusCode: 200, toTag: "pbx1", contact: granted)))
        try await listening.value
        let stopped = Task { await rig.channel.stopListening() }
        let unregister = try await server.request(.register)
        server.send(.response(.answering(unregister, statusCode: 200, toTag: "pbx1")))
        await stopped.value
    }

    /// What `body` waits for, or an error naming it, with `context` (the channel's log, say).
    static func step<T>(_ name: String, context: @autoclosure () -> String = "", _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw FixtureError("\(name): \(error)\n\(context())")
        }
    }

    /// The first REGISTER; if none comes, why `listen()` failed.
    static func firstRegister(_ server: TLSRegistrar, _ listening: Task<Void, any Error>) async throws -> SIPRequest {
        do {
            return try await server.request(.register)
        } catch {
            listening.cancel()
            if case .failure(let failure) = await listening.result { throw FixtureError("no REGISTER: \(failure)") }
            throw error
        }
    }

    /// The error `listen()` fails with.
    static func refusal(_ rig: Rig) async throws -> AttendantPluginAPI.ChannelError {
        do {
            try await rig.channel.listen()
        } catch let error as AttendantPluginAPI.ChannelError {
            return error
        }
        throw FixtureError("the channel listened")
    }

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

/// A registrar that speaks TLS on a loopback port with a certificate of the test's making: it frames
/// what arrives on the one connection it takes (RFC 3261 section 18.3), answers CRLFCRLF pings with a
/// CRLF pong (RFC 5626 section 4.4.1), and sends what the test gives it.
final class TLSRegistrar: Sendable {
    enum Item: Sendable {
        case message(SIPMessage)
        case ping
    }

    private let listener: any NIOCore.Channel
    private let connection = Mutex<(any NIOCore.Channel)?>(nil)
    private let items = Recorder<Item>()
    let port: Int

    private init(listener: any NIOCore.Channel) {
        self.listener = listener
        self.port = listener.localAddress?.port ?? 0
    }

    static func start(_ identity: (certificate: String, key: String)) async throws -> TLSRegistrar {
        let context = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(identity.certificate).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: identity.key, format: .pem))
            )
        )
        let box = Mutex<TLSRegistrar?>(nil)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    guard let registrar = box.withLock({ $0 }) else { throw NIOCore.ChannelError.ioOnClosedChannel }
                    registrar.connection.withLock { $0 = child }
                    try child.pipeline.syncOperations.addHandlers(NIOSSLServerHandler(context: context), Framing(registrar: registrar))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let registrar = TLSRegistrar(listener: listener)
        box.withLock { $0 = registrar }
        return registrar
    }

    /// Everything received so far.
    var received: [Item] { self.items.all }

    /// The connected channel's port, once it has connected.
    func peerPort() async -> Int? { self.connection.withLock { $0?.remoteAddress?.port } }

    func request(_ method: SIPMethod) async throws -> SIPRequest {
        while true {
            if case .message(.request(let request)) = try await self.items.next(), request.method == method { return request }
        }
    }

    func response() async throws -> SIPResponse {
        while true {
            if case .message(.response(let response)) = try await self.items.next() { return response }
        }
    }

    func nextPing() async throws -> Bool {
        while true {
            if case .ping = try await self.items.next() { return true }
        }
    }

    func send(_ message: SIPMessage) {
        guard let channel = self.connection.withLock({ $0 }) else { return }
        channel.writeAndFlush(ByteBuffer(bytes: message.serialized()), promise: nil)
    }

    func stop() async {
        try? await self.connection.withLock({ $0 })?.close()
        try? await self.listener.close()
    }

    fileprivate func add(_ item: Item) { self.items.add(item) }

    private final class Framing: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        private let registrar: TLSRegistrar
        private var framer = SIPStreamFramer(role: .server)

        init(registrar: TLSRegistrar) { self.registrar = registrar }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard let items = try? self.framer.receive(Array(Self.unwrapInboundIn(data).readableBytesView)) else {
                context.close(promise: nil)
                return
            }
            for item in items {
                switch item {
                case .message(let message): self.registrar.add(.message(message))
                case .keepAlivePing:
                    self.registrar.add(.ping)
                    context.writeAndFlush(Self.wrapOutboundOut(ByteBuffer(bytes: SIPStreamFramer.pong)), promise: nil)
                case .keepAlivePong: break
                }
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}

struct TLSTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
