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

/// A gateway socket, read by ``SimTextSocketHandler``: text to the gateway, pings answered, close echoed.
enum CXoneGatewaySocketHandler {
    /// Adds the gateway's handlers to an upgraded channel (on its event loop).
    static func install(on channel: any Channel, gateway: CXoneGateway, request: HTTPRouteRequest) throws {
        let connection = CXoneGatewayConnection(id: gateway.nextConnectionID(), query: request.query, channel: channel)
        // Secured sessions: the transaction token authorized the customer.
        connection.customerId = gateway.transactionCustomer(request.query["transactionToken"])?.id
        try SimTextSocketHandler.install(
            on: channel,
            opened: { gateway.connected(connection) },
            receive: { gateway.receive($0, from: connection) },
            closed: { gateway.disconnected(connection) }
        )
    }
}
