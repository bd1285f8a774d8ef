package import AttendantPluginAPI

// UDP and TCP flows: TO BE WRITTEN (helper A).
extension HostNetwork {
    package func openDatagramFlow(to host: String, port: Int, options: DatagramOptions, receive: @escaping @Sendable (DatagramEvent) -> Void) async throws(NetworkError) -> any DatagramFlow {
        throw NetworkError(.unavailable, "not written yet")
    }

    package func openStreamFlow(to host: String, port: Int, options: StreamOptions, receiver: @escaping @Sendable (any StreamConnection) -> any StreamReceiver) async throws(NetworkError) -> any StreamFlow {
        throw NetworkError(.unavailable, "not written yet")
    }
}
