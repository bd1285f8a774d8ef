import AttendantPluginAPI
import AttendantPluginTestKit
import Synchronization
import TestSupport
import Testing

/// The test kit's network keeps the promises of ``ChannelNetwork`` that the daemon's keeps: answers by
/// method and URL, errors by kind, callbacks in order and none after a close.
@Suite struct InMemoryNetworkHTTPTests {
    @Test func scriptedAnswersGoByMethodAndURLAndOnceAnswersComeFirst() async throws {
        let network = InMemoryNetwork()
        network.answer("GET", "https://api.example.com/status", with: NetworkResponse(status: 200, body: Array("up".utf8)))
        network.answerOnce("GET", "https://api.example.com/status", with: .response(NetworkResponse(status: 503)))
        network.answer("POST", "https://api.example.com/status", with: NetworkResponse(status: 405))

        let first = try await network.send(NetworkRequest(url: "https://api.example.com/status?probe=1"))
        let second = try await network.send(NetworkRequest(url: "https://api.example.com/status"))
        let posted = try await network.send(NetworkRequest(method: "post", url: "https://api.example.com/status"))

        #expect(first.status == 503)
        #expect(second.status == 200 && second.body == Array("up".utf8))
        #expect(posted.status == 405)
        #expect(network.requests.map(\.method) == ["GET", "GET", "POST"])
        #expect(try await network.nextRequest().url == "https://api.example.com/status?probe=1")
    }

    @Test func failuresAreTheErrorsTheDaemonsNetworkThrows() async throws {
        let network = InMemoryNetwork()
        network.answer("GET", "https://api.example.com/cert", with: .failure(NetworkError(.certificate, "untrusted")))
        network.answer("GET", "https://api.example.com/big", with: NetworkResponse(status: 200, body: [UInt8](repeating: 1, count: 11)))

        await #expect(throws: NetworkError(.certificate, "untrusted")) {
            try await network.send(NetworkRequest(url: "https://api.example.com/cert"))
        }
        let tooLarge = await #expect(throws: NetworkError.self) {
            try await network.send(NetworkRequest(url: "https://api.example.com/big", maximumResponseSize: 10))
        }
        #expect(tooLarge?.kind == .tooLarge && tooLarge?.status == 200)
        let unscripted = await #expect(throws: NetworkError.self) {
            try await network.send(NetworkRequest(url: "https://elsewhere.example.com/"))
        }
        #expect(unscripted?.kind == .connection)
        let invalid = await #expect(throws: NetworkError.self) { try await network.send(NetworkRequest(url: "ftp://x/")) }
        #expect(invalid?.kind == .invalidRequest)
        #expect(network.requests.count == 3)
    }

    @Test func aTestsWaitForWhatNeverComesEndsWithATimeout() async throws {
        let network = InMemoryNetwork()
        let timeout = await #expect(throws: InMemoryNetworkTimeout.self) { try await network.nextRequest(timeout: .milliseconds(20)) }
        #expect(timeout?.description == "no HTTP request from the channel within 0.02 seconds")
        // A request that comes later is still handed out.
        network.answer("GET", "http://example.com/", with: NetworkResponse(status: 200))
        _ = try await network.send(NetworkRequest(url: "http://example.com/"))
        #expect(try await network.nextRequest().url == "http://example.com/")
    }

    @Test func aHeldRequestTimesOutOnTheNetworksClock() async throws {
        let clock = ManualClock()
        let network = InMemoryNetwork(clock: clock)
        network.handleRequests { _ async throws(NetworkError) in
            try? await Task.sleep(for: .seconds(3600))
            return NetworkResponse(status: 200)
        }
        let request = Task { try await network.send(NetworkRequest(url: "http://poll.example.com/connect", timeout: .seconds(45))) }
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(45))
        let error = await #expect(throws: NetworkError.self) { try await request.value }
        #expect(error == NetworkError(.timeout, "GET http://poll.example.com/connect failed: no answer within 45 s"))
    }

    @Test func aHandlerAnswersLaterAndCancellingTheCallerEndsTheRequest() async throws {
        let network = InMemoryNetwork(clock: ManualClock())
        let release = AsyncStream<Int>.makeStream()
        network.handleRequests { request async throws(NetworkError) in
            for await status in release.stream { return NetworkResponse(status: status, body: request.body ?? []) }
            throw NetworkError(.connection, "gone")
        }
        let answered = Task { try await network.send(NetworkRequest(method: "POST", url: "http://poll.example.com/a", body: [7])) }
        _ = try await network.nextRequest()
        release.continuation.yield(202)
        #expect(try await answered.value == NetworkResponse(status: 202, body: [7]))

        let cancelled = Task { try await network.send(NetworkRequest(url: "http://poll.example.com/b")) }
        _ = try await network.nextRequest()
        cancelled.cancel()
        let error = await #expect(throws: NetworkError.self) { try await cancelled.value }
        #expect(error?.kind == .closed)
    }
}

/// The network keeps a channel's cookies as the daemon's does (InMemoryNetworkConformanceTests compares
/// the two): a protocol whose server tells its clients apart by a cookie, such as GMS long-polling's
/// BAYEUX_BROWSER, works on the test kit.
@Suite struct InMemoryNetworkCookieTests {
    static let handshake = "https://gms.example.com/genesys/cometd/handshake"

    /// A server that sets cookies on the handshake and answers every other request with the Cookie
    /// header it got ("none" without one).
    static func network(clock: ManualClock = ManualClock()) -> InMemoryNetwork {
        let network = InMemoryNetwork(clock: clock)
        network.answer(
            "POST",
            Self.handshake,
            with: NetworkResponse(
                status: 200,
                headers: [
                    NetworkHeader("Set-Cookie", "BAYEUX_BROWSER=b1x2; Path=/genesys/cometd"),
                    NetworkHeader("set-cookie", "lb=node-3; Max-Age=60; Path=/"),
                    NetworkHeader("Set-Cookie", "secret=1; Secure; Path=/"),
                ]
            )
        )
        network.handleRequests { request async throws(NetworkError) in
            NetworkResponse(status: 200, body: Array((request.headers.first { $0.name.lowercased() == "cookie" }?.value ?? "none").utf8))
        }
        return network
    }

    static func cookie(_ network: InMemoryNetwork, _ url: String, uses: Bool = true, own: String? = nil) async throws -> String {
        let headers = own.map { [NetworkHeader("Cookie", $0)] } ?? []
        return String(decoding: try await network.send(NetworkRequest(url: url, headers: headers, usesCookies: uses)).body, as: UTF8.self)
    }

    @Test func theAnswersCookiesComeBackToTheirHostAndPathWithRequestsThatUseThem() async throws {
        let clock = ManualClock()
        let network = Self.network(clock: clock)
        _ = try await network.send(NetworkRequest(method: "POST", url: Self.handshake))

        let connect = "https://gms.example.com/genesys/cometd/connect"
        #expect(try await Self.cookie(network, connect) == "BAYEUX_BROWSER=b1x2; lb=node-3; secret=1")
        // What the server got is what the test reads: the request as recorded carries the jar's header.
        #expect(network.requests.last?.headers == [NetworkHeader("Cookie", "BAYEUX_BROWSER=b1x2; lb=node-3; secret=1")])
        // Outside the cookie's path, over plain http (no Secure cookie), to another host, without usesCookies.
        #expect(try await Self.cookie(network, "https://gms.example.com/genesys/api/v2/chats") == "lb=node-3; secret=1")
        #expect(try await Self.cookie(network, "http://gms.example.com/genesys/cometd/connect") == "BAYEUX_BROWSER=b1x2; lb=node-3")
        #expect(try await Self.cookie(network, "https://other.example.com/genesys/cometd/connect") == "none")
        #expect(try await Self.cookie(network, connect, uses: false) == "none")
        // A Cookie header of the channel's own comes first, in the one header.
        #expect(try await Self.cookie(network, connect, own: "mine=1") == "mine=1; BAYEUX_BROWSER=b1x2; lb=node-3; secret=1")
        // Max-Age runs on the network's clock.
        clock.advance(by: .seconds(60))
        #expect(try await Self.cookie(network, connect) == "BAYEUX_BROWSER=b1x2; secret=1")
        // Another network (the daemon: another channel) has a jar of its own.
        #expect(try await Self.cookie(Self.network(), connect) == "none")
    }

    /// A request that does not use cookies keeps none of its answer's.
    @Test func anAnswerToARequestWithoutCookiesSetsNone() async throws {
        let network = Self.network()
        _ = try await network.send(NetworkRequest(method: "POST", url: Self.handshake, usesCookies: false))
        #expect(try await Self.cookie(network, "https://gms.example.com/genesys/cometd/connect") == "none")
    }
}

@Suite struct InMemoryNetworkWebSocketTests {
    @Test func eventsReachTheChannelInOrderAndTheServersCloseOnce() async throws {
        let network = InMemoryNetwork()
        let events = Events<WebSocketEvent>()
        let connection = try await network.openWebSocket(WebSocketRequest(url: "wss://chat.example.com/ws?brand=1"), events: events.append)
        let socket = try await network.nextWebSocket()
        #expect(socket.request.url == "wss://chat.example.com/ws?brand=1")

        #expect(socket.send(text: "one"))
        #expect(socket.send(binary: [1, 2]))
        #expect(socket.close(code: 1001, reason: "going away"))
        #expect(!socket.close())
        #expect(!socket.send(text: "late"))

        #expect(events.all == [.text(Array("one".utf8)), .binary([1, 2]), .closed("the server closed the connection (1001: going away)")])
        await #expect(throws: NetworkError(.closed, "the WebSocket connection is closed")) {
            try await connection.send(text: Array("after".utf8))
        }
    }

    @Test func theServerReadsWhatTheChannelSentAndItsCloseSilencesTheSocket() async throws {
        let network = InMemoryNetwork()
        let events = Events<WebSocketEvent>()
        let connection = try await network.openWebSocket(WebSocketRequest(url: "ws://127.0.0.1:9/ws"), events: events.append)
        let socket = try await network.nextWebSocket()
        try await connection.send(text: Array("hello".utf8))
        try await connection.ping([9])
        await connection.close()

        #expect(try await socket.nextMessage() == .text("hello"))
        #expect(try await socket.nextMessage() == .ping([9]))
        #expect(try await socket.nextMessage() == .closed)
        #expect(socket.isClosed)
        #expect(!socket.send(text: "late") && !socket.fail())
        #expect(events.all.isEmpty)
    }

    @Test func aMessageOverTheLimitEndsTheConnection() async throws {
        let network = InMemoryNetwork()
        let events = Events<WebSocketEvent>()
        _ = try await network.openWebSocket(WebSocketRequest(url: "ws://chat.example.com/", maximumMessageSize: 4), events: events.append)
        let socket = try await network.nextWebSocket()
        socket.send(text: "12345")
        #expect(events.all == [.closed("the server sent a message larger than the limit of 4 bytes")])
    }

    @Test func refusalsAreUsedTheirNumberOfTimes() async throws {
        let network = InMemoryNetwork()
        network.refuseWebSockets(to: "wss://chat.example.com", with: NetworkError(.certificate, "not trusted"), times: 1)
        await #expect(throws: NetworkError(.certificate, "not trusted")) {
            try await network.openWebSocket(WebSocketRequest(url: "wss://chat.example.com/ws"), events: { _ in })
        }
        _ = try await network.openWebSocket(WebSocketRequest(url: "wss://chat.example.com/ws"), events: { _ in })
        let invalid = await #expect(throws: NetworkError.self) {
            try await network.openWebSocket(WebSocketRequest(url: "https://chat.example.com/ws"), events: { _ in })
        }
        #expect(invalid?.kind == .invalidRequest)
        #expect(network.webSockets.count == 1)
    }

    @Test func eventsAStillDeliveringCallbackCausesComeAfterIt() async throws {
        let network = InMemoryNetwork()
        let events = Events<WebSocketEvent>()
        let socketBox = Mutex<WebSocketPeer?>(nil)
        _ = try await network.openWebSocket(WebSocketRequest(url: "ws://chat.example.com/")) { event in
            events.append(event)
            // A reply that makes the server speak again, from inside the callback: it must queue behind.
            if event == .text(Array("ping".utf8)) { socketBox.withLock { $0 }?.send(text: "pong") }
        }
        let socket = try await network.nextWebSocket()
        socketBox.withLock { $0 = socket }
        socket.send(text: "ping")
        socket.send(text: "after")
        #expect(events.all == [.text(Array("ping".utf8)), .text(Array("pong".utf8)), .text(Array("after".utf8))])
    }
}

@Suite struct InMemoryNetworkFlowTests {
    @Test func aDatagramFlowSendsAndReceivesUntilTheChannelClosesIt() async throws {
        let network = InMemoryNetwork()
        network.setAddress("192.0.2.10", for: "pbx.example.com")
        let events = Events<DatagramEvent>()
        let flow = try await network.openDatagramFlow(
            to: "pbx.example.com",
            port: 5060,
            options: DatagramOptions(maximumDatagramSize: 8, acceptFromAnywhere: false),
            receive: events.append
        )
        let peer = try await network.nextDatagramFlow()
        #expect(flow.remote == NetworkAddress(ip: "192.0.2.10", port: 5060) && peer.local == flow.local)

        flow.send(Array("REGISTER".utf8))
        #expect(try await peer.nextDatagram() == DatagramPeer.Datagram(bytes: Array("REGISTER".utf8), destination: flow.remote))
        #expect(peer.deliver(text: "200"))
        #expect(peer.deliver(text: "0123456789"))
        #expect(!peer.deliver(text: "other", from: NetworkAddress(ip: "192.0.2.99", port: 5060)))
        #expect(peer.unreachable())
        await flow.close()
        #expect(!peer.deliver(text: "late") && peer.isClosed)
        flow.send([1])

        #expect(
            events.all == [
                .datagram(Array("200".utf8), from: flow.remote, truncated: false),
                .datagram(Array("01234567".utf8), from: flow.remote, truncated: true),
                .unreachable("Connection refused"),
            ]
        )
        #expect(peer.datagrams.count == 1)
    }

    @Test func anAddressWhereNothingListensAnswersTheConnectedFlowWithUnreachable() async throws {
        let network = InMemoryNetwork()
        let events = Events<DatagramEvent>()
        let registrar = NetworkAddress(ip: "127.0.0.1", port: 5060)
        let elsewhere = NetworkAddress(ip: "127.0.0.1", port: 5070)
        let flow = try await network.openDatagramFlow(to: "127.0.0.1", port: 5060, options: DatagramOptions(), receive: events.append)
        flow.send(Array("one".utf8))
        flow.send(Array("two".utf8), to: elsewhere)
        let (sender, first) = try await network.nextDatagram(to: registrar)
        #expect(sender.local == flow.local && first.text == "one")
        #expect(try await network.nextDatagram(to: elsewhere).datagram.text == "two")

        network.setUnreachable(registrar)
        network.setUnreachable(elsewhere)
        flow.send(Array("lost".utf8), to: elsewhere)  // an unconnected send hears nothing back
        flow.send(Array("three".utf8))
        _ = try await network.nextDatagram(to: registrar)
        try await eventually("the ICMP error for what the connected socket sent") { !events.all.isEmpty }
        #expect(events.all == [.unreachable("Connection refused")])
    }

    @Test func namesWithoutAnAddressDoNotResolveAndRefusalsFailTheOpen() async throws {
        let network = InMemoryNetwork()
        let unresolved = await #expect(throws: NetworkError.self) {
            try await network.openDatagramFlow(to: "nowhere.example.com", port: 5060, options: DatagramOptions(), receive: { _ in })
        }
        #expect(unresolved?.kind == .resolution)
        network.refuseFlows(to: "192.0.2.1", port: 5061, with: NetworkError(.certificate, "expired"), times: 1)
        await #expect(throws: NetworkError(.certificate, "expired")) {
            try await network.openStreamFlow(
                to: "192.0.2.1",
                port: 5061,
                options: StreamOptions(tls: StreamTLS(serverName: "pbx")),
                receiver: { _ in Receiver() }
            )
        }
        let tlsListen = await #expect(throws: NetworkError.self) {
            try await network.openStreamFlow(
                to: "192.0.2.1",
                port: 5061,
                options: StreamOptions(listen: true, tls: StreamTLS(serverName: "pbx")),
                receiver: { _ in Receiver() }
            )
        }
        #expect(tlsListen?.kind == .invalidRequest)
        _ = try await network.openStreamFlow(
            to: "192.0.2.1",
            port: 5061,
            options: StreamOptions(tls: StreamTLS(serverName: "pbx")),
            receiver: { _ in Receiver() }
        )
        #expect(try await network.nextStreamFlow().options.tls == StreamTLS(serverName: "pbx"))
    }

    @Test func aStreamFlowsConnectionsReachTheirReceiversUntilEitherSideEndsThem() async throws {
        let network = InMemoryNetwork()
        let receivers = Mutex<[Receiver]>([])
        let flow = try await network.openStreamFlow(to: "127.0.0.1", port: 5060, options: StreamOptions(listen: true)) { connection in
            let receiver = Receiver(connection)
            receivers.withLock { $0.append(receiver) }
            return receiver
        }
        let peer = try await network.nextStreamFlow()
        let outgoing = receivers.withLock { $0[0] }
        #expect(outgoing.connection === flow.connection && !flow.connection.isInbound)

        flow.connection.write(Array("OPTIONS".utf8))
        #expect(try await peer.connection.nextWrite() == Array("OPTIONS".utf8))
        peer.connection.deliver(text: "SIP/2.0 200 OK")
        #expect(peer.connection.close())
        #expect(!peer.connection.close() && !peer.connection.deliver(text: "late"))
        #expect(outgoing.log == ["SIP/2.0 200 OK", "closed: closed by the peer"])

        let caller = try peer.accept(from: NetworkAddress(ip: "192.0.2.7", port: 40_000))
        let inbound = receivers.withLock { $0[1] }
        #expect(inbound.connection?.isInbound == true && inbound.connection?.peer == caller.peer)
        caller.deliver(text: "INVITE")
        await flow.close()
        #expect(!caller.deliver(text: "late") && caller.isClosedByChannel)
        #expect(inbound.log == ["INVITE"])
        #expect(throws: NetworkError.self) { try peer.accept(from: NetworkAddress(ip: "192.0.2.8", port: 1)) }
    }

    @Test func theTestHostLendsAnInMemoryNetworkOnItsClock() async throws {
        let host = InMemoryChannelHost()
        host.inMemoryNetwork.answer("GET", "https://example.com/", with: NetworkResponse(status: 204))
        #expect(try await host.network.send(NetworkRequest(url: "https://example.com/")).status == 204)
        #expect(host.inMemoryNetwork.clock is ManualClock)
    }
}

/// What a callback heard, in order.
final class Events<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])
    var all: [Event] { self.events.withLock { $0 } }
    var append: @Sendable (Event) -> Void { { event in self.events.withLock { $0.append(event) } } }
}

final class Receiver: StreamReceiver {
    let connection: (any StreamConnection)?
    private let heard = Mutex<[String]>([])

    init(_ connection: (any StreamConnection)? = nil) { self.connection = connection }

    var log: [String] { self.heard.withLock { $0 } }
    func received(_ bytes: [UInt8]) { self.heard.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) } }
    func closed(_ reason: String) { self.heard.withLock { $0.append("closed: \(reason)") } }
}
