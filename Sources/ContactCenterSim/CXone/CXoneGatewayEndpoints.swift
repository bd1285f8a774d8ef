/// Where a client finds the simulator's CXone gateway: the three bases the CXoneChat plugin is configured
/// with. The paths under them are the client's to build (the gateway answers the real service's paths).
package struct CXoneGatewayEndpoints: Sendable, Hashable {
    /// `ws://HOST:PORT/chat-gateway`: the WebSocket.
    package var socket: String
    /// `http://HOST:PORT/chat`: the channel configuration and availability endpoints are under it.
    package var chat: String
    /// `http://HOST:PORT`: web-analytics hangs off the host, not `/chat`.
    package var host: String
}
