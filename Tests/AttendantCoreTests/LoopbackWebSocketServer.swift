import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// A real WebSocket server on 127.0.0.1, port 0, for the host's network: it echoes text and binary
/// messages and answers pings; "hello?" answers with the request's `X-Greeting` header, "big" with a
/// 4 KiB message, "bye" with a close frame. A request for `/hang` is never answered.
final class LoopbackWebSocketServer: Sendable {
    let port: Int
    let secure: Bool
    private let channel: any NIOCore.Channel

    private init(port: Int, channel: any NIOCore.Channel, secure: Bool) {
        self.port = port
        self.channel = channel
        self.secure = secure
    }

    var url: String { "\(self.secure ? "wss" : "ws")://127.0.0.1:\(self.port)" }

    /// With `tls`, the server speaks wss.
    static func start(tls: NIOSSLContext? = nil) async throws -> LoopbackWebSocketServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let upgrader = NIOWebSocketServerUpgrader(
                    maxFrameSize: 1 << 16,
                    shouldUpgrade: { channel, head in
                        channel.eventLoop.makeSucceededFuture(head.uri.hasPrefix("/hang") ? nil : HTTPHeaders())
                    },
                    upgradePipelineHandler: { channel, head in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(Echo(greeting: head.headers["X-Greeting"].first ?? ""))
                        }
                    }
                )
                return channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return LoopbackWebSocketServer(port: channel.localAddress?.port ?? 0, channel: channel, secure: tls != nil)
    }

    func stop() async throws { try await self.channel.close() }

    private final class Echo: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        let greeting: String

        init(greeting: String) { self.greeting = greeting }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = self.unwrapInboundIn(data)
            var payload = frame.unmaskedData
            switch frame.opcode {
            case .text:
                let text = payload.readString(length: payload.readableBytes) ?? ""
                switch text {
                case "hello?": self.send(context, .text, ByteBuffer(string: "greeting: \(self.greeting)"))
                case "big": self.send(context, .text, ByteBuffer(repeating: UInt8(ascii: "x"), count: 4096))
                case "bye":
                    var close = ByteBuffer()
                    close.write(webSocketErrorCode: .normalClosure)
                    close.writeString("bye")
                    let channel = context.channel
                    context.writeAndFlush(self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: close)))
                        .whenComplete { _ in channel.close(promise: nil) }
                default: self.send(context, .text, ByteBuffer(string: text))
                }
            case .binary: self.send(context, .binary, payload)
            case .ping: self.send(context, .pong, payload)
            case .connectionClose:
                let channel = context.channel
                context.writeAndFlush(self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)))
                    .whenComplete { _ in channel.close(promise: nil) }
            default: break
            }
        }

        private func send(_ context: ChannelHandlerContext, _ opcode: WebSocketOpcode, _ data: ByteBuffer) {
            context.writeAndFlush(self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: opcode, data: data)), promise: nil)
        }
    }
}
