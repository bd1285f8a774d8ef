package import AttendantPluginAPI

// HTTP and WebSocket: TO BE WRITTEN (helper B).
extension HostNetwork {
    package func send(_ request: NetworkRequest) async throws(NetworkError) -> NetworkResponse {
        throw NetworkError(.unavailable, "not written yet")
    }

    package func openWebSocket(_ request: WebSocketRequest, events: @escaping @Sendable (WebSocketEvent) -> Void) async throws(NetworkError) -> any WebSocketConnection {
        throw NetworkError(.unavailable, "not written yet")
    }
}
