import CXoneCore
import Foundation
import Testing

@testable import ContactCenterSim

/// What the gateway writes (its own JSON, `Sources/ContactCenterSim/CXone`) against what the plugin's
/// codec (`CXoneCore`) writes for the same values: byte for byte, since both sort keys and write
/// timestamps with milliseconds. A difference here is a difference on the wire.
@Suite struct SimCXoneBodyTests {
    static let at = Date(timeIntervalSince1970: 1_800_000_000.25)
    static let gateway = CXoneGateway(
        settings: CXoneGatewaySettings(welcomeMessage: "Hi {{customer.firstName|there}}"),
        now: { 1_800_000_000.25 },
        httpBase: { "http://x" }
    )

    /// A thread with a customer message (with an attachment) and an agent message.
    static func thread() -> CXoneGatewayThread {
        let customer = CXoneGatewayMessage(
            id: "m-1",
            threadId: "T-1",
            createdAt: Self.at,
            direction: .inbound,
            content: ["type": "TEXT", "payload": ["text": "Hi"], "postback": "p"],
            attachments: [["url": "https://x/a.png", "fileName": "a.png"]],
            customer: SimCXoneCustomer(id: "cust-1", firstName: "Grace")
        )
        let agent = CXoneGatewayMessage(
            id: "m-2",
            threadId: "T-1",
            createdAt: Self.at,
            direction: .outbound,
            agent: Self.gateway.settings.agent,
            content: CXoneGatewayMessage.textContent("Hello"),
            attachments: []
        )
        let contact = CXoneGatewayContact(id: "c-1", status: "new", createdAt: Self.at)
        return CXoneGatewayThread(id: "T-1", name: "Billing", customerId: "cust-1", contact: contact, messages: [customer, agent])
    }

    /// The same thread in the plugin's types.
    static func wire() -> (CXoneWire.Thread, CXoneWire.Contact, [CXoneWire.Message]) {
        let thread = CXoneWire.Thread(
            idOnExternalPlatform: "T-1",
            id: "chat_sim_T-1",
            channelId: "chat_sim",
            threadName: "Billing",
            canAddMoreMessages: true
        )
        let contact = CXoneWire.Contact(id: "c-1", threadIdOnExternalPlatform: "T-1", status: "new", createdAt: Self.at)
        let customer = CXoneWire.Message(
            idOnExternalPlatform: "m-1",
            threadIdOnExternalPlatform: "T-1",
            messageContent: .text("Hi", postback: "p"),
            createdAt: Self.at,
            attachments: [CXoneWire.Attachment(url: "https://x/a.png", fileName: "a.png")],
            direction: .inbound,
            authorEndUserIdentity: .init(idOnExternalPlatform: "cust-1", firstName: "Grace")
        )
        let agent = CXoneWire.Message(
            idOnExternalPlatform: "m-2",
            threadIdOnExternalPlatform: "T-1",
            messageContent: .text("Hello"),
            createdAt: Self.at,
            direction: .outbound,
            authorUser: CXoneWire.Agent(id: 42, firstName: "Ada", surname: "Lovelace")
        )
        return (thread, contact, [customer, agent])
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func messageCreatedAndCaseStatusChanged() throws {
        let ours = Self.thread()
        let (thread, contact, messages) = Self.wire()
        for (index, message) in ours.messages.enumerated() {
            let mine = SimCXoneServerFrame.event(
                eventId: "e-1",
                eventType: "MessageCreated",
                createdAt: Self.at,
                data: Self.gateway.messageCreated(message, in: ours)
            )
            let created = CXoneWire.MessageCreated(
                brand: .init(id: 1386),
                channel: .init(id: "chat_sim"),
                contact: contact,
                thread: thread,
                message: messages[index]
            )
            let theirs = try CXoneInbound.event(eventId: "e-1", createdAt: Self.at, event: .messageCreated(created)).encoded()
            #expect(Self.text(mine.encoded) == Self.text(theirs))
        }
    }

    @Test func threadRecoveredListAndMetadata() throws {
        let ours = Self.thread()
        let (thread, contact, messages) = Self.wire()
        let agent = CXoneWire.Agent(id: 42, firstName: "Ada", surname: "Lovelace")
        let recovered: GMSJSON = [
            "contact": ours.contactJSON, "messages": .array(ours.messages.map(\.json)), "thread": ours.json(channelId: "chat_sim"),
            "inboxAssignee": Self.gateway.settings.agent.json,
        ]
        let theirs = CXoneWire.ThreadRecovered(contact: contact, messages: messages, inboxAssignee: agent, thread: thread)
        #expect(
            Self.text(SimCXoneServerFrame.postback(eventId: "e-2", eventType: "ThreadRecovered", data: recovered).encoded)
                == Self.text(try CXoneInbound.postback(eventId: "e-2", event: .threadRecovered(theirs)).encoded())
        )

        let metadata: GMSJSON = ["ownerAssignee": Self.gateway.settings.agent.json, "lastMessage": ours.messages[1].json]
        #expect(
            Self.text(SimCXoneServerFrame.postback(eventId: "e-3", eventType: "ThreadMetadataLoaded", data: metadata).encoded)
                == Self.text(
                    try CXoneInbound.postback(eventId: "e-3", event: .threadMetadataLoaded(.init(ownerAssignee: agent, lastMessage: messages[1])))
                        .encoded()
                )
        )
        #expect(
            Self.text(SimCXoneServerFrame.postback(eventId: "e-4", eventType: "ThreadMetadataLoaded", data: [:]).encoded)
                == Self.text(try CXoneInbound.postback(eventId: "e-4", event: .threadMetadataLoaded(.init())).encoded())
        )
    }

    @Test func welcomeActionAndAccessToken() throws {
        let welcome: GMSJSON = [
            "destination": ["id": "d-1"],
            "proactiveAction": [
                "action": [
                    "actionId": "welcome", "actionName": "Welcome", "actionType": "WelcomeMessage",
                    "data": ["content": ["bodyText": "Hi {{customer.firstName|there}}"], "handover": ["customFields": []]],
                ]
            ],
        ]
        let action = CXoneWire.ProactiveAction(
            destinationId: "d-1",
            actionId: "welcome",
            actionName: "Welcome",
            actionType: "WelcomeMessage",
            content: .init(bodyText: "Hi {{customer.firstName|there}}")
        )
        #expect(
            Self.text(SimCXoneServerFrame.event(eventId: "e-5", eventType: "FireProactiveAction", createdAt: Self.at, data: welcome).encoded)
                == Self.text(try CXoneInbound.event(eventId: "e-5", createdAt: Self.at, event: .fireProactiveAction(action)).encoded())
        )

        let identity = SimCXoneCustomer(id: "cust-2", firstName: "Grace", lastName: "Hopper")
        let token = Self.gateway.issueToken(for: identity)
        let value = try #require(token["token"]?.string)
        let authorized = CXoneWire.ConsumerAuthorized(
            consumerIdentity: .init(idOnExternalPlatform: "cust-2", firstName: "Grace", lastName: "Hopper"),
            accessToken: .init(token: CXoneSecret(value), expiresIn: 3600, currentDate: Self.at)
        )
        #expect(
            Self.text(
                SimCXoneServerFrame.postback(
                    eventId: "e-6",
                    eventType: "ConsumerAuthorized",
                    data: ["consumerIdentity": identity.json, "accessToken": token]
                ).encoded
            )
                == Self.text(try CXoneInbound.postback(eventId: "e-6", event: .consumerAuthorized(authorized)).encoded())
        )
    }

    @Test func restBodies() throws {
        var settings = CXoneGatewaySettings(isLiveChat: true, preContactForm: CXoneGatewaySettings.samplePreChatForm)
        settings.welcomeMessage = "Hi"
        let form = CXoneChannelConfiguration.PreContactForm(
            name: "Before we start",
            customFields: [
                .object([
                    "isRequired": .bool(true),
                    "definition": .object(["fieldId": .string("email"), "label": .string("Your email"), "type": .string("email")]),
                ]),
                .object([
                    "isRequired": .bool(false),
                    "definition": .object([
                        "fieldId": .string("topic"), "label": .string("Topic"), "type": .string("list"),
                        "values": .array(
                            [("Billing", "billing"), ("Delivery", "delivery"), ("Other", "other")].map {
                                .object(["name": .string($0.0), "value": .string($0.1)])
                            }
                        ),
                    ]),
                ]),
            ]
        )
        let files = CXoneChannelConfiguration.FileRestrictions(
            allowedFileSize: 10,
            allowedFileTypes: ["image/*", "application/pdf", "text/plain"].map { .init(mimeType: $0, description: $0) },
            isAttachmentsEnabled: true
        )
        let configuration = CXoneChannelConfiguration(
            isLiveChat: true,
            preContactForm: form,
            settings: .init(
                isProactiveChatEnabled: true,
                fileRestrictions: files,
                liveChatAllowTranscript: true,
                features: ["securedSessions": false]
            )
        )
        #expect(Self.text(settings.channelConfiguration.encoded) == Self.text(try configuration.encoded()))
        #expect(Self.text(SimCXoneREST.availability(isOnline: false).encoded) == Self.text(try CXoneAvailability(isOnline: false).encoded()))
        #expect(
            Self.text(SimCXoneREST.serviceError("ChannelNotFound", "no channel").encoded)
                == Self.text(try CXoneServiceErrorBody(errorCode: "ChannelNotFound", errorMessage: "no channel").encoded())
        )
    }

    @Test func clientEventsThePluginWritesReadHere() throws {
        let message = CXoneWire.SendMessage(
            thread: .init(idOnExternalPlatform: "T-1", threadName: "Billing"),
            messageContent: .text("Hi"),
            idOnExternalPlatform: "m-1",
            contact: .init(customFields: [.init(ident: "email", value: "g@x.test")]),
            attachments: [.init(url: "https://x/a.png", mimeType: "image/png")]
        )
        let (_, frame) = try SimCXoneFrameTests.clientFrame(.sendMessage(message))
        guard case .sendMessage(let sent) = try SimCXoneClientEvent.read(frame) else {
            Issue.record("not SendMessage")
            return
        }
        #expect(sent.threadId == "T-1")
        #expect(sent.threadName == "Billing")
        #expect(sent.contactFields == [.init(ident: "email", value: "g@x.test")])
        #expect(sent.attachments == [["url": "https://x/a.png", "mimeType": "image/png"]])
        #expect(sent.content == ["type": "TEXT", "payload": ["text": "Hi"]])

        let events = CXoneWire.StoreVisitorEvents(visitorEvents: [
            .pageView(title: "Chat", url: "app://chat", visitId: "v-1", destinationId: "d-1", at: Self.at)
        ])
        guard case .storeVisitorEvents(let read) = try SimCXoneClientEvent.read(try SimCXoneFrameTests.clientFrame(.storeVisitorEvents(events)).1)
        else {
            Issue.record("not StoreVisitorEvents")
            return
        }
        #expect(read.map(\.type) == ["PageView"])
        #expect(read.first?.createdAt == Self.at)
        #expect(read.first?.data == ["title": "Chat", "url": "app://chat"])

        for event: CXoneSentEvent in [
            .recoverThread(nil), .recoverThread(.init(threadId: "T-1")), .endContact(.init(threadId: "T-1", contactId: "c-1")),
            .reconnectCustomer(.init(token: CXoneSecret("tok"))), .senderTypingStarted(.init(threadId: "T-1")),
        ] {
            let read = try SimCXoneClientEvent.read(try SimCXoneFrameTests.clientFrame(event).1)
            switch (event, read) {
            case (.recoverThread(nil), .recoverThread(nil)), (.recoverThread, .recoverThread("T-1")), (.endContact, .endContact("T-1", "c-1")),
                (.reconnectCustomer, .reconnectCustomer("tok")), (.senderTypingStarted, .other("SenderTypingStarted")):
                break
            default:
                Issue.record("\(event.eventType) read as \(read)")
            }
        }
    }

    /// Where the two codecs parted (issue 11's point: found by meeting). The plugin kept JSON numbers as
    /// doubles, so an integer past 2^53 in a rich payload came back changed; it now keeps integers exact.
    /// It writes an absent `payload` as `null`; the gateway echoes what the client sent.
    @Test func richContentIsEchoedAsSent() throws {
        let data: GMSJSON = [
            "thread": ["idOnExternalPlatform": "T-1"], "idOnExternalPlatform": "m-1",
            "messageContent": ["type": "PLUGIN", "fallbackText": "x", "payload": ["n": .int(9_007_199_254_740_993)], "extra": 1],
        ]
        let sent = try SimCXoneSentMessage.read(data, eventType: "SendMessage")
        #expect(sent.content == ["type": "PLUGIN", "fallbackText": "x", "payload": ["n": .int(9_007_199_254_740_993)]], "only the SDK's members")
        let message = CXoneGatewayMessage(
            id: "m-1",
            threadId: "T-1",
            createdAt: Self.at,
            direction: .inbound,
            content: ["type": "PLUGIN", "fallbackText": "x"],
            attachments: []
        )
        #expect(message.json["messageContent"] == ["type": "PLUGIN", "fallbackText": "x"])
        #expect(message.text == "x")

        let theirs = try JSONDecoder().decode(CXoneWire.MessageContent.self, from: Data(#"{"type":"PLUGIN","payload":{"n":9007199254740993}}"#.utf8))
        #expect(theirs.payload["n"] == .integer(9_007_199_254_740_993), "the plugin's JSON keeps large integers exact")
    }
}
