import NIOCore
import NIOPosix
import SIPCore

/// One flow to the registrar (RFC 5626's "flow": a connected UDP socket or a TCP connection), and the
/// socket that receives requests for the registered Contact from anywhere else. Everything that arrives
/// is handed to `receive` on the event loop's thread, parsed, with where it came from.
///
/// - UDP: the flow is a socket connected to the registrar, so an ICMP "port unreachable" fails a REGISTER
///   at once; beside it an unconnected socket bound to the same local address and port (both with
///   `SO_REUSEADDR`: the kernel gives the registrar's datagrams to the connected one and the rest to the
///   other) receives requests from any source, as RFC 3261 lets a proxy reach a Contact from anywhere.
///   Both sockets have a receive buffer sized for bursts of INVITEs and read whole datagrams up to the
///   UDP maximum.
/// - TCP: the transport also listens on the flow's local address and port, which is what the Contact
///   names: without RFC 5626 outbound (not asked for, or not granted by the registrar) a proxy opens a
///   new connection to the Contact (RFC 3261 section 18.2.2); with it, calls come back on the flow.
final class SIPTransport: Sendable {
    enum Kind: String, Sendable {
        case udp = "UDP"
        case tcp = "TCP"

        /// Reliable transports do without SIP retransmissions.
        var isReliable: Bool { self == .tcp }
    }

    /// Where a request came from, and so where its responses go (RFC 3261 section 18.2.2).
    struct Origin: Sendable, CustomStringConvertible {
        enum Path: Sendable {
            /// The flow to the registrar.
            case flow
            /// A datagram address (the request's source, or its Via's sent-by port without `rport`).
            case datagram(SocketAddress)
            /// An inbound TCP connection.
            case connection(any NIOCore.Channel)
        }

        let path: Path
        /// The source, `host:port over UDP`, for messages.
        let description: String
    }

    /// What arrives.
    enum Arrival: Sendable {
        case message(SIPMessage, Origin)
        /// A CRLF pong (RFC 5626 section 4.4.1) answering our ping.
        case pong
        /// Bytes from `from` that are not SIP; `closed` when that inbound connection was closed for it
        /// (over the flow's TCP connection the flow is closed and reported with ``closed(_:)``).
        case garbage(SIPParseError, from: String, closed: Bool)
        /// A datagram that filled the whole receive buffer, so it may have been cut short.
        case truncated(from: String, size: Int)
        /// An ICMP error came back for what was sent (UDP): nothing listens at the registrar's address.
        case unreachable(String)
        /// The flow is gone (connection closed, reset, or the socket failed).
        case closed(String)
    }

    /// The largest datagram read: the UDP maximum over IPv4 (65,507 bytes) and IPv6 (65,527) fits.
    static let datagramCapacity = 65_536
    /// The receive buffer asked for (`SO_RCVBUF`; the kernel caps it at `net.core.rmem_max`): room for
    /// hundreds of INVITEs that arrive back to back while earlier ones are handled.
    static let receiveBufferSize = 4 << 20
    /// Datagrams read per wake-up of the event loop.
    static let messagesPerRead: UInt = 64

    let kind: Kind
    let remote: SocketAddress
    let local: SocketAddress
    private let channel: any NIOCore.Channel
    /// UDP: the unconnected socket on the same port; TCP without outbound: the listening socket.
    private let listener: (any NIOCore.Channel)?
    private let connections: InboundConnections

    private init(kind: Kind, channel: any NIOCore.Channel, listener: (any NIOCore.Channel)?, connections: InboundConnections) throws(TransportError) {
        guard let remote = channel.remoteAddress, let local = channel.localAddress else {
            channel.close(promise: nil)
            throw TransportError("the socket has no address")
        }
        self.kind = kind
        self.channel = channel
        self.listener = listener
        self.connections = connections
        self.remote = remote
        self.local = local
    }

    /// Opens the flow to `host`:`port`, and the socket that takes requests from elsewhere (UDP, and TCP
    /// when `listen` is set).
    ///
    /// - Throws: ``TransportError`` saying what could not be reached or bound, and why.
    static func open(
        _ kind: Kind,
        host: String,
        port: Int,
        listen: Bool = true,
        connectTimeout: Duration = .seconds(10),
        receive: @escaping @Sendable (Arrival) -> Void
    ) async throws(TransportError) -> SIPTransport {
        let group = MultiThreadedEventLoopGroup.singleton
        let where_ = "\(host):\(port) over \(kind.rawValue)"
        let connections = InboundConnections()
        if kind == .tcp && listen {
            return try await Self.openListeningStream(host: host, port: port, connectTimeout: connectTimeout, group: group, connections: connections, receive: receive)
        }
        let channel: any NIOCore.Channel
        do {
            switch kind {
            case .udp:
                channel = try await Self.datagramBootstrap(group, flow: true, receive: receive).connect(host: host, port: port).get()
            case .tcp:
                channel = try await Self.streamBootstrap(group, connectTimeout: connectTimeout, receive: receive).connect(host: host, port: port).get()
            }
        } catch {
            throw TransportError("cannot reach the registrar at \(where_): \(Self.describe(error))")
        }
        guard let local = channel.localAddress else {
            channel.close(promise: nil)
            throw TransportError("cannot reach the registrar at \(where_): the socket has no address")
        }
        var listener: (any NIOCore.Channel)?
        if kind == .udp {
            do {
                listener = try await Self.bindListener(kind, at: local, group: group, connections: connections, receive: receive)
            } catch {
                channel.close(promise: nil)
                let address = "\(local.ipAddress ?? "?"):\(local.port ?? 0)"
                throw TransportError("cannot receive calls at \(address) over \(kind.rawValue) (the Contact registered with \(where_)): \(Self.describe(error))")
            }
        }
        do {
            return try SIPTransport(kind: kind, channel: channel, listener: listener, connections: connections)
        } catch {
            listener?.close(promise: nil)
            throw TransportError("cannot reach the registrar at \(where_): \(error)")
        }
    }

    /// TCP with a listener on the flow's own address and port. The listener is bound first, to a port
    /// the kernel picks for it alone, and the connection then goes out from that port (both sockets with
    /// `SO_REUSEPORT`). The other order fails whenever `connect()` picks a port that other connections
    /// of the machine already use (it shares ports between connections to different peers), which on a
    /// busy machine is often: then no listener can be bound to it.
    private static func openListeningStream(
        host: String,
        port: Int,
        connectTimeout: Duration,
        group: MultiThreadedEventLoopGroup,
        connections: InboundConnections,
        receive: @escaping @Sendable (Arrival) -> Void
    ) async throws(TransportError) -> SIPTransport {
        let where_ = "\(host):\(port) over TCP"
        // Which local address reaches the registrar: a connected UDP socket asks the routing table
        // (nothing is sent).
        let remote: SocketAddress
        let localIP: String
        do {
            let probe = try await DatagramBootstrap(group: group).connect(host: host, port: port).get()
            defer { probe.close(promise: nil) }
            guard let address = probe.remoteAddress, let ip = probe.localAddress?.ipAddress else {
                throw TransportError("the socket has no address")
            }
            remote = address
            localIP = ip
        } catch {
            throw TransportError("cannot reach the registrar at \(where_): \(Self.describe(error))")
        }
        let listener: any NIOCore.Channel
        do {
            listener = try await Self.bindListener(.tcp, at: try SocketAddress(ipAddress: localIP, port: 0), group: group, connections: connections, receive: receive)
        } catch {
            throw TransportError("cannot receive calls at \(localIP) over TCP (the Contact registered with \(where_)): \(Self.describe(error))")
        }
        let channel: any NIOCore.Channel
        do {
            let local = try SocketAddress(ipAddress: localIP, port: listener.localAddress?.port ?? 0)
            channel = try await Self.streamBootstrap(group, connectTimeout: connectTimeout, receive: receive).bind(to: local).connect(to: remote).get()
        } catch {
            listener.close(promise: nil)
            throw TransportError("cannot reach the registrar at \(where_): \(Self.describe(error))")
        }
        do {
            return try SIPTransport(kind: .tcp, channel: channel, listener: listener, connections: connections)
        } catch {
            listener.close(promise: nil)
            throw TransportError("cannot reach the registrar at \(where_): \(error)")
        }
    }

    private static func streamBootstrap(_ group: MultiThreadedEventLoopGroup, connectTimeout: Duration, receive: @escaping @Sendable (Arrival) -> Void) -> ClientBootstrap {
        ClientBootstrap(group: group)
            .connectTimeout(.seconds(connectTimeout.components.seconds))
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(Self.reusePort, value: 1)
            .channelOption(.socketOption(.so_keepalive), value: 1)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(StreamHandler(receive: receive, inbound: nil))
                }
            }
    }

    /// `SO_REUSEPORT` (Linux: 15), which NIO does not name.
    private static let reusePort = ChannelOptions.Types.SocketOption(level: .socket, name: .init(rawValue: 15))

    private static func datagramBootstrap(_ group: MultiThreadedEventLoopGroup, flow: Bool, receive: @escaping @Sendable (Arrival) -> Void) -> DatagramBootstrap {
        DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(Self.receiveBufferSize))
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.datagramCapacity))
            .channelOption(.maxMessagesPerRead, value: Self.messagesPerRead)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DatagramHandler(receive: receive, flow: flow))
                }
            }
    }

    private static func bindListener(
        _ kind: Kind,
        at local: SocketAddress,
        group: MultiThreadedEventLoopGroup,
        connections: InboundConnections,
        receive: @escaping @Sendable (Arrival) -> Void
    ) async throws -> any NIOCore.Channel {
        switch kind {
        case .udp:
            return try await Self.datagramBootstrap(group, flow: false, receive: receive).bind(to: local).get()
        case .tcp:
            return try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelOption(Self.reusePort, value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { child in
                    child.eventLoop.makeCompletedFuture {
                        connections.insert(child)
                        let peer = "\(child.remoteAddress?.ipAddress ?? "?"):\(child.remoteAddress?.port ?? 0) over TCP"
                        try child.pipeline.syncOperations.addHandler(StreamHandler(receive: receive, inbound: peer))
                    }
                }
                .bind(to: local)
                .get()
        }
    }

    /// The local address as it goes into Via and Contact.
    var localHost: String { self.local.ipAddress ?? "127.0.0.1" }
    var localPort: Int { self.local.port ?? 0 }

    /// Sends a message on the flow, or (a response) where its request came from. Failures show up as
    /// ``Arrival/closed(_:)`` (the flow over TCP) or are absorbed by SIP's retransmissions (UDP).
    func send(_ message: SIPMessage, to origin: Origin? = nil) {
        let bytes = message.serialized()
        switch origin?.path {
        case nil, .flow?:
            self.write(bytes)
        case .datagram(let address)?:
            // The connected socket sends only to the registrar; the unconnected one to anyone.
            let socket = address == self.remote ? self.channel : (self.listener ?? self.channel)
            socket.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: socket.allocator.buffer(bytes: bytes)), promise: nil)
        case .connection(let connection)?:
            connection.writeAndFlush(connection.allocator.buffer(bytes: bytes), promise: nil)
        }
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

    /// Closes the flow, the listener and inbound connections; no ``Arrival/closed(_:)`` is reported for a
    /// close asked for here.
    func close() async {
        try? await self.listener?.close()
        self.connections.closeAll()
        try? await self.channel.close()
    }

    func closeNow() {
        self.listener?.close(promise: nil)
        self.connections.closeAll()
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
