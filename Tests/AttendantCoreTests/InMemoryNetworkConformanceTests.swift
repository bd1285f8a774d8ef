import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import Testing

/// The test kit's network refuses what the daemon's refuses, with the same kind and words, so a plugin
/// tested on the kit meets the same errors in attendantd.
@Suite struct InMemoryNetworkConformanceTests {
    static let networks: [any ChannelNetwork] = [HostNetwork(logger: Logger(label: "test.network")), InMemoryNetwork()]

    static func failure(_ body: () async throws(NetworkError) -> Void) async -> NetworkError? {
        do throws(NetworkError) {
            try await body()
            return nil
        } catch {
            return error
        }
    }

    @Test func invalidRequestsFailAlike() async throws {
        var failures: [[NetworkError?]] = []
        for network in Self.networks {
            failures.append([
                await Self.failure { () async throws(NetworkError) in
                    _ = try await network.send(NetworkRequest(method: "post", url: "ftp://files.example.com/a?key=secret"))
                },
                await Self.failure { () async throws(NetworkError) in _ = try await network.send(NetworkRequest(url: "/relative/path")) },
                await Self.failure { () async throws(NetworkError) in
                    _ = try await network.openWebSocket(WebSocketRequest(url: "https://chat.example.com/ws"), events: { _ in })
                },
                await Self.failure { () async throws(NetworkError) in
                    _ = try await network.openStreamFlow(
                        to: "127.0.0.1",
                        port: 5061,
                        options: StreamOptions(listen: true, tls: StreamTLS(serverName: "pbx")),
                        receiver: { _ in NoReceiver() }
                    )
                },
            ])
        }
        #expect(failures[0].allSatisfy { $0?.kind == .invalidRequest }, "\(failures[0])")
        #expect(failures[1] == failures[0])
    }
}

private final class NoReceiver: StreamReceiver {
    func received(_ bytes: [UInt8]) {}
    func closed(_ reason: String) {}
}
