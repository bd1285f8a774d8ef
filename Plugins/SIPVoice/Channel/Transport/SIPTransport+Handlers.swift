import NIOCore
import SIPCore
import Synchronization

/// Parses each datagram as one SIP message (RFC 3261 section 18.3: no framing over UDP). Stray CRLFs
/// (NAT keep-alives) are ignored. A request's responses go where RFC 3261 section 18.2.2 says: to its
/// source with `rport` (RFC 3581), else to the source address at the port in the top Via's sent-by.
final class DatagramHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let receive: @Sendable (SIPTransport.Arrival) -> Void
    private let parser = SIPMessageParser()
    /// The socket connected to the registrar: its errors are ICMP errors for what was sent to it.
    private let flow: Bool

    init(receive: @escaping @Sendable (SIPTransport.Arrival) -> Void, flow: Bool) {
        self.receive = receive
        self.flow = flow
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = Self.unwrapInboundIn(data)
        let source = envelope.remoteAddress
        let bytes = Array(envelope.data.readableBytesView)
        if bytes.allSatisfy({ $0 == 13 || $0 == 10 }) { return }
        let from = "\(source.ipAddress ?? "?"):\(source.port ?? 0) over UDP"
        guard bytes.count < SIPTransport.datagramCapacity else {
            self.receive(.truncated(from: from, size: bytes.count))
            return
        }
        let message: SIPMessage
        do throws(SIPParseError) {
            message = try self.parser.parse(datagram: bytes)
        } catch {
            self.receive(.garbage(error, from: from, closed: false))
            return
        }
        var destination = source
        if case .request(let request) = message, let via = try? request.headers.topVia, !via.hasRPort, let ip = source.ipAddress,
            let address = try? SocketAddress(ipAddress: ip, port: via.port ?? 5060)
        {
            destination = address
        }
        self.receive(.message(message, SIPTransport.Origin(path: .datagram(destination), description: from)))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // On a connected socket, ICMP port unreachable comes back as ECONNREFUSED: the registrar is not
        // there (any more). The socket stays usable; the channel decides what it means. The unconnected
        // socket gets no ICMP errors; whatever else fails there is a lost datagram, which SIP retransmits.
        guard self.flow else { return }
        self.receive(.unreachable(SIPTransport.describe(error)))
    }
}

/// Frames the byte stream into SIP messages and keep-alives (RFC 3261 section 18.3, RFC 5626): on the
/// flow to the registrar (`inbound` nil), or on a connection a proxy opened to the Contact (`inbound`
/// names its peer), where bytes that are not SIP close that connection only.
final class StreamHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let receive: @Sendable (SIPTransport.Arrival) -> Void
    private let inbound: String?
    private var framer: SIPStreamFramer
    private var reported = false

    init(receive: @escaping @Sendable (SIPTransport.Arrival) -> Void, inbound: String?) {
        self.receive = receive
        self.inbound = inbound
        self.framer = SIPStreamFramer(role: inbound == nil ? .client : .server)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = Self.unwrapInboundIn(data)
        let origin = SIPTransport.Origin(
            path: self.inbound == nil ? .flow : .connection(context.channel),
            description: self.inbound ?? "the registrar"
        )
        do throws(SIPParseError) {
            for item in try self.framer.receive(buffer.readableBytesView) {
                switch item {
                case .message(let message): self.receive(.message(message, origin))
                case .keepAlivePong: self.receive(.pong)
                case .keepAlivePing: context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: SIPStreamFramer.pong)), promise: nil)
                }
            }
        } catch {
            // A stream that lost its framing cannot be resynchronised: report and drop the connection.
            if let inbound = self.inbound {
                self.reported = true
                self.receive(.garbage(error, from: inbound, closed: true))
            } else {
                self.receive(.garbage(error, from: origin.description, closed: true))
                self.report("the registrar sent bytes that are not SIP (\(error)); connection closed")
            }
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if self.inbound == nil { self.report("the registrar closed the connection") }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if self.inbound == nil { self.report("the connection to the registrar failed: \(SIPTransport.describe(error))") }
        context.close(promise: nil)
    }

    private func report(_ reason: String) {
        guard !self.reported else { return }
        self.reported = true
        self.receive(.closed(reason))
    }
}

/// The connections proxies opened to the Contact, closed with the transport.
final class InboundConnections: Sendable {
    private let open = Mutex<[ObjectIdentifier: any NIOCore.Channel]>([:])

    func insert(_ connection: any NIOCore.Channel) {
        let key = ObjectIdentifier(connection)
        self.open.withLock { $0[key] = connection }
        connection.closeFuture.whenComplete { [weak self] _ in
            _ = self?.open.withLock { $0.removeValue(forKey: key) }
        }
    }

    func closeAll() {
        let all = self.open.withLock { open in
            defer { open = [:] }
            return Array(open.values)
        }
        for connection in all { connection.close(promise: nil) }
    }
}
