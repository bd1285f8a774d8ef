import NIOCore
import NIOWebSocket
import Synchronization

/// One client socket of the web messaging service: the session it configured, where pushes go.
final class GenesysMessagingConnection: Sendable {
    let id: Int
    /// The upgrade request's `deploymentId` and `application` (`Urls.webSocketUrl`).
    let query: [String: String]
    private let channel: any Channel
    private let session = Mutex<String?>(nil)

    init(id: Int, query: [String: String], channel: any Channel) {
        self.id = id
        self.query = query
        self.channel = channel
    }

    /// The token of the session configured on this socket (nil until configureSession succeeds).
    var token: String? {
        get { self.session.withLock { $0 } }
        set { self.session.withLock { $0 = newValue } }
    }

    func send(_ frame: SimGenesysServerFrame) { self.send(frame.encoded) }

    /// Sends one text frame.
    func send(_ text: [UInt8]) {
        let frame = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: text))
        self.channel.writeAndFlush(frame, promise: nil)
    }

    /// Closes the TCP connection without a close frame: a dropped socket.
    func drop() { self.channel.close(promise: nil) }
}

/// Reads a web messaging socket's frames: text to the server, pings answered, close echoed.
final class GenesysMessagingSocketHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let server: GenesysMessagingServer
    private let connection: GenesysMessagingConnection

    init(server: GenesysMessagingServer, connection: GenesysMessagingConnection) {
        self.server = server
        self.connection = connection
    }

    /// Adds the handlers to an upgraded channel (on its event loop): fragments joined, then this handler.
    static func install(on channel: any Channel, server: GenesysMessagingServer, request: HTTPRouteRequest) throws {
        let connection = GenesysMessagingConnection(id: server.nextConnectionID(), query: request.query, channel: channel)
        try channel.pipeline.syncOperations.addHandler(
            NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 256, maxAccumulatedFrameSize: 1 << 22)
        )
        try channel.pipeline.syncOperations.addHandler(GenesysMessagingSocketHandler(server: server, connection: connection))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.server.connected(self.connection)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.server.disconnected(self.connection)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            self.server.receive(Array(frame.unmaskedData.readableBytesView), from: self.connection)
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

extension GenesysMessagingServer {
    /// The `/v1` WebSocket endpoint: refused (503 from the routes) while the service is down.
    var webSocketEndpoint: WebSocketEndpoint {
        WebSocketEndpoint(path: Self.socketPath, accepts: { [self] _ in !self.isDown }) { [self] request, channel in
            try GenesysMessagingSocketHandler.install(on: channel, server: self, request: request)
        }
    }
}
