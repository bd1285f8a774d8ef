import AsyncHTTPClient
import CXoneCore
import ContactCenterSim
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The CXone gateway over its REST endpoints and its WebSocket, driven with the plugin's wire types
/// (`CXoneCore`): the plugin's codec meets the simulator's own.
@Suite struct CXoneGatewayTests {
    static let brand = 1386
    static let channel = "chat_sim"

    static func start(_ settings: CXoneGatewaySettings = CXoneGatewaySettings()) async throws -> ContactCenterSimulator {
        try await ContactCenterSimulator.start(SimulatorConfiguration(cxone: settings))
    }

    /// GET/PUT/POST through AsyncHTTPClient: status and body.
    static func http(_ method: HTTPMethod, _ url: String, body: [UInt8]? = nil) async throws -> (status: Int, body: [UInt8]) {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = client.shutdown() }
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let response = try await client.execute(request, timeout: .seconds(60))
        let collected = try await response.body.collect(upTo: 1 << 24)
        return (Int(response.status.code), Array(collected.readableBytesView))
    }

    // MARK: REST

    @Test func channelConfigurationAvailabilityAndUnknownChannel() async throws {
        let form = CXoneGatewaySettings.samplePreChatForm
        let simulator = try await Self.start(
            CXoneGatewaySettings(isAuthorizationEnabled: true, hasMultipleThreadsPerEndUser: true, preContactForm: form)
        )
        defer { Task { await simulator.stop() } }
        let endpoints = simulator.pluginEndpoints
        #expect(endpoints.chat == "http://127.0.0.1:\(simulator.httpPort)/chat")

        let (status, body) = try await Self.http(.GET, endpoints.channelConfiguration(brandId: Self.brand, channelId: Self.channel))
        #expect(status == 200)
        let configuration = try CXoneChannelConfiguration.decode(body)
        #expect(configuration.isAuthorizationEnabled)
        #expect(configuration.chatMode == .multiThread)
        #expect(configuration.preContactForm?.name == "Before we start")
        let fields = configuration.preContactForm?.customFields ?? []
        #expect(fields.map { $0["definition"]?["fieldId"]?.string } == ["email", "topic"])
        #expect(fields.first?["isRequired"] == .bool(true))
        #expect(
            fields.last?["definition"]?["values"]
                == .array([
                    .object(["name": .string("Billing"), "value": .string("billing")]),
                    .object(["name": .string("Delivery"), "value": .string("delivery")]),
                    .object(["name": .string("Other"), "value": .string("other")]),
                ])
        )

        let availability = endpoints.availability(brandId: Self.brand, channelId: Self.channel)
        #expect(try CXoneAvailability.decode(try await Self.http(.GET, availability).body).isOnline)
        simulator.cxone.setOnline(false)
        #expect(try CXoneAvailability.decode(try await Self.http(.GET, availability).body).status == "offline")
        let control = "http://127.0.0.1:\(simulator.httpPort)/control/cxone/availability?online=1"
        #expect(try await Self.http(.POST, control).status == 200)
        #expect(simulator.cxone.isOnline)

        let unknown = try await Self.http(.GET, endpoints.channelConfiguration(brandId: Self.brand, channelId: "nope"))
        #expect(unknown.status == 404)
        #expect(throws: CXoneWireError.self) { try CXoneChannelConfiguration.decode(unknown.body) }
        #expect(try await Self.http(.GET, endpoints.availability(brandId: 7, channelId: Self.channel)).status == 404)
    }

    @Test func visitorAndAnalyticsEventsAreStored() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let endpoints = simulator.pluginEndpoints
        let visitorId = CXoneID.random()
        let visitor = CXoneVisitor(customerIdentity: .init(idOnExternalPlatform: "cust-1", firstName: "Grace"))
        let put = try await Self.http(.PUT, endpoints.visitor(brandId: Self.brand, visitorId: visitorId), body: try visitor.encoded())
        #expect(put.status == 200)
        let stored = try #require(simulator.cxone.visitors[visitorId.rawValue.lowercased()])
        #expect(stored.customerId == "cust-1")
        #expect(stored.firstName == "Grace")

        let event = CXoneWire.AnalyticsEvent.chatWindowOpened(
            visitId: .random(),
            destinationId: .random(),
            at: Date(timeIntervalSince1970: 1_800_000_000)
        )
        let post = try await Self.http(.POST, endpoints.visitorEvents(brandId: Self.brand, visitorId: visitorId), body: try event.encoded())
        #expect(post.status == 202)
        #expect(simulator.cxone.analyticsEvents.map(\.type) == ["ChatWindowOpened"])

        let bad = try await Self.http(.PUT, endpoints.visitor(brandId: Self.brand, visitorId: visitorId), body: Array("[1]".utf8))
        #expect(bad.status == 400)
    }

    // MARK: Socket

    @Test func heartbeatAuthorizeAndWelcome() async throws {
        let simulator = try await Self.start(CXoneGatewaySettings(welcomeMessage: "Hello {{customer.firstName|there}}"))
        defer { Task { await simulator.stop() } }
        let client = try await CXoneTestClient.connect(simulator)
        client.socket.send(CXoneOutbound.heartbeatText)
        #expect(try await client.socket.next() == CXoneInbound.pongText)

        let (authorized, eventId) = try await client.request(.authorizeCustomer(.init(sdkVersion: "1.0")))
        guard case .postback(let answered, .consumerAuthorized(let data)) = authorized else {
            Issue.record("got \(authorized)")
            return
        }
        #expect(answered == eventId)
        #expect(data.consumerIdentity?.idOnExternalPlatform == client.customer)
        #expect(data.accessToken == nil)
        guard case .event(_, _, .fireProactiveAction(let action)) = try await client.receive() else {
            Issue.record("no welcome")
            return
        }
        #expect(action.isWelcomeMessage)
        #expect(action.content?.bodyText == "Hello {{customer.firstName|there}}")
        #expect(simulator.cxone.connectionCount == 1)
    }

    @Test func oauthAssignsIdentityAndTokenAndReconnects() async throws {
        let simulator = try await Self.start(CXoneGatewaySettings(isAuthorizationEnabled: true))
        defer { Task { await simulator.stop() } }
        let client = try await CXoneTestClient.connect(simulator)

        let (refused, refusedId) = try await client.request(.authorizeCustomer(.init(sdkVersion: "1.0")))
        guard case .operationError(let error) = refused else {
            Issue.record("got \(refused)")
            return
        }
        #expect(error.errorCode == "ConsumerAuthorizationFailed")
        #expect(refused.answeredRequestId == refusedId)

        let oauth = CXoneWire.AuthorizeCustomer(authorizationCode: CXoneSecret("code"), codeVerifier: CXoneSecret("verifier"), sdkVersion: "1.0")
        let (authorized, _) = try await client.request(.authorizeCustomer(oauth))
        guard case .postback(_, .consumerAuthorized(let data)) = authorized,
            let identity = data.consumerIdentity, let token = data.accessToken
        else {
            Issue.record("got \(authorized)")
            return
        }
        #expect(identity.idOnExternalPlatform != client.customer)

        let second = try await CXoneTestClient.connect(simulator, customer: identity.idOnExternalPlatform)
        let (reconnected, _) = try await second.request(.reconnectCustomer(.init(token: token.token)))
        guard case .postback(_, .consumerReconnected(let again)) = reconnected else {
            Issue.record("got \(reconnected)")
            return
        }
        #expect(again.consumerIdentity?.idOnExternalPlatform == identity.idOnExternalPlatform)
        let (unknown, _) = try await second.request(.reconnectCustomer(.init(token: CXoneSecret("forged"))))
        guard case .operationError(let failure) = unknown else {
            Issue.record("got \(unknown)")
            return
        }
        #expect(failure.errorCode == "ConsumerReconnectionFailed")

        let (refreshed, _) = try await second.request(.refreshToken(.init(token: token.token)))
        guard case .postback(_, .tokenRefreshed(let renewed)) = refreshed else {
            Issue.record("got \(refreshed)")
            return
        }
        #expect(renewed.accessToken.token != token.token)
        let (stale, _) = try await second.request(.reconnectCustomer(.init(token: token.token)))
        guard case .operationError = stale else {
            Issue.record("the replaced token still works: \(stale)")
            return
        }

        // A frame the gateway cannot read is answered with a server error.
        second.socket.send("{\"action\":\"chatWindowEvent\"}")
        guard case .serverError = try await second.receive() else {
            Issue.record("no server error")
            return
        }
    }

    @Test func messagesAreStoredOnceRecoveredListedAndEnded() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let client = try await CXoneTestClient.connect(simulator)
        let threadId = CXoneID.random()

        let (none, _) = try await client.request(.recoverThread(nil))
        guard case .operationError(let missing) = none else {
            Issue.record("got \(none)")
            return
        }
        #expect(missing.errorCode == "RecoveringThreadFailed")
        let (noLive, _) = try await client.request(.recoverLivechat(nil))
        guard case .operationError = noLive else {
            Issue.record("got \(noLive)")
            return
        }

        let message = CXoneWire.SendMessage(
            thread: .init(idOnExternalPlatform: threadId),
            messageContent: .text("Hi there"),
            idOnExternalPlatform: .random()
        )
        let (created, _) = try await client.request(.sendMessage(message))
        guard case .event(_, _, .messageCreated(let first)) = created else {
            Issue.record("got \(created)")
            return
        }
        #expect(first.message.idOnExternalPlatform == message.idOnExternalPlatform)
        #expect(first.message.direction == .inbound)
        #expect(first.thread.idOnExternalPlatform == threadId)
        let contactId = first.contact.id

        // The outbox re-sends after a drop: answered again, stored once.
        let (again, _) = try await client.request(.sendMessage(message))
        guard case .event(_, _, .messageCreated(let second)) = again else {
            Issue.record("got \(again)")
            return
        }
        #expect(second.message.idOnExternalPlatform == message.idOnExternalPlatform)
        #expect(simulator.cxone.thread(threadId.rawValue)?.messages.count == 1)

        let outbound = CXoneWire.SendOutbound(
            thread: .init(idOnExternalPlatform: threadId),
            messageContent: .text("Proactive reply"),
            idOnExternalPlatform: .random()
        )
        let (createdOutbound, _) = try await client.request(.sendOutbound(outbound))
        guard case .event(_, _, .messageCreated(let third)) = createdOutbound else {
            Issue.record("got \(createdOutbound)")
            return
        }
        #expect(third.contact.id == contactId)

        try simulator.cxone.agentSays(threadID: threadId.rawValue, text: "How can I help?")
        guard case .event(_, _, .messageCreated(let agent)) = try await client.receive() else {
            Issue.record("no agent message")
            return
        }
        #expect(agent.message.direction == .outbound)
        #expect(agent.message.authorUser?.displayName == "Ada Lovelace")
        #expect(agent.message.messageContent.text == "How can I help?")

        let (list, _) = try await client.request(.fetchThreadList)
        guard case .postback(_, .threadListFetched(let threads)) = list else {
            Issue.record("got \(list)")
            return
        }
        #expect(threads.threads.map(\.idOnExternalPlatform) == [threadId])
        let (metadata, _) = try await client.request(.loadThreadMetadata(.init(threadId: threadId)))
        guard case .postback(_, .threadMetadataLoaded(let loaded)) = metadata else {
            Issue.record("got \(metadata)")
            return
        }
        #expect(loaded.lastMessage?.messageContent.text == "How can I help?")
        #expect(loaded.ownerAssignee?.id == 42)

        let (recovered, _) = try await client.request(.recoverThread(.init(threadId: threadId)))
        guard case .postback(_, .threadRecovered(let thread)) = recovered else {
            Issue.record("got \(recovered)")
            return
        }
        #expect(thread.messages.map { $0.messageContent.text } == ["Hi there", "Proactive reply", "How can I help?"])
        #expect(thread.contact?.id == contactId)
        let (live, _) = try await client.request(.recoverLivechat(nil))
        guard case .postback(_, .livechatRecovered(let liveThread)) = live else {
            Issue.record("got \(live)")
            return
        }
        #expect(liveThread.thread.idOnExternalPlatform == threadId)

        let (ended, _) = try await client.request(.endContact(.init(threadId: threadId, contactId: contactId)))
        guard case .event(_, _, .caseStatusChanged(let closed)) = ended else {
            Issue.record("got \(ended)")
            return
        }
        #expect(closed.contact.isClosed)

        // Another customer cannot recover the thread.
        let stranger = try await CXoneTestClient.connect(simulator)
        let (foreign, _) = try await stranger.request(.recoverThread(.init(threadId: threadId)))
        guard case .operationError = foreign else {
            Issue.record("got \(foreign)")
            return
        }

        // The control API lists the thread with its messages.
        let (status, body) = try await Self.http(.GET, "http://127.0.0.1:\(simulator.httpPort)/control/cxone/threads")
        #expect(status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        let listed = try #require((object["threads"] as? [[String: Any]])?.first)
        #expect(listed["status"] as? String == "closed")
        #expect((listed["messages"] as? [[String: Any]])?.count == 3)
    }

    @Test func agentMessageWaitsForRecoveryAndAutoReplyAnswers() async throws {
        let simulator = try await Self.start(CXoneGatewaySettings(autoReply: true))
        defer { Task { await simulator.stop() } }
        let client = try await CXoneTestClient.connect(simulator)
        let threadId = CXoneID.random()
        let message = CXoneWire.SendMessage(
            thread: .init(idOnExternalPlatform: threadId),
            messageContent: .text("Anyone?"),
            idOnExternalPlatform: .random()
        )
        _ = try await client.request(.sendMessage(message))
        guard case .event(_, _, .messageCreated(let reply)) = try await client.receive() else {
            Issue.record("no auto-reply")
            return
        }
        #expect(reply.message.direction == .outbound)
        #expect(reply.message.messageContent.text == "You wrote: Anyone?")

        await client.socket.close()
        try await poll { simulator.cxone.connectionCount == 0 }
        let control = "http://127.0.0.1:\(simulator.httpPort)/control/cxone/agent?thread=\(threadId)&text=Still+there%3F"
        #expect(try await Self.http(.POST, control).status == 200)
        #expect(try await Self.http(.POST, "http://127.0.0.1:\(simulator.httpPort)/control/cxone/agent?thread=nope&text=x").status == 404)

        let back = try await CXoneTestClient.connect(simulator, customer: client.customer)
        let (recovered, _) = try await back.request(.recoverThread(nil))
        guard case .postback(_, .threadRecovered(let thread)) = recovered else {
            Issue.record("got \(recovered)")
            return
        }
        #expect(thread.messages.last?.messageContent.text == "Still there?")
        #expect(thread.inboxAssignee?.id == 42)
    }

    @Test func largeEventsGoThroughEventInS3() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let client = try await CXoneTestClient.connect(simulator)
        let threadId = CXoneID.random()
        let message = CXoneWire.SendMessage(
            thread: .init(idOnExternalPlatform: threadId),
            messageContent: .text("Send the log"),
            idOnExternalPlatform: .random()
        )
        _ = try await client.request(.sendMessage(message))

        let big = String(repeating: "0123456789abcdef", count: 9 * 1024)  // 144 KB
        try simulator.cxone.agentSays(threadID: threadId.rawValue, text: big)
        let notice = try await client.socket.next()
        #expect(notice.count < 1024)
        guard case .event(_, _, .eventInS3(let parked)) = try CXoneInbound.decode(notice) else {
            Issue.record("no EventInS3")
            return
        }
        #expect(parked.originEventType == "MessageCreated")
        #expect(parked.url.hasPrefix("http://127.0.0.1:\(simulator.httpPort)/s3/"))

        let (status, body) = try await Self.http(.GET, parked.url)
        #expect(status == 200)
        guard case .event(_, _, .messageCreated(let created)) = try parked.decodeOrigin(body) else {
            Issue.record("body is not MessageCreated")
            return
        }
        #expect(created.message.messageContent.text == big)

        simulator.cxone.inject(.failingEventInS3)
        #expect(try await Self.http(.GET, parked.url).status == 500)
        simulator.cxone.clearFaults()
        #expect(try await Self.http(.GET, parked.url).status == 200)
    }

}
