import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// An HTTP request as the routes see it: method, path, decoded query parameters and the body.
struct HTTPRouteRequest: Sendable {
    var method: String
    var path: String
    var query: [String: String]
    var body: [UInt8] = []

    /// The path's segments after the leading `/`, each percent-decoded.
    var segments: [String] {
        self.path.split(separator: "/", omittingEmptySubsequences: true).map { String($0).removingPercentEncoding ?? String($0) }
    }

    init(method: String, uri: String) {
        self.method = method
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        self.path = String(parts.first ?? "")
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let decode = { (text: Substring) in String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text) }
                query[decode(nameValue[0])] = nameValue.count == 2 ? decode(nameValue[1]) : ""
            }
        }
        self.query = query
    }
}

/// A JSON answer.
struct HTTPReply: Sendable {
    var status: Int
    var body: String

    /// A JSON object, keys sorted.
    static func json(_ object: [String: any Sendable], status: Int = 200) -> HTTPReply {
        HTTPReply(status: status, body: JSONText.encode(object))
    }

    static func error(_ status: Int, _ message: String) -> HTTPReply {
        .json(["error": message], status: status)
    }

    /// A body already encoded as JSON.
    static func encoded(_ bytes: [UInt8], status: Int = 200) -> HTTPReply {
        HTTPReply(status: status, body: String(decoding: bytes, as: UTF8.self))
    }
}

/// A WebSocket endpoint on the HTTP server: requests for ``path`` that ask to upgrade, and that ``accepts``
/// lets through, are handed to ``install``, which adds the frame handlers to the (already upgraded) channel
/// on its event loop.
struct WebSocketEndpoint: Sendable {
    var path: String
    /// The largest frame the peer may send.
    var maxFrameSize: Int = 1 << 22
    /// Whether to upgrade a request for ``path`` now. A refused request is not upgraded but handed to the
    /// routes like any other, so it gets a real answer (the CXone gateway's 503 while it is down).
    var accepts: @Sendable (HTTPRouteRequest) -> Bool = { _ in true }
    var install: @Sendable (HTTPRouteRequest, any Channel) throws -> Void
}

enum JSONText {
    static func encode(_ object: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The HTTP/1.1 listener of the token endpoint, the control API, the CXone REST endpoints and (by upgrade)
/// the CXone WebSocket gateway.
final class SimulatorHTTPServer: Sendable {
    typealias Route = @Sendable (HTTPRouteRequest) async -> HTTPReply

    private let host: String
    private let requestedPort: Int
    private let channel = Mutex<(any Channel)?>(nil)

    init(host: String, port: Int) {
        self.host = host
        self.requestedPort = port
    }

    var port: Int { self.channel.withLock { $0?.localAddress?.port } ?? self.requestedPort }

    func start(route: @escaping Route, webSocket: WebSocketEndpoint? = nil) async throws {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    var upgrade: NIOHTTPServerUpgradeSendableConfiguration?
                    if let webSocket {
                        let upgrader = NIOWebSocketServerUpgrader(
                            maxFrameSize: webSocket.maxFrameSize,
                            shouldUpgrade: { channel, head in
                                let request = HTTPRouteRequest(method: head.method.rawValue, uri: head.uri)
                                let upgrade = request.path == webSocket.path && webSocket.accepts(request)
                                return channel.eventLoop.makeSucceededFuture(upgrade ? HTTPHeaders() : nil)
                            },
                            upgradePipelineHandler: { channel, head in
                                channel.eventLoop.makeCompletedFuture {
                                    try webSocket.install(HTTPRouteRequest(method: head.method.rawValue, uri: head.uri), channel)
                                }
                            }
                        )
                        upgrade = (upgraders: [upgrader], completionHandler: { context in
                            context.pipeline.removeHandler(name: HTTPRouteHandler.name, promise: nil)
                        })
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withServerUpgrade: upgrade)
                    try channel.pipeline.syncOperations.addHandler(HTTPRouteHandler(route: route), name: HTTPRouteHandler.name)
                }
            }
            .bind(host: self.host, port: self.requestedPort)
            .get()
        self.channel.withLock { $0 = channel }
    }

    func stop() async {
        let channel = self.channel.withLock { $0 }
        try? await channel?.close()
    }
}

/// Collects one request at a time and answers it with the route's reply.
private final class HTTPRouteHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    static let name = "route"

    private let route: SimulatorHTTPServer.Route
    private var request: HTTPRouteRequest?
    private var keepAlive = true

    init(route: @escaping SimulatorHTTPServer.Route) { self.route = route }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.request = HTTPRouteRequest(method: head.method.rawValue, uri: head.uri)
            self.keepAlive = head.isKeepAlive
        case .body(var buffer):
            if let bytes = buffer.readBytes(length: buffer.readableBytes) { self.request?.body += bytes }
        case .end:
            guard let request = self.request else { return }
            self.request = nil
            let route = self.route
            let keepAlive = self.keepAlive
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.makeFutureWithTask { await route(request) }.whenSuccess { reply in
                let (handler, context) = bound.value
                handler.write(reply, keepAlive: keepAlive, context: context)
            }
        }
    }

    private func write(_ reply: HTTPReply, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: "\(reply.body.utf8.count)")
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: reply.status), headers: headers)
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: reply.body)))), promise: nil)
        let done = context.writeAndFlush(self.wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The WebSocket upgrader reports an upgrade it refuses (``WebSocketEndpoint/accepts`` said no, a
        // path without an endpoint, a bad Sec-WebSocket-Key) as an error, then hands the request on, not
        // upgraded, to this handler, which answers it: the connection must stay open for that answer.
        if error is NIOWebSocketUpgradeError { return }
        context.close(promise: nil)
    }
}
