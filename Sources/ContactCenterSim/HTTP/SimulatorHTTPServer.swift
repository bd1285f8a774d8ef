import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// An HTTP request as the routes see it: method, path, decoded query parameters, headers and the body.
struct HTTPRouteRequest: Sendable {
    var method: String
    var path: String
    var query: [String: String]
    /// Header values by lower-cased name; repeated headers joined with ", ".
    var headers: [String: String] = [:]
    var body: [UInt8] = []
    /// The connection the request came on, for a route that holds its answer (a Bayeux long-poll) and
    /// must learn that the peer went away, or cut the connection without answering.
    var connection: HTTPConnectionLink?

    /// The path's segments after the leading `/`, each percent-decoded.
    var segments: [String] {
        self.path.split(separator: "/", omittingEmptySubsequences: true).map { String($0).removingPercentEncoding ?? String($0) }
    }

    init(method: String, uri: String) {
        self.method = method
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        self.path = String(parts.first ?? "")
        self.query = parts.count == 2 ? Self.formFields(parts[1]) : [:]
    }

    init(head: HTTPRequestHead, connection: HTTPConnectionLink? = nil) {
        self.init(method: head.method.rawValue, uri: head.uri)
        for (name, value) in head.headers {
            let key = name.lowercased()
            self.headers[key] = self.headers[key].map { "\($0), \(value)" } ?? value
        }
        self.connection = connection
    }

    /// `a=1&b=two+words` (a query string or an `application/x-www-form-urlencoded` body), decoded.
    static func formFields(_ text: Substring) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text) }
            fields[decode(nameValue[0])] = nameValue.count == 2 ? decode(nameValue[1]) : ""
        }
        return fields
    }

    /// The body as form fields (an `application/x-www-form-urlencoded` body).
    var formBody: [String: String] { Self.formFields(Substring(String(decoding: self.body, as: UTF8.self))) }
}

/// The connection an HTTP request came on: a held answer watches it close, a fault cuts it.
struct HTTPConnectionLink: Sendable {
    fileprivate let channel: any Channel

    /// Calls `body` once the connection has closed (at once if it already has).
    func onClose(_ body: @escaping @Sendable () -> Void) {
        self.channel.closeFuture.whenComplete { _ in body() }
    }

    /// Closes the connection without an answer: a dropped connection, as the peer sees it.
    func close() { self.channel.close(promise: nil) }

    /// Whether the peer is still connected (a held answer stops waiting once it is not).
    var isOpen: Bool { self.channel.isActive }
}

/// A JSON answer.
struct HTTPReply: Sendable {
    var status: Int
    var body: String
    /// Bytes to send instead of ``body``, when the body is not UTF-8 text (a gzipped answer).
    var bytes: [UInt8]?
    /// Headers besides Content-Type and Content-Length (`Set-Cookie`, say).
    var headers: [(name: String, value: String)] = []
    /// Close the connection instead of answering (the held long-poll of a dropped client).
    var closesWithoutAnswer = false
    /// Never answer and keep the connection open, until the client gives up (a stalled download).
    var stalls = false

    /// The answer of a server that stalls: none, on a connection it keeps open.
    static let stall = HTTPReply(status: 500, body: "", stalls: true)

    /// The answer a route gives when the connection must be cut unanswered.
    static let dropConnection = HTTPReply(status: 500, body: "", closesWithoutAnswer: true)

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
    /// Also upgrade requests for paths below ``path`` (`/genesys/cometd/connect`).
    var includesSubpaths = false
    /// The largest frame the peer may send.
    var maxFrameSize: Int = 1 << 22
    /// Whether to upgrade a request for ``path`` now. A refused request is not upgraded but handed to the
    /// routes like any other, so it gets a real answer (the CXone gateway's 503 while it is down).
    var accepts: @Sendable (HTTPRouteRequest) -> Bool = { _ in true }
    var install: @Sendable (HTTPRouteRequest, any Channel) throws -> Void

    func matches(_ path: String) -> Bool {
        path == self.path || (self.includesSubpaths && path.hasPrefix(self.path + "/"))
    }
}

enum JSONText {
    static func encode(_ object: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The HTTP/1.1 listener of the token endpoint, the control API, the CXone REST endpoints, GMS, and (by
/// upgrade) the CXone WebSocket gateway and GMS's CometD WebSocket.
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

    func start(route: @escaping Route, webSockets: [WebSocketEndpoint] = []) async throws {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    if !webSockets.isEmpty {
                        try channel.pipeline.syncOperations.addHandler(HTTPWebSocketUpgrader(endpoints: webSockets))
                    }
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
final class HTTPRouteHandler: ChannelInboundHandler, RemovableChannelHandler {
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
            self.request = HTTPRouteRequest(head: head, connection: HTTPConnectionLink(channel: context.channel))
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
        if reply.closesWithoutAnswer {
            context.close(promise: nil)
            return
        }
        if reply.stalls { return }
        var headers = HTTPHeaders()
        for header in reply.headers { headers.add(name: header.name, value: header.value) }
        headers.add(name: "Content-Type", value: "application/json")
        let body = reply.bytes.map { ByteBuffer(bytes: $0) } ?? ByteBuffer(string: reply.body)
        headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: reply.status), headers: headers)
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        context.write(self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let done = context.writeAndFlush(self.wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
