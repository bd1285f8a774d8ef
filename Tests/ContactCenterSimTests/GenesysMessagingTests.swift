import AsyncHTTPClient
import ContactCenterSim
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The web messaging service over a real WebSocket and HTTP, with requests written as the Messenger
/// transport SDK serialises them (its `shyrka/send/*` classes and test fixtures) and answers read with
/// Foundation's JSON: neither side uses the plugin's codec (GenesysCore).
@Suite struct GenesysMessagingTests {
    static let healthCheckID = "SGVhbHRoQ2hlY2tNZXNzYWdlSWQ="

    static func start(
        _ settings: GenesysMessagingSettings = GenesysMessagingSettings(),
        clock: ManualWallClock? = nil
    ) async throws
        -> ContactCenterSimulator
    {
        var configuration = SimulatorConfiguration(genesys: settings)
        if let clock { configuration.now = { clock.now } }
        return try await ContactCenterSimulator.start(configuration)
    }

    /// An HTTP request through AsyncHTTPClient: status and body.
    static func http(
        _ method: HTTPMethod,
        _ url: String,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil
    ) async throws -> (
        status: Int, body: [UInt8]
    ) {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = client.shutdown() }
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(60))
        let collected = try await response.body.collect(upTo: 1 << 24)
        return (Int(response.status.code), Array(collected.readableBytesView))
    }

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    static func control(_ simulator: ContactCenterSimulator, _ path: String, body: [UInt8]? = nil) async throws -> [String: Any] {
        let (status, bytes) = try await Self.http(.POST, "http://127.0.0.1:\(simulator.httpPort)/control/genesys/\(path)", body: body)
        #expect(status == 200, "\(path): \(String(decoding: bytes, as: UTF8.self))")
        return try Self.object(bytes)
    }

    // MARK: REST

    @Test func deploymentConfigurationAnnouncesTheFileProfileAndTheSocket() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let endpoints = simulator.genesysEndpoints
        #expect(endpoints.socket == "ws://127.0.0.1:\(simulator.httpPort)/v1?deploymentId=\(endpoints.deploymentId)")
        let (status, body) = try await Self.http(.GET, endpoints.deploymentConfig)
        #expect(status == 200)
        let config = try Self.object(body)
        #expect(config["id"] as? String == endpoints.deploymentId)
        #expect(config["status"] as? String == "Active")
        let messenger = try #require(config["messenger"] as? [String: Any])
        let conversations = try #require((messenger["apps"] as? [String: Any])?["conversations"] as? [String: Any])
        #expect(conversations["messagingEndpoint"] as? String == "ws://127.0.0.1:\(simulator.httpPort)")
        #expect((conversations["conversationDisconnect"] as? [String: Any])?["type"] as? String == "ReadOnly")
        let mode = try #require(((messenger["fileUpload"] as? [String: Any])?["modes"] as? [[String: Any]])?.first)
        #expect(mode["fileTypes"] as? [String] == ["image/png", "image/jpeg", "image/gif", "application/pdf", "text/plain"])
        #expect(mode["maxFileSizeKB"] as? Int == 10240)
        #expect((config["auth"] as? [String: Any])?["enabled"] as? Bool == false)

        let unknown = try await Self.http(.GET, "\(endpoints.api)/webdeployments/v1/deployments/nope/config.json")
        #expect(unknown.status == 404)
        #expect(try Self.object(unknown.body)["status"] as? Int == 404)
    }

    // MARK: Sessions and messages

    @Test func configureEchoAndMessagesBothWays() async throws {
        let simulator = try await Self.start(GenesysMessagingSettings(autoReply: true))
        defer { Task { await simulator.stop() } }
        let client = try await GenesysTestClient.connect(simulator)
        // A request before configureSession names no session of this socket: 4007.
        client.send(#"{"token":"\#(client.token)","tracingId":"t0","action":"onMessage","message":{"text":"early","type":"Text"}}"#)
        let early = try await client.frame()
        #expect(early["class"] as? String == "string")
        #expect(early["code"] as? Int == 4007)
        #expect(early["tracingId"] as? String == "t0")

        client.send(#"{"token":"\#(client.token)","deploymentId":"wrong","startNew":false,"action":"configureSession"}"#)
        #expect(try await client.frame()["code"] as? Int == 403)

        let session = try await client.configure()
        #expect(session["connected"] as? Bool == true)
        #expect(session["newSession"] as? Bool == true)
        #expect(session["readOnly"] as? Bool == false)
        let inbound = try #require((session["allowedMedia"] as? [String: Any])?["inbound"] as? [String: Any])
        #expect(inbound["maxFileSizeKB"] as? Int == 10240)
        let expiration = try #require(session["expirationDate"] as? Int)

        // EchoRequest.kt, as TestEchoRequests has it, with the SDK's HealthCheckID.
        client.send(#"{"token":"\#(client.token)","tracingId":"\#(Self.healthCheckID)","action":"echo","message":{"text":"ping","type":"Text"}}"#)
        let echo = try await client.frame()
        #expect(echo["type"] as? String == "response")
        #expect(echo["class"] as? String == "StructuredMessage")
        #expect(echo["tracingId"] as? String == Self.healthCheckID)
        let echoBody = try #require(echo["body"] as? [String: Any])
        #expect(echoBody["text"] as? String == "ping")
        #expect(echoBody["direction"] as? String == "Inbound")
        #expect((echoBody["metadata"] as? [String: Any])?["expirationDate"] as? String == String(expiration))

        client.send(#"{"token":"\#(client.token)","tracingId":"m1","action":"onMessage","message":{"text":"Where is my parcel?","type":"Text"}}"#)
        let mine = try await client.frame()
        #expect(mine["type"] as? String == "message")
        #expect(mine["tracingId"] as? String == "m1")
        let mineBody = try #require(mine["body"] as? [String: Any])
        #expect(mineBody["direction"] as? String == "Inbound")
        #expect(mineBody["text"] as? String == "Where is my parcel?")
        let reply = try #require(try await client.frame()["body"] as? [String: Any])
        #expect(reply["direction"] as? String == "Outbound")
        #expect(reply["type"] as? String == "Text")
        #expect(reply["text"] as? String == "You said: Where is my parcel?")
        #expect(((reply["channel"] as? [String: Any])?["from"] as? [String: Any])?["nickname"] as? String == "Sam")
        #expect(simulator.genesys.messagesReceived == 1)

        // The same token on a new socket resumes the session.
        await client.socket.close()
        let again = try await GenesysTestClient.connect(simulator, token: client.token)
        #expect(try await again.configure()["newSession"] as? Bool == false)
        #expect(try simulator.genesys.transcript() == ["Inbound: Where is my parcel?", "Outbound: You said: Where is my parcel?"])

        // Too long a text is 4011; custom attributes over maxCustomDataBytes are 4013.
        let long = String(repeating: "a", count: 4097)
        again.send(#"{"token":"\#(again.token)","action":"onMessage","message":{"text":"\#(long)","type":"Text"}}"#)
        #expect(try await again.frame()["code"] as? Int == 4011)
        let attributes = String(repeating: "b", count: 2100)
        again.send(
            #"{"token":"\#(again.token)","action":"onMessage","message":{"text":"hi","type":"Text","channel":{"metadata":{"customAttributes":{"k":"\#(attributes)"}}}}}"#
        )
        #expect(try await again.frame()["code"] as? Int == 4013)
        again.send("not json")
        #expect(try await again.frame()["code"] as? Int == 400)
    }

    @Test func quickRepliesAndCardsAreAnsweredWithButtonResponses() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let client = try await GenesysTestClient.connect(simulator)
        _ = try await client.configure()

        _ = try await Self.control(simulator, "quick-replies?text=Track%20it%3F&options=Yes=yes,No")
        let offer = try #require(try await client.frame()["body"] as? [String: Any])
        #expect(offer["type"] as? String == "Structured")
        let replies = try #require(offer["content"] as? [[String: Any]])
        #expect(replies.map { $0["contentType"] as? String } == ["QuickReply", "QuickReply"])
        #expect(replies.map { ($0["quickReply"] as? [String: Any])?["payload"] as? String } == ["yes", "No"])

        // MessageStore.prepareMessageWith: a Text message whose content is the ButtonResponse.
        client.send(
            #"{"token":"\#(client.token)","tracingId":"q1","action":"onMessage","message":{"text":"","type":"Text","content":[{"contentType":"ButtonResponse","buttonResponse":{"text":"Yes","payload":"yes","type":"QuickReply"}}]}}"#
        )
        let chosen = try #require(try await client.frame()["body"] as? [String: Any])
        #expect(((chosen["content"] as? [[String: Any]])?.first?["buttonResponse"] as? [String: Any])?["payload"] as? String == "yes")

        _ = try await Self.control(simulator, "card?title=Delivery&description=Pick%20a%20slot&postbacks=Book=book&links=Site=https://example.org")
        let card = try #require(
            ((try await client.frame()["body"] as? [String: Any])?["content"] as? [[String: Any]])?.first?["card"] as? [String: Any]
        )
        let actions = try #require(card["actions"] as? [[String: Any]])
        #expect(actions.map { $0["type"] as? String } == ["Postback", "Link"])
        #expect(actions.last?["url"] as? String == "https://example.org")

        // MessageStore.preparePostbackMessage: a Structured message with the postback's text.
        client.send(
            #"{"token":"\#(client.token)","action":"onMessage","message":{"text":"Book","type":"Structured","content":[{"contentType":"ButtonResponse","buttonResponse":{"text":"Book","payload":"book","type":"Button"}}]}}"#
        )
        _ = try await client.frame()
        #expect(simulator.genesys.chosenPayloads == ["yes", "book"])
    }

    @Test func agentPresenceTypingAndDisconnectMakeTheConversationReadOnlyUntilANewChat() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let client = try await GenesysTestClient.connect(simulator)
        _ = try await client.configure()
        let other = try await GenesysTestClient.connect(simulator, token: client.token)
        _ = try await other.configure()

        _ = try await Self.control(simulator, "join")
        _ = try await Self.control(simulator, "typing")
        let join = try #require(try await client.frame()["body"] as? [String: Any])
        #expect(join["type"] as? String == "Event")
        #expect(((join["events"] as? [[String: Any]])?.first?["presence"] as? [String: Any])?["type"] as? String == "Join")
        let typing = try #require(try await client.frame()["body"] as? [String: Any])
        #expect((typing["events"] as? [[String: Any]])?.first?["eventType"] as? String == "Typing")

        _ = try await Self.control(simulator, "disconnect")
        let disconnect = try #require(try await client.frame()["body"] as? [String: Any])
        #expect(((disconnect["events"] as? [[String: Any]])?.first?["presence"] as? [String: Any])?["type"] as? String == "Disconnect")
        #expect((disconnect["metadata"] as? [String: Any])?["readOnly"] as? String == "true")
        #expect(simulator.genesys.sessions.first?.readOnly == true)
        client.send(#"{"token":"\#(client.token)","action":"onMessage","message":{"text":"hello?","type":"Text"}}"#)
        #expect(try await client.frame()["code"] as? Int == 403)

        // startNewChat: closeSession with all connections, then configureSession with startNew.
        client.send(#"{"token":"\#(client.token)","closeAllConnections":true,"action":"closeSession"}"#)
        let closed = try #require(try await client.frame()["body"] as? [String: Any])
        #expect(closed["connected"] as? Bool == false)
        #expect(closed["readOnly"] as? Bool == true)
        let events = try await other.frames(until: "ConnectionClosedEvent")
        #expect(events.last?["type"] as? String == "message")
        let fresh = try await client.configure(startNew: true)
        #expect(fresh["newSession"] as? Bool == true)
        #expect(fresh["readOnly"] as? Bool == false)
        #expect(try await client.say("a new question")["text"] as? String == "a new question")
        #expect(simulator.genesys.sessions.first?.conversations == 2)
        #expect(try simulator.genesys.transcript() == ["Inbound: a new question"])
    }

    @Test func historyIsPagedNewestFirstForTheSessionsJWT() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let client = try await GenesysTestClient.connect(simulator)
        _ = try await client.configure()
        for index in 1...30 { try simulator.genesys.agentSays(text: "message \(index)") }
        _ = try await client.frames(count: 30)

        client.send(#"{"token":"\#(client.token)","tracingId":"j1","action":"getJwt"}"#)
        let answer = try await client.frame()
        #expect(answer["class"] as? String == "JwtResponse")
        let jwtBody = try #require(answer["body"] as? [String: Any])
        let jwt = try #require(jwtBody["jwt"] as? String)
        #expect(jwt.split(separator: ".").count == 3)
        #expect(jwtBody["exp"] as? Int != nil)

        let url = "\(simulator.genesysEndpoints.api)/api/v2/webmessaging/messages"
        #expect(try await Self.http(.GET, "\(url)?pageNumber=1&pageSize=25").status == 401)
        #expect(try await Self.http(.GET, url, headers: [("Authorization", "bearer not-a-jwt")]).status == 401)
        let first = try Self.object(try await Self.http(.GET, "\(url)?pageNumber=1&pageSize=25", headers: [("Authorization", "bearer \(jwt)")]).body)
        #expect(first["total"] as? Int == 30)
        #expect(first["pageCount"] as? Int == 2)
        let texts = (first["entities"] as? [[String: Any]] ?? []).map { $0["text"] as? String }
        #expect(texts.first == "message 30")
        #expect(texts.last == "message 6")
        let second = try Self.object(try await Self.http(.GET, "\(url)?pageNumber=2&pageSize=25", headers: [("Authorization", "bearer \(jwt)")]).body)
        #expect((second["entities"] as? [[String: Any]] ?? []).map { $0["text"] as? String } == (1...5).reversed().map { "message \($0)" })
    }

    // MARK: Attachments

    @Test func attachmentsGoThroughThePresignedUpload() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let client = try await GenesysTestClient.connect(simulator)
        _ = try await client.configure()

        // AttachmentHandlerImpl.prepare: errorsAsJson, so a refusal is a GenerateUrlError message.
        client.send(
            #"{"token":"\#(client.token)","attachmentId":"a-exe","fileName":"tool.zip","fileType":"application/zip","fileSize":10,"errorsAsJson":true,"action":"onAttachment"}"#
        )
        let refused = try await client.frame()
        #expect(refused["class"] as? String == "GenerateUrlError")
        #expect((refused["body"] as? [String: Any])?["errorCode"] as? Int == 4001)
        client.send(
            #"{"token":"\#(client.token)","attachmentId":"a-big","fileName":"big.png","fileType":"image/png","fileSize":\#(10241 * 1024),"errorsAsJson":true,"action":"onAttachment"}"#
        )
        #expect((try await client.frame()["body"] as? [String: Any])?["errorCode"] as? Int == 4002)

        let bytes = Array("%PDF-1.4 receipt".utf8)
        client.send(
            #"{"token":"\#(client.token)","attachmentId":"a1","fileName":"receipt.pdf","fileType":"application/pdf","fileSize":\#(bytes.count),"errorsAsJson":true,"action":"onAttachment"}"#
        )
        let presigned = try await client.frame()
        #expect(presigned["class"] as? String == "PresignedUrlResponse")
        let body = try #require(presigned["body"] as? [String: Any])
        let url = try #require(body["url"] as? String)
        let headers = try #require(body["headers"] as? [String: String])
        #expect(try await Self.http(.PUT, url, body: bytes).status == 403)
        #expect(try await Self.http(.PUT, url, headers: headers.map { ($0.key, $0.value) }, body: bytes).status == 200)
        let success = try await client.frame()
        #expect(success["class"] as? String == "UploadSuccessEvent")
        let download = try #require((success["body"] as? [String: Any])?["downloadUrl"] as? String)
        #expect(try await Self.http(.GET, download).body == bytes)

        client.send(
            #"{"token":"\#(client.token)","action":"onMessage","message":{"text":"my receipt","type":"Text","content":[{"contentType":"Attachment","attachment":{"id":"a1"}}]}}"#
        )
        let sent = try #require(try await client.frame()["body"] as? [String: Any])
        let attachment = try #require((sent["content"] as? [[String: Any]])?.first?["attachment"] as? [String: Any])
        #expect(attachment["filename"] as? String == "receipt.pdf")
        #expect(attachment["fileSize"] as? Int == bytes.count)
        #expect(simulator.genesys.uploads.map(\.name) == ["receipt.pdf"])

        client.send(#"{"token":"\#(client.token)","attachmentId":"a1","action":"getAttachment"}"#)
        let refreshed = try #require(try await client.frame()["body"] as? [String: Any])
        #expect((refreshed["headers"] as? [String: Any])?.isEmpty == true)
        #expect(refreshed["fileSize"] as? Int == bytes.count)
        client.send(#"{"token":"\#(client.token)","attachmentId":"a1","action":"deleteAttachment"}"#)
        #expect(try await client.frame()["class"] as? String == "AttachmentDeletedResponse")
        client.send(
            #"{"token":"\#(client.token)","action":"onMessage","message":{"text":"again","type":"Text","content":[{"contentType":"Attachment","attachment":{"id":"a1"}}]}}"#
        )
        #expect(try await client.frame()["code"] as? Int == 4010)

        // The agent's file: an Outbound message whose attachment URL serves the bytes.
        _ = try await Self.control(simulator, "file?name=label.png&type=image/png&text=Your%20label", body: [0x89, 0x50, 0x4E, 0x47])
        let file = try #require(
            ((try await client.frame()["body"] as? [String: Any])?["content"] as? [[String: Any]])?.first?["attachment"] as? [String: Any]
        )
        #expect(file["mediaType"] as? String == "Image")
        #expect(try await Self.http(.GET, try #require(file["url"] as? String)).body == [0x89, 0x50, 0x4E, 0x47])
    }
}

/// A web messaging client on a real WebSocket, speaking the SDK's JSON by hand.
struct GenesysTestClient {
    let socket: TestWebSocket
    let token: String
    let deploymentId: String

    static func connect(_ simulator: ContactCenterSimulator, token: String = UUID().uuidString.lowercased()) async throws -> GenesysTestClient {
        let endpoints = simulator.genesysEndpoints
        let socket = try await TestWebSocket.connect(
            port: simulator.httpPort,
            uri: "/v1?deploymentId=\(endpoints.deploymentId)&application=attendant-test"
        )
        return GenesysTestClient(socket: socket, token: token, deploymentId: endpoints.deploymentId)
    }

    func send(_ text: String) { self.socket.send(text) }

    /// The next frame as a JSON object.
    func frame() async throws -> [String: Any] { try GenesysMessagingTests.object(try await self.socket.next()) }

    func frames(count: Int) async throws -> [[String: Any]] {
        var frames: [[String: Any]] = []
        for _ in 0..<count { frames.append(try await self.frame()) }
        return frames
    }

    /// Frames up to and including the first of class `className`.
    func frames(until className: String) async throws -> [[String: Any]] {
        var frames: [[String: Any]] = []
        while frames.last?["class"] as? String != className { frames.append(try await self.frame()) }
        return frames
    }

    /// configureSession as MessagingClientImpl.encodeConfigureGuestSessionRequest writes it; the answer's body.
    func configure(startNew: Bool = false) async throws -> [String: Any] {
        self.send(
            #"{"token":"\#(self.token)","deploymentId":"\#(self.deploymentId)","startNew":\#(startNew),"journeyContext":{"customer":{"id":"\#(self.token)","idType":"cookie"},"customerSession":{"id":"","type":"web"}},"tracingId":"c1","action":"configureSession"}"#
        )
        let answer = try await self.frame()
        #expect(answer["class"] as? String == "SessionResponse", "\(answer)")
        #expect(answer["tracingId"] as? String == "c1")
        return try #require(answer["body"] as? [String: Any])
    }

    /// Sends a text; the body of the message that comes back.
    func say(_ text: String) async throws -> [String: Any] {
        self.send(#"{"token":"\#(self.token)","action":"onMessage","message":{"text":"\#(text)","type":"Text"}}"#)
        return try #require(try await self.frame()["body"] as? [String: Any])
    }
}
