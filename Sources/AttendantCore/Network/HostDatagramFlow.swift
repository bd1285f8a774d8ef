import AttendantPluginAPI
import NIOCore

/// A channel's UDP flow (``ChannelNetwork/openDatagramFlow(to:port:options:receive:)``): the socket
/// connected to the remote address and, beside it, the unconnected one on the same local address and port.
final class HostDatagramFlow: DatagramFlow {
    let local: NetworkAddress
    let remote: NetworkAddress
    private let remoteAddress: SocketAddress
    private let connected: any NIOCore.Channel
    private let anywhere: (any NIOCore.Channel)?
    private let latch: CloseLatch

    init(connected: any NIOCore.Channel, anywhere: (any NIOCore.Channel)?, local: NetworkAddress, remote: SocketAddress, latch: CloseLatch) {
        self.connected = connected
        self.anywhere = anywhere
        self.local = local
        self.remoteAddress = remote
        self.remote = NetworkAddress(remote) ?? NetworkAddress(ip: "?", port: 0)
        self.latch = latch
    }

    func send(_ bytes: [UInt8]) {
        Self.write(bytes, to: self.remoteAddress, on: self.connected)
    }

    func send(_ bytes: [UInt8], to address: NetworkAddress) {
        if address == self.remote { return self.send(bytes) }
        // An address that does not parse is a datagram lost, as the protocol says sends may be.
        guard let destination = try? SocketAddress(ipAddress: address.ip, port: address.port) else { return }
        // The connected socket sends only to the remote address; the unconnected one to anyone.
        Self.write(bytes, to: destination, on: self.anywhere ?? self.connected)
    }

    private static func write(_ bytes: [UInt8], to address: SocketAddress, on socket: any NIOCore.Channel) {
        socket.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: socket.allocator.buffer(bytes: bytes)), promise: nil)
    }

    func close() async {
        self.latch.close()
        try? await self.anywhere?.close()
        try? await self.connected.close()
    }
}

/// Hands each datagram to the channel where it is read, on the event loop's thread: no hop, no task, so an
/// INVITE reaches the plugin's parser as soon as the socket has it.
final class DatagramDeliveryHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let receive: @Sendable (DatagramEvent) -> Void
    /// The receive buffer's size: a datagram that fills it may have been cut.
    private let capacity: Int
    /// The socket connected to the remote address: its errors are ICMP errors for what was sent to it.
    private let connected: Bool
    private let latch: CloseLatch

    init(receive: @escaping @Sendable (DatagramEvent) -> Void, capacity: Int, connected: Bool, latch: CloseLatch) {
        self.receive = receive
        self.capacity = capacity
        self.connected = connected
        self.latch = latch
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.latch.isClosed else { return }
        let envelope = Self.unwrapInboundIn(data)
        let source = NetworkAddress(envelope.remoteAddress) ?? NetworkAddress(ip: "?", port: 0)
        // NIO rounds the buffer up (to a power of two): what is past the size asked for is cut here, so a
        // datagram is whole exactly when it is shorter than the option says.
        let view = envelope.data.readableBytesView
        let truncated = view.count >= self.capacity
        self.receive(.datagram(Array(truncated ? view.prefix(self.capacity) : view[...]), from: source, truncated: truncated))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // On a connected socket, ICMP port unreachable comes back as ECONNREFUSED (NIO keeps the socket
        // open for it): nothing listens at the remote address (any more); the channel decides what that
        // means. The unconnected socket gets no ICMP errors; whatever else fails there is a lost datagram,
        // which the protocol above retransmits.
        guard self.connected, !self.latch.isClosed else { return }
        self.receive(.unreachable(SocketFailure.describe(error)))
    }
}
