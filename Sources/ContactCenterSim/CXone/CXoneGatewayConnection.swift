import NIOCore
import NIOWebSocket
import Synchronization

/// One client socket of the CXone gateway: where pushes for its customer go.
final class CXoneGatewayConnection: Sendable {
    let id: Int
    /// `brandId`, `channelId`, `visitorId`, `sdkPlatform`, `sdkVersion` of the upgrade request.
    let query: [String: String]
    private let channel: any Channel
    private let customer = Mutex<String?>(nil)

    init(id: Int, query: [String: String], channel: any Channel) {
        self.id = id
        self.query = query
        self.channel = channel
    }

    /// The customer the connection's frames name (after OAuth, the identity the gateway assigned), as
    /// sent; compare it with ``SimCXoneID/same(_:_:)``.
    var customerId: String? {
        get { self.customer.withLock { $0 } }
        set { self.customer.withLock { $0 = newValue } }
    }

    /// Sends one text frame.
    func send(_ text: [UInt8]) {
        let frame = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: text))
        self.channel.writeAndFlush(frame, promise: nil)
    }

    /// Closes the TCP connection without a close frame: a dropped socket.
    func drop() { self.channel.close(promise: nil) }
}

/// Reads a gateway socket's frames: text to the gateway, pings answered, close echoed.
final class CXoneGatewaySocketHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let gateway: CXoneGateway
    private let connection: CXoneGatewayConnection

    init(gateway: CXoneGateway, connection: CXoneGatewayConnection) {
        self.gateway = gateway
        self.connection = connection
    }

    /// Adds the gateway's handlers to an upgraded channel (on its event loop): fragments joined, then
    /// this handler.
    static func install(on channel: any Channel, gateway: CXoneGateway, request: HTTPRouteRequest) throws {
        let connection = CXoneGatewayConnection(id: gateway.nextConnectionID(), query: request.query, channel: channel)
        // Secured sessions: the transaction token authorized the customer.
        connection.customerId = gateway.transactionCustomer(request.query["transactionToken"])?.id
        try channel.pipeline.syncOperations.addHandler(
            NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 256, maxAccumulatedFrameSize: 1 << 22)
        )
        try channel.pipeline.syncOperations.addHandler(CXoneGatewaySocketHandler(gateway: gateway, connection: connection))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.gateway.connected(self.connection)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.gateway.disconnected(self.connection)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            let bytes = frame.unmaskedData.readableBytesView
            self.gateway.receive(Array(bytes), from: self.connection)
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(self.wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            var data = frame.unmaskedData
            let code = data.readSlice(length: 2) ?? ByteBuffer()
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: code)
            let channel = context.channel
            context.writeAndFlush(self.wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
