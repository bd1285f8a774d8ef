import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// A minimal WebSocket client for the gateway tests: NIOWebSocket's client upgrader, masked text frames
/// out, every text frame in kept in order.
final class TestWebSocket: Sendable {
    private let channel: any Channel
    private let inbox: Inbox

    final class Inbox: Sendable {
        let state = Mutex<(frames: [[UInt8]], closed: Bool)>(([], false))
    }

    private init(channel: any Channel, inbox: Inbox) {
        self.channel = channel
        self.inbox = inbox
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The server answered the upgrade request with an ordinary response instead of 101.
    struct Refused: Error, CustomStringConvertible {
        var status: Int
        var body: [UInt8]
        var description: String { "no upgrade: \(self.status) \(String(decoding: self.body, as: UTF8.self))" }
    }

    /// Connects to `ws://host:port` + `uri` and waits for the upgrade (up to `timeout`); throws ``Refused``
    /// when the server answers without upgrading.
    static func connect(host: String = "127.0.0.1", port: Int, uri: String, timeout: Duration = .seconds(60)) async throws -> TestWebSocket {
        let inbox = Inbox()
        let upgraded = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Void.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: 1 << 24) { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Reader(inbox: inbox))
                    }
                }
                let upgrade: NIOHTTPClientUpgradeSendableConfiguration = (
                    upgraders: [upgrader],
                    completionHandler: { context in
                        context.pipeline.removeHandler(name: RequestSender.name, promise: nil)
                        upgraded.succeed()
                    }
                )
                return channel.pipeline.addHTTPClientHandlers(withClientUpgrade: upgrade).flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(
                        RequestSender(host: host, port: port, uri: uri, failed: upgraded),
                        name: RequestSender.name
                    )
                }
            }
            .connect(host: host, port: port)
            .get()
        let deadline = channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            upgraded.fail(Failure(description: "no answer to the upgrade request within \(timeout)"))
        }
        do {
            try await upgraded.futureResult.get()
            deadline.cancel()
        } catch {
            deadline.cancel()
            try? await channel.close()
            throw error
        }
        return TestWebSocket(channel: channel, inbox: inbox)
    }

    func send(_ text: [UInt8]) {
        let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(bytes: text))
        self.channel.writeAndFlush(frame, promise: nil)
    }

    func send(_ text: String) { self.send(Array(text.utf8)) }

    /// The next text frame, in order; throws on timeout or when the socket closed first.
    func next(timeout: Duration = .seconds(60)) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (frame, closed): ([UInt8]?, Bool) = self.inbox.state.withLock { state in
                state.frames.isEmpty ? (nil, state.closed) : (state.frames.removeFirst(), false)
            }
            if let frame { return frame }
            if closed { throw Failure(description: "the socket closed") }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw Failure(description: "no frame within \(timeout)")
    }

    /// Whether nothing arrives within `window`.
    func isQuiet(for window: Duration) async throws -> Bool {
        try await Task.sleep(for: window)
        return self.inbox.state.withLock { $0.frames.isEmpty }
    }

    /// Waits until the server closed the socket.
    func waitForClose(timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if self.inbox.state.withLock({ $0.closed }) { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw Failure(description: "the socket did not close within \(timeout)")
    }

    func close() async { try? await self.channel.close() }

    /// Sends the upgrade request once connected.
    fileprivate final class RequestSender: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart
        static let name = "upgrade-request"
        let host: String
        let port: Int
        let uri: String
        let failed: EventLoopPromise<Void>
        /// The status and body of a response that is not an upgrade.
        private var refusal: Refused?

        init(host: String, port: Int, uri: String, failed: EventLoopPromise<Void>) {
            self.host = host
            self.port = port
            self.uri = uri
            self.failed = failed
        }

        func channelActive(context: ChannelHandlerContext) {
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: "\(self.host):\(self.port)")
            headers.add(name: "Content-Length", value: "0")
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: self.uri, headers: headers)
            context.write(self.wrapOutboundOut(.head(head)), promise: nil)
            context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            // Reached only when the server did not upgrade.
            switch self.unwrapInboundIn(data) {
            case .head(let head):
                self.refusal = Refused(status: Int(head.status.code), body: [])
            case .body(let buffer):
                self.refusal?.body += buffer.readableBytesView
            case .end:
                if let refusal = self.refusal {
                    self.failed.fail(refusal)
                } else {
                    self.failed.fail(Failure(description: "a response without a head"))
                }
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            // A promise already completed (upgraded or refused) stays as it is.
            self.failed.fail(Failure(description: "the server closed the connection without answering the upgrade request"))
            context.fireChannelInactive()
        }
    }

    /// Keeps text frames; answers pings; notes the close.
    private final class Reader: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        let inbox: Inbox

        init(inbox: Inbox) { self.inbox = inbox }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = self.unwrapInboundIn(data)
            if frame.opcode == .text {
                let bytes = Array(frame.unmaskedData.readableBytesView)
                self.inbox.state.withLock { $0.frames.append(bytes) }
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            self.inbox.state.withLock { $0.closed = true }
        }
    }
}
