import ContactCenterSim
import NIOCore
import NIOPosix
import SIPCore
import Synchronization

/// A tiny SIP user agent for the tests: one UDP socket or one TCP connection to the simulator, an inbox
/// of parsed messages, and helpers to register and answer INVITEs. Built on SIPCore, like the real client.
final class TestUserAgent: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private struct Inbox {
        var messages: [SIPMessage] = []
        var pongs = 0
        var closed = false
        var raw: [[UInt8]] = []
    }

    let transport: String
    let channel: any Channel
    let remote: SocketAddress
    private let inbox: Mutex<Inbox>
    private let sequence = Mutex<UInt32>(0)
    let instanceID: String
    let callID: String

    private init(transport: String, channel: any Channel, remote: SocketAddress, inbox: consuming Mutex<Inbox>) {
        self.transport = transport
        self.channel = channel
        self.remote = remote
        self.inbox = inbox
        var identifiers = SIPIdentifiers()
        self.instanceID = identifiers.instanceID()
        self.callID = identifiers.callID()
    }

    static func connect(_ transport: String, to simulator: ContactCenterSimulator) async throws -> TestUserAgent {
        try await self.connect(transport, toPort: simulator.sipPort)
    }

    static func connect(_ transport: String = "udp", toPort port: Int) async throws -> TestUserAgent {
        let box = InboxBox()
        let remote = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        let channel: any Channel
        if transport == "udp" {
            channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(DatagramReader(box: box)) }
                }
                .bind(host: "127.0.0.1", port: 0).get()
        } else {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(StreamReader(box: box)) }
                }
                .connect(to: remote).get()
        }
        let agent = TestUserAgent(transport: transport, channel: channel, remote: remote, inbox: Mutex(Inbox()))
        box.agent.withLock { $0 = agent }
        return agent
    }

    var localPort: Int { self.channel.localAddress?.port ?? 0 }
    var pongs: Int { self.inbox.withLock { $0.pongs } }
    /// Every datagram received (UDP), parsed or not.
    var rawDatagrams: [[UInt8]] { self.inbox.withLock { $0.raw } }
    var isClosed: Bool { self.inbox.withLock { $0.closed } }

    func close() async { try? await self.channel.close() }

    func send(_ bytes: [UInt8]) async throws {
        if self.transport == "udp" {
            try await self.channel.writeAndFlush(AddressedEnvelope(remoteAddress: self.remote, data: ByteBuffer(bytes: bytes)))
        } else {
            try await self.channel.writeAndFlush(ByteBuffer(bytes: bytes))
        }
    }

    /// Takes the first message `match` accepts, waiting up to `timeout`.
    func receive(timeout: Duration = .seconds(60), _ what: String, where match: @escaping @Sendable (SIPMessage) -> Bool) async throws -> SIPMessage {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            let found: SIPMessage? = self.inbox.withLock { inbox in
                guard let index = inbox.messages.firstIndex(where: match) else { return nil }
                return inbox.messages.remove(at: index)
            }
            if let found { return found }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw Failure(description: "no \(what) within \(timeout)")
    }

    /// Waits until `condition` holds.
    func waitUntil(timeout: Duration = .seconds(60), _ what: String, _ condition: @Sendable (TestUserAgent) -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while !condition(self) {
            guard clock.now < deadline else { throw Failure(description: "\(what) did not happen within \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Messages received and not yet taken.
    var pending: [SIPMessage] { self.inbox.withLock { $0.messages } }

    /// A REGISTER for `user` from this agent.
    func registerRequest(
        user: String,
        simulator: ContactCenterSimulator,
        token: String?,
        expires: UInt32 = 600,
        instance: Bool = true,
        outbound: Bool = false
    ) throws -> SIPRequest {
        try self.registerRequest(
            user: user,
            domain: simulator.configuration.domain,
            token: token,
            expires: expires,
            instance: instance,
            outbound: outbound
        )
    }

    func registerRequest(
        user: String,
        domain: String,
        token: String?,
        expires: UInt32 = 600,
        instance: Bool = true,
        outbound: Bool = false
    ) throws -> SIPRequest {
        let registrar = try SIPURI(parsing: "sip:\(domain)")
        var contact = SIPURI(user: user, host: "127.0.0.1", port: self.localPort)
        if self.transport == "tcp" { contact.parameters.set("transport", "tcp") }
        var builder = SIPRegisterBuilder(
            registrar: registrar,
            addressOfRecord: try SIPURI(parsing: "sip:\(user)@\(domain)"),
            contact: contact,
            viaTransport: self.transport,
            viaHost: "127.0.0.1",
            viaPort: self.localPort
        )
        builder.instanceID = instance ? self.instanceID : nil
        builder.outbound = outbound
        var identifiers = SIPIdentifiers()
        let sequence = self.sequence.withLock { value in
            value += 1
            return value
        }
        return builder.request(
            callID: self.callID,
            fromTag: identifiers.tag(),
            sequence: sequence,
            branch: identifiers.branch(),
            expires: expires,
            credentials: token.map { [(.authorization, .bearer($0))] } ?? []
        )
    }

    /// Sends the REGISTER and returns the response to it.
    func register(
        user: String,
        simulator: ContactCenterSimulator,
        token: String?,
        expires: UInt32 = 600,
        instance: Bool = true,
        outbound: Bool = false,
        timeout: Duration = .seconds(60)
    ) async throws -> SIPResponse {
        let request = try self.registerRequest(
            user: user,
            simulator: simulator,
            token: token,
            expires: expires,
            instance: instance,
            outbound: outbound
        )
        return try await self.exchange(request, timeout: timeout)
    }

    /// Sends a request and waits for its final response.
    func exchange(_ request: SIPRequest, timeout: Duration = .seconds(60)) async throws -> SIPResponse {
        let branch = try request.headers.topVia.branch
        try await self.send(request.serialized())
        let message = try await self.receive(timeout: timeout, "response to \(request.method)") { message in
            guard let response = message.response, response.isFinal else { return false }
            return (try? response.headers.topVia.branch) == branch
        }
        guard let response = message.response else { throw Failure(description: "not a response") }
        return response
    }

    /// Waits for a request of this method.
    func receiveRequest(_ method: SIPMethod, timeout: Duration = .seconds(60)) async throws -> SIPRequest {
        let message = try await self.receive(timeout: timeout, "\(method)") { $0.request?.method == method }
        guard let request = message.request else { throw Failure(description: "not a request") }
        return request
    }

    /// Answers a request.
    func answer(_ request: SIPRequest, _ status: Int, toTag: String = "uas1", contact: SIPNameAddress? = nil) async throws {
        try await self.send(SIPResponse.answering(request, statusCode: status, toTag: toTag, contact: contact).serialized())
    }

    fileprivate func deliver(_ message: SIPMessage) { self.inbox.withLock { $0.messages.append(message) } }
    fileprivate func received(raw bytes: [UInt8]) { self.inbox.withLock { $0.raw.append(bytes) } }
    fileprivate func pong() { self.inbox.withLock { $0.pongs += 1 } }
    fileprivate func closed() { self.inbox.withLock { $0.closed = true } }
}

private final class InboxBox: Sendable {
    let agent = Mutex<TestUserAgent?>(nil)
    func deliver(_ message: SIPMessage) { self.agent.withLock { $0 }?.deliver(message) }
}

private final class DatagramReader: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let box: InboxBox
    init(box: InboxBox) { self.box = box }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(self.unwrapInboundIn(data).data.readableBytesView)
        self.box.agent.withLock { $0 }?.received(raw: bytes)
        if let message = try? SIPMessageParser().parse(datagram: bytes) { self.box.deliver(message) }
    }
}

private final class StreamReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let box: InboxBox
    var framer = SIPStreamFramer(role: .client)
    init(box: InboxBox) { self.box = box }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = self.unwrapInboundIn(data)
        guard let items = try? self.framer.receive(buffer.readableBytesView) else { return }
        for item in items {
            switch item {
            case .message(let message): self.box.deliver(message)
            case .keepAlivePong: self.box.agent.withLock { $0 }?.pong()
            case .keepAlivePing: break
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.box.agent.withLock { $0 }?.closed()
    }
}

extension SimSIPMessage {
    /// The simulator's message serialised by its own codec and parsed by the plugin's (`SIPCore`): two
    /// independent implementations must agree on the wire.
    func parsedBySIPCore() throws -> SIPResponse {
        guard case .response(let response) = try SIPMessageParser().parse(datagram: self.serialized) else {
            throw TestUserAgent.Failure(description: "SIPCore read a request where the simulator wrote \(self.startLine)")
        }
        return response
    }
}
