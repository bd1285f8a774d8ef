import CXoneCore
import Foundation
import Testing

/// Client → gateway frames: the envelope's exact shape, the identity key per event type, and a round trip
/// for every sent event type (the simulator decodes what the plugin encodes).
@Suite struct WireOutboundTests {
    static let customer = CXoneWire.CustomerIdentity(idOnExternalPlatform: "c0ffee00-1234-4abc-9def-000000000042", firstName: "Pat")
    static let thread = CXoneWire.ThreadReference(idOnExternalPlatform: "a1b2c3d4-0000-4000-8000-000000000001", threadName: "Billing")

    static func frame(_ event: CXoneSentEvent, eventId: CXoneID = "E-1") -> CXoneOutbound {
        .frame(
            CXoneClientFrame(
                eventId: eventId,
                brandId: 1386,
                channelId: "chat_1",
                customer: customer,
                visitorId: "V-1",
                destinationId: "T-1",
                event: event
            )
        )
    }

    static func json(_ bytes: [UInt8]) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] ?? [:]
    }

    @Test func heartbeatIsTheExactText() throws {
        #expect(try CXoneOutbound.heartbeat.encoded().text == #"{"action":"heartbeat"}"#)
        #expect(try CXoneOutbound.decode(#"{"action":"heartbeat"}"#.bytes) == .heartbeat)
    }

    @Test func sendMessageEnvelopeHasTheSDKShape() throws {
        let send = CXoneWire.SendMessage(
            thread: Self.thread,
            messageContent: .text("Where is my invoice?"),
            idOnExternalPlatform: "M-1",
            accessToken: CXoneSecret("tok")
        )
        let object = try Self.json(Self.frame(.sendMessage(send)).encoded())
        #expect(object["action"] as? String == "chatWindowEvent")
        #expect(object["eventId"] as? String == "E-1")
        let payload = try #require(object["payload"] as? [String: Any])
        #expect((payload["brand"] as? [String: Any])?["id"] as? Int == 1386)
        #expect((payload["channel"] as? [String: Any])?["id"] as? String == "chat_1")
        #expect((payload["customerIdentity"] as? [String: Any])?["idOnExternalPlatform"] as? String == "c0ffee00-1234-4abc-9def-000000000042")
        #expect(payload["consumerIdentity"] == nil)
        #expect(payload["eventType"] as? String == "SendMessage")
        #expect((payload["visitor"] as? [String: Any])?["id"] as? String == "V-1")
        #expect((payload["destination"] as? [String: Any])?["id"] as? String == "T-1")
        let data = try #require(payload["data"] as? [String: Any])
        #expect((data["thread"] as? [String: Any])?["idOnExternalPlatform"] as? String == "a1b2c3d4-0000-4000-8000-000000000001")
        let content = try #require(data["messageContent"] as? [String: Any])
        #expect(content["type"] as? String == "TEXT")
        #expect((content["payload"] as? [String: Any])?["text"] as? String == "Where is my invoice?")
        #expect(data["idOnExternalPlatform"] as? String == "M-1")
        #expect((data["accessToken"] as? [String: Any])?["token"] as? String == "tok")
        #expect((data["deviceFingerprint"] as? [String: Any])?["os"] as? String == "Linux")
    }

    @Test func authorizeCustomerIsARegisterFrameWithOAuth() throws {
        let authorize = CXoneWire.AuthorizeCustomer(
            authorizationCode: CXoneSecret("code-1"),
            codeVerifier: CXoneSecret("verifier-1"),
            sdkVersion: "0.1.0"
        )
        let encoded = try Self.frame(.authorizeCustomer(authorize)).encoded()
        let object = try Self.json(encoded)
        #expect(object["action"] as? String == "register")
        let data = try #require((object["payload"] as? [String: Any])?["data"] as? [String: Any])
        #expect((data["authorization"] as? [String: Any])?["authorizationCode"] as? String == "code-1")
        #expect((data["authorization"] as? [String: Any])?["codeVerifier"] as? String == "verifier-1")
        #expect(!"\(authorize)".contains("code-1"))
        let anonymous = try Self.json(Self.frame(.authorizeCustomer(.init(sdkVersion: "0.1.0"))).encoded())
        #expect(((anonymous["payload"] as? [String: Any])?["data"] as? [String: Any])?["authorization"] == nil)
    }

    @Test func identityKeyFollowsTheSDK() throws {
        let consumer: [CXoneSentEvent] = [
            .reconnectCustomer(.init(token: CXoneSecret("t"))), .refreshToken(.init(token: CXoneSecret("t"))),
            .endContact(.init(threadId: "T", contactId: "C")),
            .sendOutbound(.init(thread: Self.thread, messageContent: .text("Welcome"))),
        ]
        for event in consumer {
            let payload = try #require(try Self.json(Self.frame(event).encoded())["payload"] as? [String: Any])
            #expect(payload["consumerIdentity"] != nil, "\(event.eventType)")
            #expect(payload["customerIdentity"] == nil, "\(event.eventType)")
        }
        let fetch = try #require(try Self.json(Self.frame(.fetchThreadList).encoded())["payload"] as? [String: Any])
        #expect(fetch["customerIdentity"] != nil)
        #expect(fetch["data"] == nil)
    }

    @Test func sendOutboundUsesConsumerContactAndBrowserFingerprint() throws {
        let outbound = CXoneWire.SendOutbound(thread: Self.thread, messageContent: .text("Hi Pat"), idOnExternalPlatform: "M-2")
        let data = try #require(
            (try Self.json(Self.frame(.sendOutbound(outbound)).encoded())["payload"] as? [String: Any])?["data"] as? [String: Any]
        )
        #expect(data["consumerContact"] != nil)
        #expect(data["browserFingerprint"] != nil)
        #expect(data["deviceFingerprint"] == nil)
        #expect(data["accessToken"] == nil)
    }

    static var everyEvent: [CXoneSentEvent] {
        let date = CXoneTimestamp.parse("2024-05-01T12:00:00.250Z")!
        let threadData = CXoneWire.ThreadData(thread: thread)
        return [
            .authorizeCustomer(.init(authorizationCode: CXoneSecret("c"), codeVerifier: CXoneSecret("v"), sdkVersion: "1")),
            .authorizeCustomer(.init(sdkVersion: "1")),
            .reconnectCustomer(.init(token: CXoneSecret("t"))),
            .refreshToken(.init(token: CXoneSecret("t"))),
            .recoverThread(threadData), .recoverThread(nil),
            .recoverLivechat(threadData), .recoverLivechat(nil),
            .fetchThreadList,
            .loadThreadMetadata(.init(threadId: "T-9")),
            .sendMessage(
                .init(
                    thread: thread,
                    messageContent: .text("hi"),
                    idOnExternalPlatform: "M",
                    contact: .init(id: "C", customFields: [.init(ident: "a", value: "b")]),
                    accessToken: CXoneSecret("t")
                )
            ),
            .sendOutbound(.init(thread: thread, messageContent: .text("welcome"), idOnExternalPlatform: "M")),
            .endContact(.init(threadId: "T", contactId: "C")),
            .loadMoreMessages(.init(scrollToken: "s", thread: thread, oldestMessageDatetime: date)),
            .messageSeenByCustomer(threadData),
            .senderTypingStarted(threadData),
            .senderTypingEnded(threadData),
            .setContactCustomFields(.init(thread: thread, customFields: [.init(ident: "email", value: "p@x", updatedAt: date)], contactId: "C")),
            .storeVisitorEvents(
                .init(visitorEvents: [.pageView(title: "Chat", url: "attendant://chat", visitId: "V", destinationId: "D", at: date)])
            ),
            .unknown(eventType: "ArchiveThread", data: .object(["thread": .object(["idOnExternalPlatform": .string("T")])])),
        ]
    }

    @Test(arguments: WireOutboundTests.everyEvent)
    func everySentEventRoundTrips(_ event: CXoneSentEvent) throws {
        let frame = Self.frame(event, eventId: .random())
        let bytes = try frame.encoded()
        #expect(try CXoneOutbound.decode(bytes) == frame, "\(bytes.text)")
    }

    @Test func samplesDecode() throws {
        guard case .frame(let send) = try CXoneOutbound.decode(WireSamples.bytes("send-message.json")),
            case .sendMessage(let message) = send.event
        else {
            Issue.record("not SendMessage")
            return
        }
        #expect(send.brandId == 1386)
        #expect(send.customer.idOnExternalPlatform == "C0FFEE00-1234-4ABC-9DEF-000000000042")
        #expect(message.messageContent.text == "Where is my invoice?")
        #expect(message.accessToken?.token.value == "eyJhbGciOiJIUzI1NiJ9.fake.token")
        guard case .frame(let register) = try CXoneOutbound.decode(WireSamples.bytes("authorize-customer.json")),
            case .authorizeCustomer(let authorize) = register.event
        else {
            Issue.record("not AuthorizeCustomer")
            return
        }
        #expect(register.action == "register")
        #expect(authorize.authorizationCode?.value == "code-123")
        #expect(authorize.codeVerifier?.value == "verifier-456")
    }
}
