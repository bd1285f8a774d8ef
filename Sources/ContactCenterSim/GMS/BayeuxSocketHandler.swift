import NIOCore
import NIOWebSocket

/// Reads a CometD socket's frames: text to the server, pings answered, close echoed.
final class BayeuxSocketHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let server: GMSChatServer
    private let socket: BayeuxSocket

    init(server: GMSChatServer, socket: BayeuxSocket) {
        self.server = server
        self.socket = socket
    }

    func handlerAdded(context: ChannelHandlerContext) { self.server.socketOpened(self.socket) }

    func channelInactive(context: ChannelHandlerContext) {
        self.server.socketClosed(self.socket)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            self.server.receive(Array(frame.unmaskedData.readableBytesView), on: self.socket)
        case .ping:
            context.writeAndFlush(self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            var data = frame.unmaskedData
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: data.readSlice(length: 2) ?? ByteBuffer())
            let channel = context.channel
            context.writeAndFlush(self.wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}
