import NIOCore
import NIOWebSocket

/// A simulated service's WebSocket after the upgrade: fragments joined, each text frame handed to the
/// service, pings answered, a close echoed with its code and the socket closed; the service is told when the
/// socket opens and when it ends. The CXone gateway and the web messaging service read their sockets so.
final class SimTextSocketHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let opened: () -> Void
    private let receive: ([UInt8]) -> Void
    private let closed: () -> Void

    private init(opened: @escaping () -> Void, receive: @escaping ([UInt8]) -> Void, closed: @escaping () -> Void) {
        self.opened = opened
        self.receive = receive
        self.closed = closed
    }

    /// Adds the handlers to an upgraded channel (on its event loop).
    static func install(
        on channel: any Channel,
        opened: @escaping () -> Void,
        receive: @escaping ([UInt8]) -> Void,
        closed: @escaping () -> Void
    ) throws {
        try channel.pipeline.syncOperations.addHandler(
            NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 256, maxAccumulatedFrameSize: 1 << 22)
        )
        try channel.pipeline.syncOperations.addHandler(SimTextSocketHandler(opened: opened, receive: receive, closed: closed))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.opened()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.closed()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            self.receive(Array(frame.unmaskedData.readableBytesView))
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
