import AttendantPluginAPI
import NIOCore
import Synchronization

/// A channel's TCP flow (``ChannelNetwork/openStreamFlow(to:port:options:receiver:)``): the outgoing
/// connection, the listener on its address and port, and the connections the listener accepted.
final class HostStreamFlow: StreamFlow {
    let connection: any StreamConnection
    let local: NetworkAddress
    private let outgoing: HostStreamConnection
    private let listener: (any NIOCore.Channel)?
    private let accepted: AcceptedConnections

    init(outgoing: HostStreamConnection, local: NetworkAddress, listener: (any NIOCore.Channel)?, accepted: AcceptedConnections) {
        self.connection = outgoing
        self.outgoing = outgoing
        self.local = local
        self.listener = listener
        self.accepted = accepted
    }

    func close() async {
        self.accepted.closeAll()
        try? await self.listener?.close()
        self.outgoing.latch.close()
        try? await self.outgoing.channel.close()
    }
}

/// One TCP connection as a channel sees it.
final class HostStreamConnection: StreamConnection {
    let channel: any NIOCore.Channel
    let isInbound: Bool
    let latch = CloseLatch()
    /// Where the connection goes, until the socket knows (the outgoing connection, before it connects).
    private let target: NetworkAddress

    init(channel: any NIOCore.Channel, isInbound: Bool, target: NetworkAddress) {
        self.channel = channel
        self.isInbound = isInbound
        self.target = target
    }

    var peer: NetworkAddress { NetworkAddress(self.channel.remoteAddress) ?? self.target }

    func write(_ bytes: [UInt8]) {
        self.channel.writeAndFlush(self.channel.allocator.buffer(bytes: bytes), promise: nil)
    }

    func close() {
        self.latch.close()
        self.channel.close(promise: nil)
    }
}

/// Hands what arrives on one connection to its ``StreamReceiver`` where it is read, on the event loop's
/// thread, and tells it once when the connection ends (unless its owner closed it).
final class StreamDeliveryHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let connection: HostStreamConnection
    private let receiver: any StreamReceiver
    /// The first error, which is why the connection ends.
    private var failure: String?

    init(connection: HostStreamConnection, receiver: any StreamReceiver) {
        self.connection = connection
        self.receiver = receiver
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.connection.latch.isClosed else { return }
        self.receiver.received(Array(Self.unwrapInboundIn(data).readableBytesView))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if self.failure == nil { self.failure = SocketFailure.describe(error) }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !self.connection.latch.isClosed {
            self.connection.latch.close()
            self.receiver.closed(self.failure ?? "closed by the peer")
        }
        context.fireChannelInactive()
    }
}

/// The connections a flow's listener accepted, closed with the flow; once closed it takes no more.
final class AcceptedConnections: Sendable {
    private struct State {
        var open: [ObjectIdentifier: HostStreamConnection] = [:]
        var closed = false
    }

    private let state = Mutex(State())

    /// Keeps `connection` until it closes; false when the flow is closed already.
    func insert(_ connection: HostStreamConnection) -> Bool {
        let key = ObjectIdentifier(connection)
        let kept = self.state.withLock { state in
            guard !state.closed else { return false }
            state.open[key] = connection
            return true
        }
        guard kept else { return false }
        connection.channel.closeFuture.whenComplete { [weak self] _ in
            _ = self?.state.withLock { $0.open.removeValue(forKey: key) }
        }
        return true
    }

    func closeAll() {
        let all = self.state.withLock { state in
            state.closed = true
            defer { state.open = [:] }
            return Array(state.open.values)
        }
        for connection in all { connection.close() }
    }
}
