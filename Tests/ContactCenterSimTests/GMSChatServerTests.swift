import ContactCenterSim
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The GMS server's Bayeux layer, over real HTTP on loopback with a raw-JSON client of the tests' own.
@Suite struct GMSChatServerTests {
    /// The server forgets a client that has not polled for `clientWindow`. These tests' client polls only when
    /// a step asks it to, and a machine loaded by the whole suite has stalled a test past CometD's 10 s (a
    /// "402::Unknown client" in a test about something else), so unless a test is about the window the
    /// server waits two minutes.
    static func start(
        _ settings: GMSServerSettings = GMSServerSettings(),
        clientWindow: Duration = .seconds(120)
    ) async throws -> (ContactCenterSimulator, GMSTestClient) {
        var settings = settings
        settings.clientWindow = clientWindow
        let simulator = try await ContactCenterSimulator.start(SimulatorConfiguration(gms: settings))
        return (simulator, GMSTestClient(url: simulator.gms.cometdURL))
    }

    @Test func handshakeConnectSubscribeAndPublish() async throws {
        let (simulator, client) = try await Self.start(GMSServerSettings(connectHold: .seconds(20)))
        defer { Task { await simulator.stop() } }
        #expect(simulator.gms.cometdURL == "http://127.0.0.1:\(simulator.httpPort)/genesys/cometd")
        #expect(simulator.gms.baseURL == "http://127.0.0.1:\(simulator.httpPort)/genesys")

        let (status, body, headers) = try await client.post(
            #"[{"channel":"/meta/handshake","version":"1.0","supportedConnectionTypes":["long-polling","callback-polling"],"id":"1"}]"#,
            to: "/handshake"
        )
        #expect(status == 200)
        #expect(headers["Set-Cookie"].first?.hasPrefix("BAYEUX_BROWSER=") == true)
        let handshake = try #require(try GMSTestClient.parse(body).first)
        #expect(handshake["successful"] as? Bool == true)
        #expect(handshake["id"] as? String == "1")
        #expect(handshake["supportedConnectionTypes"] as? [String] == ["long-polling", "websocket"])
        let advice = try #require(handshake["advice"] as? [String: Any])
        #expect(advice["reconnect"] as? String == "retry")
        #expect(advice["timeout"] as? Int == 20000)
        #expect(advice["maxInterval"] as? Int == 120_000, "the client window these tests run with")
        let clientID = try #require(handshake["clientId"] as? String)

        // The first connect is answered at once, as on CometD.
        let first = try await client.connect(clientID)
        #expect(first.first?["successful"] as? Bool == true)
        #expect(first.first?["channel"] as? String == "/meta/connect")

        let subscribed = try await client.subscribe(clientID, "/chat/**")
        #expect(subscribed.first?["successful"] as? Bool == true)
        #expect(subscribed.first?["subscription"] as? String == "/chat/**")
        let service = try await client.subscribe(clientID, "/service/chatV2/customer-support")
        #expect(service.first?["successful"] as? Bool == true)

        // A held connect is answered by the published event; the ack is separate.
        let held = Task { try await client.post(GMSTestClient.connectBody(clientID, id: "2")).body }
        _ = try await poll(seconds: 30) { simulator.gms.counters.connects >= 2 ? true : nil }
        let ack = try await client.publish(clientID, "/chat/demo", #"{"text":"hi"}"#, id: "7")
        #expect(ack.count == 1)
        #expect(ack.first?["channel"] as? String == "/chat/demo")
        #expect(ack.first?["successful"] as? Bool == true)
        #expect(ack.first?["id"] as? String == "7")
        #expect(ack.first?["data"] == nil)
        let delivered = try GMSTestClient.parse(try await held.value)
        #expect(delivered.first?["channel"] as? String == "/meta/connect")
        #expect(delivered.first?["id"] as? String == "2")
        #expect(delivered.dropFirst().first?["channel"] as? String == "/chat/demo")
        #expect(delivered.dropFirst().first?.data["text"] as? String == "hi")

        // The form field `message=` is read too.
        let form = try await client.post(
            "message="
                + (#"[{"channel":"/meta/unsubscribe","clientId":"\#(clientID)","subscription":"/chat/**","id":"u"}]"#.addingPercentEncoding(
                    withAllowedCharacters: .alphanumerics
                ) ?? ""),
            contentType: "application/x-www-form-urlencoded"
        )
        #expect(try GMSTestClient.parse(form.body).first?["successful"] as? Bool == true)

        // Nothing shared: the handshake fails.
        let refused = try await client.send(
            #"{"channel":"/meta/handshake","version":"1.0","supportedConnectionTypes":["callback-polling"],"id":"9"}"#
        )
        #expect(refused.first?["successful"] as? Bool == false)
        #expect(simulator.gms.counters.handshakes == 1)
    }

    @Test func clientAdviceTimeoutAndSecondConnectAnswerTheFirst() async throws {
        let (simulator, client) = try await Self.start(GMSServerSettings(connectHold: .seconds(60)))
        defer { Task { await simulator.stop() } }
        let clientID = try await client.handshake()
        _ = try await client.connect(clientID)
        // advice.timeout 0: answered at once although the hold is 60 s.
        #expect(try await client.connect(clientID, timeout: 0).first?["successful"] as? Bool == true)

        let first = Task { try await client.post(GMSTestClient.connectBody(clientID, id: "a")).body }
        _ = try await poll(seconds: 30) { simulator.gms.counters.connects >= 3 ? true : nil }
        let second = Task { try await client.post(GMSTestClient.connectBody(clientID, id: "b")).body }
        let answered = try GMSTestClient.parse(try await first.value)
        #expect(answered.count == 1)
        #expect(answered.first?["id"] as? String == "a")
        #expect(answered.first?["successful"] as? Bool == true)
        // The second is answered by the next event.
        _ = try await client.subscribe(clientID, "/news")
        _ = try await client.publish(clientID, "/news", #"{"n":1}"#)
        let woken = try GMSTestClient.parse(try await second.value)
        #expect(woken.first?["id"] as? String == "b")
        #expect(woken.dropFirst().first?.data["n"] as? Int == 1)
    }

    @Test func disconnectEndsTheHeldConnect() async throws {
        let (simulator, client) = try await Self.start(GMSServerSettings(connectHold: .seconds(60)))
        defer { Task { await simulator.stop() } }
        let clientID = try await client.handshake()
        _ = try await client.connect(clientID)
        let held = Task { try await client.post(GMSTestClient.connectBody(clientID, id: "h")).body }
        _ = try await poll(seconds: 30) { simulator.gms.counters.connects >= 2 ? true : nil }
        let bye = try await client.send(#"{"channel":"/meta/disconnect","clientId":"\#(clientID)","id":"d"}"#)
        #expect(bye.first?["successful"] as? Bool == true)
        #expect(bye.first?["id"] as? String == "d")
        let answered = try GMSTestClient.parse(try await held.value)
        #expect(answered.first?["id"] as? String == "h")
        #expect(simulator.gms.counters.disconnects.map(\.clientID) == [clientID])
        #expect(simulator.gms.counters.disconnects.first?.transcriptPosition == nil)
        #expect(simulator.gms.counters.clientsAlive == 0)
    }

    @Test func restartForgetsClientsWhoGet402AndHandshakeAdvice() async throws {
        let (simulator, client) = try await Self.start()
        defer { Task { await simulator.stop() } }
        let clientID = try await client.handshake()
        _ = try await client.connect(clientID)
        simulator.gms.restart()
        for reply in [try await client.connect(clientID), try await client.publish(clientID, "/x", "{}")] {
            #expect(reply.first?["successful"] as? Bool == false)
            #expect(reply.first?["error"] as? String == "402::Unknown client")
            let advice = try #require(reply.first?["advice"] as? [String: Any])
            #expect(advice["reconnect"] as? String == "handshake")
            #expect(advice["interval"] as? Int == 0)
        }
        #expect(simulator.gms.counters.unknownClientReplies == 2)
        #expect(simulator.gms.counters.restarts == 1)
        let again = try await client.handshake()
        #expect(again != clientID)
    }

    @Test func aClientWithoutConnectIsDestroyedAfterTheWindow() async throws {
        let (simulator, client) = try await Self.start(GMSServerSettings(connectHold: .seconds(30)), clientWindow: .milliseconds(500))
        defer { Task { await simulator.stop() } }
        let clientID = try await client.handshake()
        _ = try await client.connect(clientID)
        try await simulator.gms.waitForClients(0, atMost: true, timeout: .seconds(60))
        #expect(simulator.gms.counters.clientsExpired == 1)
        #expect(try await client.connect(clientID).first?["error"] as? String == "402::Unknown client")
    }

    @Test func aDroppedHeldConnectEndsTheLongPollAndStartsTheWindow() async throws {
        // The window starts when the first connect is answered, and the test's next connect has to reach
        // the server within it: 3 s was once too little while the whole suite loaded both cores (the
        // client expired, the held connect was refused as unknown). The test waits out the window once.
        let (simulator, client) = try await Self.start(GMSServerSettings(connectHold: .seconds(60)), clientWindow: .seconds(8))
        defer { Task { await simulator.stop() } }
        let clientID = try await client.handshake()
        _ = try await client.connect(clientID)
        let held = Task { try await client.post(GMSTestClient.connectBody(clientID)) }
        _ = try await poll(seconds: 30) {
            if simulator.gms.counters.unknownClientReplies > 0 {
                throw GMSTestClient.Failure(description: "the client expired before its held connect arrived")
            }
            return simulator.gms.counters.connects >= 2 ? true : nil
        }
        try await Task.sleep(for: .milliseconds(100))
        simulator.gms.dropConnections()
        await #expect(throws: (any Error).self) { _ = try await held.value }
        try await simulator.gms.waitForClients(0, atMost: true, timeout: .seconds(60))
        #expect(simulator.gms.counters.clientsExpired == 1)
    }

    @Test func downAnswers503AndControlEndpoints() async throws {
        let (simulator, client) = try await Self.start(GMSServerSettings(greetingDelay: .milliseconds(50)))
        defer { Task { await simulator.stop() } }
        let control = "http://127.0.0.1:\(simulator.httpPort)/control/gms"
        #expect(try await CXoneGatewayTests.http(.POST, control + "/fault?kind=down").status == 200)
        #expect(try await client.post(#"[{"channel":"/meta/handshake","supportedConnectionTypes":["long-polling"]}]"#).status == 503)
        #expect(try await CXoneGatewayTests.http(.POST, control + "/fault?kind=up").status == 200)
        let clientID = try await client.handshake()
        #expect(try await CXoneGatewayTests.http(.POST, control + "/agent?text=hello").status == 409)

        _ = try await client.publish(clientID, "/service/chatV2/customer-support", #"{"operation":"requestChat","nickname":"Ann"}"#)
        _ = try await simulator.gms.waitForChat(timeout: .seconds(60))
        #expect(try await CXoneGatewayTests.http(.POST, control + "/agent?text=from%20control").status == 200)
        #expect(try await CXoneGatewayTests.http(.POST, control + "/typing?state=started").status == 200)
        #expect(try await CXoneGatewayTests.http(.POST, control + "/push-url?url=https://example.com").status == 200)
        #expect(try await CXoneGatewayTests.http(.POST, control + "/notice?text=note").status == 200)
        let chats = try JSONSerialization.jsonObject(with: Data(try await CXoneGatewayTests.http(.GET, control + "/chats").body)) as? [String: Any]
        let chat = try #require((chats?["chats"] as? [[String: Any]])?.first)
        #expect(chat["version"] as? String == "v2")
        #expect(chat["online"] as? Bool == true)
        let texts = (chat["transcript"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
        #expect(texts.contains("from control"))
        #expect(texts.contains("https://example.com"))
        #expect(try await CXoneGatewayTests.http(.POST, control + "/end").status == 200)
        #expect(simulator.gms.chats.first?.isEnded == true)
        let status = try JSONSerialization.jsonObject(with: Data(try await CXoneGatewayTests.http(.GET, control + "/status").body)) as? [String: Any]
        #expect(status?["handshakes"] as? Int == 1)
        #expect(status?["clients_alive"] as? Int == 1)
        #expect(try await CXoneGatewayTests.http(.POST, control + "/fault?kind=nope").status == 400)
    }
}

/// Checks `probe` every 10 ms for up to `seconds`.
func poll<T>(seconds: Double, _ probe: () throws -> T?) async throws -> T {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        if let value = try probe() { return value }
        guard Date() < deadline else { throw GMSTestClient.Failure(description: "condition not met within \(seconds) s") }
        try await Task.sleep(for: .milliseconds(10))
    }
}
