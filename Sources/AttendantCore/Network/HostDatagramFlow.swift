import AttendantPluginAPI
import Glibc
import NIOCore
import Synchronization

/// A channel's UDP flow (``ChannelNetwork/openDatagramFlow(to:port:options:receive:)``): the socket
/// connected to the remote address and, beside it, the unconnected one on the same local address and port.
///
/// An ICMP error for one datagram leaves ECONNREFUSED pending on the connected socket. When the next send
/// finds it before the event loop has read it (on loopback the error comes back within the first send),
/// swift-nio fails that write and closes the socket. The flow then reports the refusal as
/// ``DatagramEvent/unreachable(_:)`` and opens the connected socket again, on the same local address, at
/// the next send: a registrar that went away and came back is reached on the same flow.
final class HostDatagramFlow: DatagramFlow {
    let local: NetworkAddress
    let remote: NetworkAddress
    private let remoteAddress: SocketAddress
    private let connected: Mutex<ConnectedSocket>
    private let anywhere: (any NIOCore.Channel)?
    private let latch: CloseLatch
    private let reopen: @Sendable () -> EventLoopFuture<any NIOCore.Channel>
    private let receive: @Sendable (DatagramEvent) -> Void

    private enum ConnectedSocket {
        case open(any NIOCore.Channel)
        /// The new socket on its way; the closed one stays for when it does not come.
        case reopening(EventLoopFuture<any NIOCore.Channel>, closed: any NIOCore.Channel)
    }

    init(
        connected: any NIOCore.Channel,
        anywhere: (any NIOCore.Channel)?,
        local: NetworkAddress,
        remote: SocketAddress,
        latch: CloseLatch,
        reopen: @escaping @Sendable () -> EventLoopFuture<any NIOCore.Channel>,
        receive: @escaping @Sendable (DatagramEvent) -> Void
    ) {
        self.connected = Mutex(.open(connected))
        self.anywhere = anywhere
        self.local = local
        self.remoteAddress = remote
        self.remote = NetworkAddress(remote) ?? NetworkAddress(ip: "?", port: 0)
        self.latch = latch
        self.reopen = reopen
        self.receive = receive
    }

    func send(_ bytes: [UInt8]) {
        self.sendConnected(bytes, to: self.remoteAddress)
    }

    /// - Parameter again: whether a write refused for an earlier datagram's ICMP error is tried once more.
    private func sendConnected(_ bytes: [UInt8], to destination: SocketAddress, again: Bool = true) {
        guard !self.latch.isClosed else { return }
        // The socket itself when it is open (an INVITE's answers go out with no hop from the event loop),
        // else the one being opened again.
        let (socket, reopening, started) = self.connected.withLock {
            connected -> ((any NIOCore.Channel)?, EventLoopFuture<any NIOCore.Channel>?, Bool) in
            switch connected {
            case .open(let socket) where socket.isActive:
                return (socket, nil, false)
            case .open(let closed):
                let reopening = self.reopen()
                connected = .reopening(reopening, closed: closed)
                return (nil, reopening, true)
            case .reopening(let reopening, _):
                return (nil, reopening, false)
            }
        }
        // Outside the lock: on the event loop (a refused write sent again) the future may be complete
        // already, and its callback, which takes the lock, then runs at once.
        if started { reopening?.whenComplete { result in self.reopened(result) } }
        if let socket { return self.writeConnected(bytes, to: destination, on: socket, again: again) }
        reopening?.whenSuccess { socket in self.writeConnected(bytes, to: destination, on: socket, again: again) }
    }

    /// A write that finds the ICMP error of an earlier one pending fails with ECONNREFUSED: a refusal. The
    /// refusal was the earlier datagram's; this one never left, so it goes once more, on the socket opened
    /// again (a registrar that came back gets the first request sent after it did, not the one after), as do
    /// writes that were queued on the socket when swift-nio closed it for the refusal.
    private func writeConnected(_ bytes: [UInt8], to destination: SocketAddress, on socket: any NIOCore.Channel, again: Bool) {
        Self.write(bytes, to: destination, on: socket).whenFailure { error in
            guard !self.latch.isClosed else { return }
            if let error = error as? IOError, error.errnoCode == ECONNREFUSED {
                self.receive(.unreachable(SocketFailure.describe(error)))
            } else if let error = error as? NIOCore.ChannelError, error == .ioOnClosedChannel || error == .alreadyClosed {
                // Queued behind the write that was refused, as swift-nio closed the socket for it.
            } else {
                return
            }
            if again { self.sendConnected(bytes, to: destination, again: false) }
        }
    }

    private func reopened(_ result: Result<any NIOCore.Channel, any Error>) {
        let late: (any NIOCore.Channel)? = self.connected.withLock { connected in
            guard case .reopening(_, let closed) = connected else { return nil }
            switch result {
            case .success(let socket):
                connected = .open(socket)
                return self.latch.isClosed ? socket : nil
            case .failure:
                // The sends that waited are lost datagrams; the next send tries again.
                connected = .open(closed)
                return nil
            }
        }
        late?.close(promise: nil)
        if case .failure(let error) = result, !self.latch.isClosed {
            self.receive(.unreachable("the socket to \(self.remote) could not be opened again: \(SocketFailure.describe(error))"))
        }
    }

    func send(_ bytes: [UInt8], to address: NetworkAddress) {
        if address == self.remote { return self.send(bytes) }
        // An address that does not parse is a datagram lost, as the protocol says sends may be.
        guard let destination = try? SocketAddress(ipAddress: address.ip, port: address.port) else { return }
        // The connected socket sends only to the remote address; the unconnected one to anyone.
        guard let anywhere = self.anywhere else { return self.sendConnected(bytes, to: destination) }
        _ = Self.write(bytes, to: destination, on: anywhere)
    }

    private static func write(_ bytes: [UInt8], to address: SocketAddress, on socket: any NIOCore.Channel) -> EventLoopFuture<Void> {
        socket.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: socket.allocator.buffer(bytes: bytes)))
    }

    func close() async {
        self.latch.close()
        try? await self.anywhere?.close()
        let connected = self.connected.withLock { connected -> EventLoopFuture<any NIOCore.Channel> in
            switch connected {
            case .open(let socket): socket.eventLoop.makeSucceededFuture(socket)
            case .reopening(let reopening, _): reopening
            }
        }
        try? await connected.get().close()
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
