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

/// A web messaging socket, read by ``SimTextSocketHandler``: text to the server, pings answered, close
/// echoed.
enum GenesysMessagingSocketHandler {
    /// Adds the handlers to an upgraded channel (on its event loop).
    static func install(on channel: any Channel, server: GenesysMessagingServer, request: HTTPRouteRequest) throws {
        let connection = GenesysMessagingConnection(id: server.nextConnectionID(), query: request.query, channel: channel)
        try SimTextSocketHandler.install(
            on: channel,
            opened: { server.connected(connection) },
            receive: { server.receive($0, from: connection) },
            closed: { server.disconnected(connection) }
        )
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
