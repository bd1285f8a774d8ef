import CXoneCore
import Foundation
import Testing

/// Gateway → client frames: the SDK-shaped samples decode to the expected values, and every event type
/// survives an encode/decode round trip (the simulator encodes what the plugin decodes).
@Suite struct WireInboundTests {
    static let date = CXoneTimestamp.parse("2024-05-01T12:00:01.123Z")!

    @Test func pongIsTheSixCharacterText() throws {
        #expect(try CXoneInbound.decode("\"pong\"".bytes) == .pong)
        #expect(try CXoneInbound.decode("\"pong\"\n".bytes) == .pong)
        #expect(try CXoneInbound.pong.encoded().text == "\"pong\"")
        #expect(throws: CXoneWireError.self) { try CXoneInbound.decode("pong".bytes) }
    }

    @Test func messageCreatedSample() throws {
        let inbound = try CXoneInbound.decode(WireSamples.bytes("message-created.json"))
        guard case .event(let eventId, let createdAt, .messageCreated(let created)) = inbound else {
            Issue.record("not MessageCreated: \(inbound)")
            return
        }
        #expect(eventId == "5d3c4f43-7e0c-4c3b-9f0a-2b5e8f3e1a11")
        #expect(createdAt == Self.date)
        #expect(created.contact.id == "9876543210")
        #expect(created.thread.idOnExternalPlatform == "A1B2C3D4-0000-4000-8000-000000000001")
        #expect(created.message.direction == .outbound)
        #expect(!created.message.direction.isFromCustomer)
        #expect(created.message.messageContent.text == "Hello, how can I help?")
        #expect(created.message.authorUser?.displayName == "Ann Agent")
        #expect(created.message.createdAt == CXoneTimestamp.parse("2024-05-01T12:00:01Z"))
        #expect(created.brand?.id == 1386)
    }

    @Test func consumerAuthorizedSampleKeepsTheTokenOutOfDescriptions() throws {
        let inbound = try CXoneInbound.decode(WireSamples.bytes("consumer-authorized.json"))
        guard case .postback(let eventId, .consumerAuthorized(let authorized)) = inbound else {
            Issue.record("not ConsumerAuthorized: \(inbound)")
            return
        }
        #expect(eventId == "0F0E0D0C-0B0A-4909-8807-060504030201")
        #expect(authorized.consumerIdentity?.idOnExternalPlatform == "c0ffee00-1234-4abc-9def-000000000042")
        #expect(authorized.consumerIdentity?.firstName == "Pat")
        #expect(authorized.accessToken?.token.value == "eyJhbGciOiJIUzI1NiJ9.fake.token")
        #expect(authorized.accessToken?.expiresIn == 3600)
        #expect(!"\(inbound)".contains("fake.token"))
        #expect(!String(reflecting: inbound).contains("fake.token"))
    }

    @Test func threadRecoveredSampleReadsConsumerContact() throws {
        let inbound = try CXoneInbound.decode(WireSamples.bytes("thread-recovered.json"))
        guard case .postback(_, .threadRecovered(let recovered)) = inbound else {
            Issue.record("not ThreadRecovered: \(inbound)")
            return
        }
        #expect(recovered.contact?.id == "9876543210")
        #expect(recovered.contact?.customFields?.first?.value == "pat@example.com")
        #expect(recovered.messages.count == 1)
        #expect(recovered.messages.first?.direction == .inbound)
        #expect(recovered.messages.first?.direction.isFromCustomer == true)
        #expect(recovered.messages.first?.createdAt == CXoneTimestamp.parse("2024-05-01T09:59:30Z"))
        #expect(recovered.inboxAssignee?.displayName == "Annie")
        #expect(recovered.thread.threadName == "Billing")
        #expect(recovered.messagesScrollToken == "scroll-abc")
    }

    @Test func threadListOperationAndServerErrors() throws {
        guard case .postback(_, .threadListFetched(let list)) = try CXoneInbound.decode(WireSamples.bytes("thread-list-fetched.json")) else {
            Issue.record("not ThreadListFetched")
            return
        }
        #expect(list.threads.map(\.idOnExternalPlatform) == ["A1B2C3D4-0000-4000-8000-000000000001", "a1b2c3d4-0000-4000-8000-000000000002"])
        #expect(
            try CXoneInbound.decode(WireSamples.bytes("operation-error.json"))
                == .operationError(
                    CXoneOperationError(
                        eventId: "33333333-2222-4333-8444-555555555555",
                        errorCode: "RecoveringThreadFailed",
                        errorMessage: "Recovering thread failed.",
                        transactionId: "44444444-2222-4333-8444-555555555555"
                    )
                )
        )
        #expect(
            try CXoneInbound.decode(WireSamples.bytes("server-error.json"))
                == .serverError(
                    CXoneServerError(
                        message: "Internal server error",
                        connectionId: "Xyz123=",
                        requestId: "Abc456="
                    )
                )
        )
    }

    @Test func caseStatusChangedAndProactiveWelcomeMessage() throws {
        guard case .event(_, _, .caseStatusChanged(let changed)) = try CXoneInbound.decode(WireSamples.bytes("case-status-changed.json")) else {
            Issue.record("not CaseStatusChanged")
            return
        }
        #expect(changed.contact.isClosed)
        guard case .event(_, _, .fireProactiveAction(let action)) = try CXoneInbound.decode(WireSamples.bytes("fire-proactive-action.json")) else {
            Issue.record("not FireProactiveAction")
            return
        }
        #expect(action.isWelcomeMessage)
        #expect(action.destinationId == "77777777-2222-4333-8444-555555555555")
        #expect(
            action.variables == [
                .init(name: "customer.firstName", fallback: "there"),
                .init(name: "contact.custom.brand", fallback: "our shop"),
            ]
        )
        #expect(action.customFields == [CXoneWire.CustomField(ident: "source", value: "welcome")])
    }

    @Test func eventInS3DecodesTheDownloadedBodyAsTheOriginEvent() throws {
        guard case .event(_, nil, .eventInS3(let s3)) = try CXoneInbound.decode(WireSamples.bytes("event-in-s3.json")) else {
            Issue.record("not EventInS3")
            return
        }
        #expect(s3.url == "https://chat-events.s3.amazonaws.com/large/55555555.json")
        #expect(s3.originEventType == "ThreadRecovered")
        let origin = try s3.decodeOrigin(WireSamples.bytes("thread-recovered.json"))
        #expect(origin.receivedEvent?.eventType == "ThreadRecovered")
        let list = WireSamples.bytes("thread-list-fetched.json")
        let wrong = #expect(throws: CXoneWireError.self) { try s3.decodeOrigin(list) }
        #expect(wrong?.message == "EventInS3 body \(list.count) B: holds ThreadListFetched, not the announced ThreadRecovered")
        let broken = #expect(throws: CXoneWireError.self) { try s3.decodeOrigin("<html>503</html>".bytes) }
        #expect(broken?.code == .notJSON)
    }

    @Test func unknownEventTypesAreNotErrors() throws {
        let pushed = #"{"eventId":"1","eventType":"SomethingNew","createdAt":"2024-05-01T12:00:00Z","data":{"x":[1,2]}}"#
        #expect(
            try CXoneInbound.decode(pushed.bytes)
                == .event(eventId: "1", createdAt: CXoneTimestamp.parse("2024-05-01T12:00:00Z"), event: .unknown(eventType: "SomethingNew"))
        )
        let postback = #"{"eventId":"2","postback":{"eventType":"ThreadArchived","data":null}}"#
        #expect(try CXoneInbound.decode(postback.bytes) == .postback(eventId: "2", event: .unknown(eventType: "ThreadArchived")))
    }

    /// One value of every received event type, as the simulator would send it.
    static var everyEvent: [CXoneReceivedEvent] {
        let thread = CXoneWire.Thread(idOnExternalPlatform: "T-1", channelId: "chat_1", threadName: "Billing", canAddMoreMessages: true)
        let contact = CXoneWire.Contact(
            id: "C-1",
            threadIdOnExternalPlatform: "T-1",
            status: "open",
            createdAt: Self.date,
            customFields: [.init(ident: "a", value: "b", updatedAt: Self.date)]
        )
        let agent = CXoneWire.Agent(id: 7, firstName: "Ann", surname: "Agent", isBotUser: false)
        let message = CXoneWire.Message(
            idOnExternalPlatform: "M-1",
            threadIdOnExternalPlatform: "T-1",
            messageContent: .text("hi"),
            createdAt: Self.date,
            attachments: [.init(url: "https://x/y.png", friendlyName: "y", mimeType: "image/png", fileName: "y.png")],
            direction: .outbound,
            userStatistics: .init(seenAt: Self.date),
            authorUser: agent
        )
        let quickReplies = CXoneWire.Message(
            idOnExternalPlatform: "M-2",
            threadIdOnExternalPlatform: "T-1",
            messageContent: .init(
                type: "QUICK_REPLIES",
                payload: .object(["text": .object(["content": .string("Pick")]), "actions": .array([.null, .bool(true), .number(1.5)])]),
                fallbackText: "Pick one"
            ),
            createdAt: Self.date,
            direction: .inbound,
            authorEndUserIdentity: .init(idOnExternalPlatform: "U-1", firstName: "Pat")
        )
        let recovered = CXoneWire.ThreadRecovered(
            contact: contact,
            messages: [message, quickReplies],
            inboxAssignee: agent,
            previousInboxAssignee: nil,
            thread: thread,
            messagesScrollToken: "s",
            customer: .init(customFields: [])
        )
        let token = CXoneWire.AccessToken(token: CXoneSecret("tok"), expiresIn: 3600)
        return [
            .consumerAuthorized(.init(consumerIdentity: .init(idOnExternalPlatform: "U-1", firstName: "Pat", lastName: "C"), accessToken: token)),
            .consumerReconnected(.init()),
            .tokenRefreshed(.init(accessToken: token)),
            .threadRecovered(recovered),
            .threadListFetched(.init(threads: [thread, .init(idOnExternalPlatform: "T-2")])),
            .threadMetadataLoaded(.init(ownerAssignee: agent, lastMessage: message)),
            .livechatRecovered(recovered),
            .messageCreated(.init(brand: .init(id: 1), channel: .init(id: "chat_1"), contact: contact, thread: thread, message: message)),
            .moreMessagesLoaded(.init(messages: [quickReplies], scrollToken: "next")),
            .caseCreated(.init(brand: .init(id: 1), contact: contact, thread: thread)),
            .caseStatusChanged(.init(contact: .init(id: "C-1", status: "closed"))),
            .fireProactiveAction(
                .init(
                    destinationId: "D-1",
                    actionId: "a",
                    actionName: "Welcome",
                    actionType: "WelcomeMessage",
                    content: .init(bodyText: "Hi {{customer.firstName|there}}"),
                    customFields: [.init(ident: "x", value: "y")]
                )
            ),
            .fireProactiveAction(.init(actionId: "b", actionName: "Popup", actionType: "CustomPopupBox")),
            .eventInS3(.init(url: "https://s3.example/e.json", originEventType: "MessageCreated")),
            .senderTyping(
                .init(brand: .init(id: 1), channel: .init(id: "chat_1"), thread: .init(idOnExternalPlatform: "T-1"), user: agent),
                started: true
            ),
            .senderTyping(.init(thread: .init(idOnExternalPlatform: "T-1")), started: false),
            .setPositionInQueue(.init(consumerContact: .init(id: "C-1"), positionInQueue: 3)),
            .caseInboxAssigneeChanged(.init(contact: .init(id: "C-1"), inboxAssignee: agent)),
            .messageReadChanged(.init(brand: .init(id: 1), message: message)),
            .messageSeenChanged(.init(message: message)),
            .transcriptSent,
            .unknown(eventType: "SomethingNew"),
        ]
    }

    @Test(arguments: WireInboundTests.everyEvent)
    func everyEventRoundTripsAsPushAndPostback(_ event: CXoneReceivedEvent) throws {
        for inbound in [CXoneInbound.event(eventId: .random(), createdAt: Self.date, event: event), .postback(eventId: .random(), event: event)] {
            let bytes = try inbound.encoded()
            #expect(try CXoneInbound.decode(bytes) == inbound, "\(bytes.text)")
        }
    }

    @Test func errorsRoundTrip() throws {
        for inbound in [
            CXoneInbound.operationError(.init(eventId: "E", errorCode: "ConsumerAuthorizationFailed", errorMessage: "no", transactionId: "T")),
            .operationError(.init(errorCode: "InconsistentData")),
            .serverError(.init(message: "Forbidden", connectionId: nil, requestId: "R")),
            .pong,
        ] {
            #expect(try CXoneInbound.decode(inbound.encoded()) == inbound)
        }
    }

    @Test func answersMatchRequestsByEventIdOrTransactionId() throws {
        let request: CXoneID = "44444444-2222-4333-8444-555555555555"
        #expect(try CXoneInbound.decode(WireSamples.bytes("operation-error.json")).answeredRequestId == request)
        #expect(CXoneInbound.operationError(.init(eventId: "E", errorCode: "X")).answeredRequestId == "e")
        #expect(try CXoneInbound.decode(WireSamples.bytes("consumer-authorized.json")).answeredRequestId == "0f0e0d0c-0b0a-4909-8807-060504030201")
        #expect(try CXoneInbound.decode(WireSamples.bytes("message-created.json")).answeredRequestId == nil)
        #expect(CXoneInbound.pong.answeredRequestId == nil)
    }

    @Test func pushedEventsCarryTheEventObjectTheSDKRequires() throws {
        let created = try CXoneInbound.event(eventId: "1", createdAt: Self.date, event: Self.everyEvent[7]).encoded().text
        #expect(created.contains(#""eventObject":"Message""#))
        #expect(created.contains(#""createdAt":"2024-05-01T12:00:01.123Z""#))
        #expect(created.contains(#""case":{"#))
    }
}
