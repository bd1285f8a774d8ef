import NIOCore
import NIOPosix
import SIPCore

/// One flow to the registrar: a connected UDP socket or a TCP connection (RFC 5626's "flow"). Requests
/// to the registrar and the calls it relays back travel on it; everything that arrives is handed to
/// `receive` on the event loop's thread, parsed.
///
/// UDP is connected to the registrar's address, so the socket has a concrete local address for Via and
/// Contact and only the registrar (the proxy every call comes through) can reach it.
final class SIPTransport: Sendable {
    enum Kind: String, Sendable {
        case udp = "UDP"
        case tcp = "TCP"

        /// Reliable transports do without SIP retransmissions.
        var isReliable: Bool { self == .tcp }
    }

    /// What arrives on the flow.
    enum Arrival: Sendable {
        case message(SIPMessage)
        /// A CRLF pong (RFC 5626 section 4.4.1) answering our ping.
        case pong
        /// Bytes that are not SIP; over TCP the connection is closed afterwards.
        case garbage(SIPParseError)
        /// An ICMP error came back for what was sent (UDP): nothing listens at the registrar's address.
        case unreachable(String)
        /// The flow is gone (connection closed, reset, or the socket failed).
        case closed(String)
    }

    let kind: Kind
    let remote: SocketAddress
    let local: SocketAddress
    private let channel: any NIOCore.Channel

    private init(kind: Kind, channel: any NIOCore.Channel, remote: SocketAddress, local: SocketAddress) {
        self.kind = kind
        self.channel = channel
        self.remote = remote
        self.local = local
    }

    /// Opens the flow to `host`:`port`.
    ///
    /// - Throws: ``TransportError`` saying what could not be reached and why.
    static func open(
        _ kind: Kind,
        host: String,
        port: Int,
        connectTimeout: Duration = .seconds(10),
        receive: @escaping @Sendable (Arrival) -> Void
    ) async throws(TransportError) -> SIPTransport {
        let group = MultiThreadedEventLoopGroup.singleton
        let where_ = "\(host):\(port) over \(kind.rawValue)"
        do {
            let channel: any NIOCore.Channel
            switch kind {
            case .udp:
                channel = try await DatagramBootstrap(group: group)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(DatagramHandler(receive: receive))
                        }
                    }
                    .connect(host: host, port: port)
                    .get()
            case .tcp:
                channel = try await ClientBootstrap(group: group)
                    .connectTimeout(.seconds(connectTimeout.components.seconds))
                    .channelOption(.socketOption(.so_keepalive), value: 1)
                    .channelOption(.socketOption(.tcp_nodelay), value: 1)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(StreamHandler(receive: receive))
                        }
                    }
                    .connect(host: host, port: port)
                    .get()
            }
            guard let remote = channel.remoteAddress, let local = channel.localAddress else {
                channel.close(promise: nil)
                throw TransportError("cannot reach the registrar at \(where_): the socket has no address")
            }
            return SIPTransport(kind: kind, channel: channel, remote: remote, local: local)
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError("cannot reach the registrar at \(where_): \(Self.describe(error))")
        }
    }

    /// The local address as it goes into Via and Contact.
    var localHost: String { self.local.ipAddress ?? "127.0.0.1" }
    var localPort: Int { self.local.port ?? 0 }

    /// Sends a message on the flow. Failures show up as ``Arrival/closed(_:)`` (TCP) or are absorbed by
    /// SIP's retransmissions (UDP).
    func send(_ message: SIPMessage) {
        self.write(message.serialized())
    }

    /// Sends an RFC 5626 CRLFCRLF ping (TCP only).
    func ping() {
        self.write(SIPStreamFramer.ping)
    }

    private func write(_ bytes: [UInt8]) {
        let buffer = self.channel.allocator.buffer(bytes: bytes)
        switch self.kind {
        case .udp:
            self.channel.writeAndFlush(AddressedEnvelope(remoteAddress: self.remote, data: buffer), promise: nil)
        case .tcp:
            self.channel.writeAndFlush(buffer, promise: nil)
        }
    }

    /// Closes the flow; no ``Arrival/closed(_:)`` is reported for a close asked for here.
    func close() async {
        try? await self.channel.close()
    }

    func closeNow() {
        self.channel.close(promise: nil)
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first { return Self.describe(first.error) }
            if let resolution = error.dnsAAAAError ?? error.dnsAError { return "the name did not resolve (\(resolution))" }
            return "the connection failed"
        case let error as IOError:
            return error.description
        case NIOCore.ChannelError.connectTimeout:
            return "no answer to the connection attempt"
        default:
            return "\(error)"
        }
    }
}

/// A transport failure, with a message for the user.
struct TransportError: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Handlers

/// Parses each datagram as one SIP message (RFC 3261 section 18.3: no framing over UDP). Stray CRLFs
/// (NAT keep-alives) are ignored.
private final class DatagramHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let receive: @Sendable (SIPTransport.Arrival) -> Void
    private let parser = SIPMessageParser()

    init(receive: @escaping @Sendable (SIPTransport.Arrival) -> Void) {
        self.receive = receive
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = Self.unwrapInboundIn(data)
        let bytes = Array(envelope.data.readableBytesView)
        if bytes.allSatisfy({ $0 == 13 || $0 == 10 }) { return }
        do throws(SIPParseError) {
            self.receive(.message(try self.parser.parse(datagram: bytes)))
        } catch {
            self.receive(.garbage(error))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // On a connected socket, ICMP port unreachable comes back as ECONNREFUSED: the registrar is not
        // there (any more). The socket stays usable; the channel decides what it means.
        self.receive(.unreachable(SIPTransport.describe(error)))
    }
}

/// Frames the byte stream into SIP messages and keep-alives (RFC 3261 section 18.3, RFC 5626).
private final class StreamHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let receive: @Sendable (SIPTransport.Arrival) -> Void
    private var framer = SIPStreamFramer(role: .client)
    private var reported = false

    init(receive: @escaping @Sendable (SIPTransport.Arrival) -> Void) {
        self.receive = receive
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = Self.unwrapInboundIn(data)
        do throws(SIPParseError) {
            for item in try self.framer.receive(buffer.readableBytesView) {
                switch item {
                case .message(let message): self.receive(.message(message))
                case .keepAlivePong: self.receive(.pong)
                case .keepAlivePing: context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: SIPStreamFramer.pong)), promise: nil)
                }
            }
        } catch {
            // A stream that lost its framing cannot be resynchronised: report and drop the connection.
            self.receive(.garbage(error))
            self.report("the registrar sent bytes that are not SIP (\(error)); connection closed")
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.report("the registrar closed the connection")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.report("the connection to the registrar failed: \(SIPTransport.describe(error))")
        context.close(promise: nil)
    }

    private func report(_ reason: String) {
        guard !self.reported else { return }
        self.reported = true
        self.receive(.closed(reason))
    }
}
