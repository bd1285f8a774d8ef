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

    /// The same requests through both networks to the same server (a real one on loopback for the
    /// daemon's, the same answers scripted for the kit's): the server is sent the same cookies.
    @Test func cookiesAreKeptAndSentAlike() async throws {
        /// The server: /login sets cookies, /quiet sets one, anything else answers the Cookie header it got.
        @Sendable func answer(path: String, cookie: String?) -> (body: String, setCookies: [String]) {
            switch path {
            case "/app/login":
                let set = ["session=abc; Path=/", "dir=1", "gone=1; Max-Age=0", "secret=1; Secure", "old=1; Expires=Thu, 01 Jan 1970 00:00:01 GMT"]
                return ("welcome", set)
            case "/quiet": return ("shh", ["quiet=1; Path=/"])
            default: return (cookie ?? "none", [])
            }
        }
        let server = try await LoopbackHTTPServer.start { request in
            let (body, setCookies) = answer(path: request.uri, cookie: request.headers["cookie"])
            return .init(body: body, headers: setCookies.map { ("Set-Cookie", $0) })
        }
        defer { Task { try? await server.stop() } }
        let kit = InMemoryNetwork()
        kit.handleRequests { request async throws(NetworkError) in
            let afterScheme = request.url[request.url.firstRange(of: "://")!.upperBound...]
            let path = String(afterScheme[(afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex)...])
            let (body, setCookies) = answer(path: path, cookie: request.headers.first { $0.name.lowercased() == "cookie" }?.value)
            return NetworkResponse(status: 200, headers: setCookies.map { NetworkHeader("Set-Cookie", $0) }, body: Array(body.utf8))
        }
        let other = "http://localhost:\(server.port)"
        var seen: [[String]] = []
        for network in [HostNetwork(logger: Logger(label: "test.network")), kit] as [any ChannelNetwork] {
            func send(_ url: String, uses: Bool = true, own: String? = nil) async throws -> String {
                let request = NetworkRequest(url: url, headers: own.map { [NetworkHeader("Cookie", $0)] } ?? [], usesCookies: uses)
                return String(decoding: try await network.send(request).body, as: UTF8.self)
            }
            _ = try await send(server.url + "/app/login")
            _ = try await send(server.url + "/quiet", uses: false)
            seen.append([
                try await send(server.url + "/app/x"),
                try await send(server.url + "/home"),
                try await send(server.url + "/home", uses: false),
                try await send(server.url + "/home", own: "mine=1"),
                try await send(server.url + "/home", uses: false, own: "mine=1"),
                try await send(other + "/home"),
            ])
        }
        #expect(seen[0] == ["dir=1; session=abc", "session=abc", "none", "mine=1; session=abc", "mine=1", "none"])
        #expect(seen[1] == seen[0])
    }
}

private final class NoReceiver: StreamReceiver {
    func received(_ bytes: [UInt8]) {}
    func closed(_ reason: String) {}
}
