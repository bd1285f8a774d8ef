import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Upgrades a request to a WebSocket (RFC 6455) on any request of a keep-alive connection, not only on
/// its first: NIO's `HTTPServerUpgradeHandler` leaves the pipeline after the first request, but clients
/// reuse pooled connections (aiohttp, as aiocometd-ng does, handshakes over HTTP and then opens its
/// WebSocket on the same connection), and Jetty-based servers such as GMS upgrade them.
///
/// A request that asks to upgrade, for a path an endpoint serves and that the endpoint accepts, is
/// answered 101 here; the HTTP handlers leave the pipeline and the endpoint installs its frame
/// handlers. Any other request goes on to the routes, a refused upgrade included, so that it gets a
/// real answer (the CXone gateway's 503 while it is down).
final class HTTPWebSocketUpgrader: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private static let magic = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    private let endpoints: [WebSocketEndpoint]
    /// The upgrade request being read (its head has come, its end not yet).
    private var pending: (request: HTTPRouteRequest, key: String, endpoint: WebSocketEndpoint)?

    init(endpoints: [WebSocketEndpoint]) { self.endpoints = endpoints }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            let request = HTTPRouteRequest(head: head)
            let wantsUpgrade =
                head.method == .GET
                && head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "upgrade" }
                && head.headers["upgrade"].contains { $0.lowercased() == "websocket" }
                && head.headers["sec-websocket-version"].first == "13"
            if wantsUpgrade, let key = head.headers["sec-websocket-key"].first, !key.isEmpty,
                let endpoint = self.endpoints.first(where: { $0.matches(request.path) }), endpoint.accepts(request)
            {
                self.pending = (request, key, endpoint)
                return
            }
            context.fireChannelRead(data)
        case .body:
            if self.pending == nil { context.fireChannelRead(data) }
        case .end:
            guard let pending = self.pending else { return context.fireChannelRead(data) }
            self.pending = nil
            self.upgrade(context: context, pending.request, key: pending.key, endpoint: pending.endpoint)
        }
    }

    private func upgrade(context: ChannelHandlerContext, _ request: HTTPRouteRequest, key: String, endpoint: WebSocketEndpoint) {
        let accept = Data(Insecure.SHA1.hash(data: Data((key + Self.magic).utf8))).base64EncodedString()
        var headers = HTTPHeaders()
        headers.add(name: "Upgrade", value: "websocket")
        headers.add(name: "Connection", value: "Upgrade")
        headers.add(name: "Sec-WebSocket-Accept", value: accept)
        let head = HTTPResponseHead(version: .http1_1, status: .switchingProtocols, headers: headers)
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        let channel = context.channel
        let written = context.writeAndFlush(self.wrapOutboundOut(.end(nil)))
        written.whenComplete { result in
            guard case .success = result else { return channel.close(promise: nil) }
            do {
                let pipeline = channel.pipeline.syncOperations
                let encoder = try pipeline.handler(type: HTTPResponseEncoder.self)
                let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                let pipelining = try pipeline.handler(type: HTTPServerPipelineHandler.self)
                let errors = try pipeline.handler(type: HTTPServerProtocolErrorHandler.self)
                let route = try pipeline.handler(type: HTTPRouteHandler.self)
                let upgrader = try pipeline.handler(type: HTTPWebSocketUpgrader.self)
                var handlers: [any RemovableChannelHandler] = [route, errors, pipelining, encoder, decoder, upgrader]
                if let validator = try? pipeline.handler(type: NIOHTTPResponseHeadersValidator.self) { handlers.append(validator) }
                for handler in handlers { pipeline.removeHandler(handler, promise: nil) }
                try pipeline.addHandler(ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: endpoint.maxFrameSize)))
                try pipeline.addHandler(WebSocketFrameEncoder())
                try pipeline.addHandler(WebSocketProtocolErrorHandler())
                try endpoint.install(request, channel)
            } catch {
                channel.close(promise: nil)
            }
        }
    }
}
