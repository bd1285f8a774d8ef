import AttendantCore
import AttendantPluginAPI
import Synchronization
import Testing

/// The network the daemon lends its channels, against real servers on loopback: HTTP requests (any
/// status is an answer; size, time and cookies are the host's business) and WebSocket connections.
@Suite struct HostNetworkHTTPTests {
    let network = HostNetwork(logger: Logger(label: "test"))

    @Test func getAndPostRoundTrips() async throws {
        let server = try await LoopbackHTTPServer.start { request in
            switch request.method {
            case "GET": .init(body: "got \(request.headers["x-ask"] ?? "-")", headers: [("X-Answer", "42")])
            default: .init(contentType: "application/json", body: "posted \(request.body)")
            }
        }
        defer { Task { try? await server.stop() } }

        let got = try await self.network.send(NetworkRequest(url: server.url + "/thing", headers: [NetworkHeader("X-Ask", "why")]))
        #expect(got.status == 200 && got.reason == "OK")
        #expect(String(decoding: got.body, as: UTF8.self) == "got why")
        #expect(got.header("x-answer") == "42")

        let posted = try await self.network.send(NetworkRequest(method: "POST", url: server.url + "/things", body: Array(#"{"a":1}"#.utf8)))
        #expect(String(decoding: posted.body, as: UTF8.self) == #"posted {"a":1}"#)
        #expect(posted.header("Content-Type") == "application/json")
        #expect(server.requests.map(\.method) == ["GET", "POST"])
    }

    @Test func anErrorStatusIsAnAnswer() async throws {
        let server = try await LoopbackHTTPServer.start { _ in .init(status: 500, body: "broken") }
        defer { Task { try? await server.stop() } }
        let response = try await self.network.send(NetworkRequest(url: server.url + "/"))
        #expect(response.status == 500)
        #expect(response.reason == "Internal Server Error")
        #expect(String(decoding: response.body, as: UTF8.self) == "broken")
    }

    @Test func aBodyOverTheLimitIsTooLarge() async throws {
        let server = try await LoopbackHTTPServer.start { _ in .init(body: String(repeating: "x", count: 2000)) }
        defer { Task { try? await server.stop() } }
        let fits = try await self.network.send(NetworkRequest(url: server.url + "/", maximumResponseSize: 2000))
        #expect(fits.body.count == 2000)
        let error = await #expect(throws: NetworkError.self) {
            _ = try await self.network.send(NetworkRequest(url: server.url + "/big?sig=secret", maximumResponseSize: 1999))
        }
        #expect(error?.kind == .tooLarge)
        #expect(error?.message == "GET \(server.url)/big?… answered with more than 1999 bytes (HTTP 200)")
        #expect(error?.status == 200, "the server did answer: a protocol may need to know it was a 2xx")
    }

    /// The time limit acts, and the message names the URL without its query (pre-signed URLs carry
    /// credentials there).
    @Test func noAnswerInTimeIsATimeout() async throws {
        let server = try await LoopbackHTTPServer.start { _ in .init(body: "", hang: true) }
        defer { Task { try? await server.stop() } }
        let started = ContinuousClock.now
        let error = await #expect(throws: NetworkError.self) {
            _ = try await self.network.send(NetworkRequest(url: server.url + "/slow?X-Amz-Signature=secret", timeout: .milliseconds(300)))
        }
        #expect(error?.kind == .timeout)
        #expect(error?.message == "GET \(server.url)/slow?… failed: no answer within 0.3 s")
        // Without the limit the request would wait forever; the bound leaves room for a loaded machine (a
        // whole-suite run has held this task back for 20 s while blocking tests had the cooperative threads).
        #expect(ContinuousClock.now - started < .seconds(90))
    }

    /// The limit is for the whole answer: a server that sends the head and then stalls in the body is a
    /// timeout too, not a request that waits forever.
    @Test func aBodyThatStallsIsATimeout() async throws {
        let server = try await LoopbackHTTPServer.start { _ in .init(body: String(repeating: "x", count: 100), stallBody: true) }
        defer { Task { try? await server.stop() } }
        let sending = Task { () async throws(NetworkError) -> NetworkResponse in
            try await self.network.send(NetworkRequest(url: server.url + "/stalls", timeout: .milliseconds(300)))
        }
        let outcome = Task { await sending.result }
        // Bounded, so that without the limit this fails instead of hanging the suite.
        let bound = Task {
            try await Task.sleep(for: .seconds(30))
            sending.cancel()
        }
        let result = await outcome.value
        bound.cancel()
        guard case .failure(let failure) = result else {
            Issue.record("a stalled body was taken as an answer")
            return
        }
        let error = try #require(failure as? NetworkError, "\(failure)")
        #expect(error.kind == .timeout, "\(error)")
        #expect(error.message == "GET \(server.url)/stalls failed: no answer within 0.3 s")
    }

    @Test func refusedAndInvalid() async throws {
        let server = try await LoopbackHTTPServer.start { _ in .init(body: "") }
        let closedPort = server.url
        try await server.stop()
        let refused = await #expect(throws: NetworkError.self) { _ = try await self.network.send(NetworkRequest(url: closedPort + "/")) }
        #expect(refused?.kind == .connection)
        #expect(refused?.message.hasPrefix("GET \(closedPort)/ failed: ") == true, "\(refused?.message ?? "")")
        let invalid = await #expect(throws: NetworkError.self) { _ = try await self.network.send(NetworkRequest(url: "ftp://example.com/x")) }
        #expect(invalid?.kind == .invalidRequest)
    }

    /// Cookies come back to the host that set them, on its paths, and nowhere else; an expired one is
    /// forgotten, a Secure one stays off plain http.
    @Test func cookiesAreKeptAndSentBack() async throws {
        let server = try await LoopbackHTTPServer.start { request in
            guard request.uri == "/login" else { return .init(body: request.headers["cookie"] ?? "none") }
            return .init(
                body: "welcome",
                headers: [
                    ("Set-Cookie", "session=abc; Path=/; HttpOnly"),
                    ("Set-Cookie", "api=1; Path=/api"),
                    ("Set-Cookie", "gone=1; Max-Age=0"),
                    ("Set-Cookie", "secret=1; Secure"),
                ]
            )
        }
        defer { Task { try? await server.stop() } }
        func cookie(_ url: String, uses: Bool = true) async throws -> String {
            String(decoding: try await self.network.send(NetworkRequest(url: url, usesCookies: uses)).body, as: UTF8.self)
        }
        _ = try await self.network.send(NetworkRequest(url: server.url + "/login"))
        #expect(try await cookie(server.url + "/home") == "session=abc")
        #expect(try await cookie(server.url + "/api/v1") == "api=1; session=abc")
        #expect(try await cookie(server.url + "/home", uses: false) == "none")
        // The same server under another name is another host.
        #expect(try await cookie("http://localhost:\(server.port)/home") == "none")
        // Another channel has a jar of its own.
        let other = HostNetwork(logger: Logger(label: "test"))
        #expect(String(decoding: try await other.send(NetworkRequest(url: server.url + "/home")).body, as: UTF8.self) == "none")
    }

    // MARK: WebSocket

    @Test func webSocketEchoesTextAndBinaryAndCloses() async throws {
        let server = try await LoopbackWebSocketServer.start()
        defer { Task { try? await server.stop() } }
        let events = Events()
        let socket = try await self.network.openWebSocket(
            WebSocketRequest(url: server.url + "/chat?visitor=1", headers: [NetworkHeader("X-Greeting", "hi")]),
            events: events.record
        )
        try await socket.send(text: Array("hello?".utf8))
        try await socket.send(text: Array("one".utf8))
        try await socket.send(binary: [1, 2, 3])
        try await events.wait { $0.count == 3 }
        #expect(events.all == [.text(Array("greeting: hi".utf8)), .text(Array("one".utf8)), .binary([1, 2, 3])])
        await socket.close()
        try await Task.sleep(for: .milliseconds(300))
        #expect(events.all.count == 3, "no .closed after close(): \(events.all)")
        let error = await #expect(throws: NetworkError.self) { try await socket.send(text: Array("late".utf8)) }
        #expect(error?.kind == .closed)
    }

    @Test func aServerCloseIsReportedOnce() async throws {
        let server = try await LoopbackWebSocketServer.start()
        defer { Task { try? await server.stop() } }
        let events = Events()
        let socket = try await self.network.openWebSocket(WebSocketRequest(url: server.url + "/"), events: events.record)
        try await socket.send(text: Array("bye".utf8))
        try await events.wait { $0.contains { if case .closed = $0 { true } else { false } } }
        try await Task.sleep(for: .milliseconds(300))
        guard case .closed(let reason)? = events.all.last else {
            Issue.record("\(events.all)")
            return
        }
        #expect(events.all.count == 1)
        #expect(reason.hasPrefix("the server closed the connection") && reason.contains("bye"), "\(reason)")
    }

    @Test func aMessageOverTheLimitEndsTheConnection() async throws {
        let server = try await LoopbackWebSocketServer.start()
        defer { Task { try? await server.stop() } }
        let events = Events()
        let socket = try await self.network.openWebSocket(WebSocketRequest(url: server.url + "/", maximumMessageSize: 1024), events: events.record)
        try await socket.send(text: Array("small".utf8))
        try await socket.send(text: Array("big".utf8))
        try await events.wait { $0.contains { if case .closed = $0 { true } else { false } } }
        #expect(events.all.first == .text(Array("small".utf8)))
        guard case .closed(let reason)? = events.all.last else {
            Issue.record("\(events.all)")
            return
        }
        #expect(events.all.count == 2)
        #expect(reason == "the server sent a message larger than the limit of 1024 bytes")
    }

    @Test func anUnansweredUpgradeTimesOutAndARefusedConnectionFails() async throws {
        let server = try await LoopbackWebSocketServer.start()
        let events = Events()
        let hung = await #expect(throws: NetworkError.self) {
            _ = try await self.network.openWebSocket(
                WebSocketRequest(url: server.url + "/hang?token=secret", timeout: .milliseconds(300)),
                events: events.record
            )
        }
        #expect(hung?.kind == .timeout)
        #expect(hung?.message == "WebSocket \(server.url)/hang?… failed: no upgrade within 0.3 s")
        try await server.stop()
        // A port nobody listens on (the stopped server's port could still take the connection for a moment).
        let closedPort = try SocketPeer.tcpListener().address.port
        let refused = await #expect(throws: NetworkError.self) {
            _ = try await self.network.openWebSocket(WebSocketRequest(url: "ws://127.0.0.1:\(closedPort)/"), events: events.record)
        }
        #expect(refused?.kind == .connection)
        try await Task.sleep(for: .milliseconds(100))
        #expect(events.all.isEmpty)
    }
}

/// What a WebSocket delivered, in order.
final class Events: Sendable {
    private let received = Mutex<[WebSocketEvent]>([])

    var all: [WebSocketEvent] { self.received.withLock { $0 } }

    var record: @Sendable (WebSocketEvent) -> Void { { event in self.received.withLock { $0.append(event) } } }

    /// Waits up to 30 s for `condition` (generous: a loaded CI machine stalled 5 s).
    func wait(_ condition: ([WebSocketEvent]) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition(self.all) {
            guard ContinuousClock.now < deadline else {
                Issue.record("still waiting; received \(self.all.map { "\($0)".prefix(80) })")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
