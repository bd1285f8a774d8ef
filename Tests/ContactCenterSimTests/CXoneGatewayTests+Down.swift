import CXoneCore
import ContactCenterSim
import Foundation
import NIOHTTP1
import Testing

/// The `down` fault: the gateway goes away without forgetting its threads, and comes back.
extension CXoneGatewayTests {
    /// The four REST endpoints the fault covers, with what each sends.
    static func restStatuses(_ simulator: ContactCenterSimulator) async throws -> [Int] {
        let endpoints = simulator.pluginEndpoints
        let visitorId = CXoneID.random()
        let visitor = try CXoneVisitor(customerIdentity: .init(idOnExternalPlatform: "cust-1")).encoded()
        let event = try CXoneWire.AnalyticsEvent.chatWindowOpened(
            visitId: .random(),
            destinationId: .random(),
            at: Date(timeIntervalSince1970: 1_800_000_000)
        ).encoded()
        return [
            try await Self.http(.GET, endpoints.channelConfiguration(brandId: Self.brand, channelId: Self.channel)).status,
            try await Self.http(.GET, endpoints.availability(brandId: Self.brand, channelId: Self.channel)).status,
            try await Self.http(.PUT, endpoints.visitor(brandId: Self.brand, visitorId: visitorId), body: visitor).status,
            try await Self.http(.POST, endpoints.visitorEvents(brandId: Self.brand, visitorId: visitorId), body: event).status,
        ]
    }

    @Test func downDropsSocketsRefusesUpgradesAndRESTThenRecoversTheThread() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let base = "http://127.0.0.1:\(simulator.httpPort)/control/cxone"
        let client = try await CXoneTestClient.connect(simulator)
        let threadId = CXoneID.random()
        let message = CXoneWire.SendMessage(
            thread: .init(idOnExternalPlatform: threadId),
            messageContent: .text("Before the outage"),
            idOnExternalPlatform: .random()
        )
        _ = try await client.request(.sendMessage(message))
        try simulator.cxone.agentSays(threadID: threadId.rawValue, text: "Noted, one moment")
        guard case .event(_, _, .messageCreated) = try await client.receive() else {
            Issue.record("no agent message")
            return
        }
        #expect(try await Self.restStatuses(simulator) == [200, 200, 200, 202])

        // Down: the open socket is dropped at once, upgrades and REST get 503.
        #expect(try await Self.http(.POST, base + "/fault?kind=down").status == 200)
        try await client.socket.waitForClose()
        #expect(simulator.cxone.isDown)
        try await poll { simulator.cxone.connectionCount == 0 }
        do {
            _ = try await CXoneTestClient.connect(simulator)
            Issue.record("a socket was upgraded while the gateway is down")
        } catch let refused as TestWebSocket.Refused {
            #expect(refused.status == 503)
            let body = try CXoneServiceErrorBody.decode(refused.body)
            #expect(body.error.errorCode == "ServiceUnavailable")
            #expect(body.error.errorMessage?.contains("down") == true)
        }
        #expect(try await Self.restStatuses(simulator) == [503, 503, 503, 503])
        let (statusCode, statusBody) = try await Self.http(.GET, base + "/status")
        #expect(statusCode == 200)
        let status = try #require(try JSONSerialization.jsonObject(with: Data(statusBody)) as? [String: Any])
        #expect(status["down"] as? Bool == true)
        #expect(status["connections"] as? Int == 0)

        // The agent keeps writing while the customer is away.
        try simulator.cxone.agentSays(threadID: threadId.rawValue, text: "Back with an answer")

        // Back: the customer connects again and recovers the thread with every message.
        #expect(try await Self.http(.POST, base + "/clear-faults").status == 200)
        #expect(!simulator.cxone.isDown)
        #expect(try await Self.restStatuses(simulator) == [200, 200, 200, 202])
        let back = try await CXoneTestClient.connect(simulator, customer: client.customer)
        let (recovered, _) = try await back.request(.recoverThread(.init(threadId: threadId)))
        guard case .postback(_, .threadRecovered(let thread)) = recovered else {
            Issue.record("got \(recovered)")
            return
        }
        #expect(thread.thread.idOnExternalPlatform == threadId)
        #expect(thread.messages.map { $0.messageContent.text } == ["Before the outage", "Noted, one moment", "Back with an answer"])
        #expect(thread.inboxAssignee?.id == 42)
    }

    @Test func setDownLeavesOtherFaultsAndAPlainRequestForTheSocketIsAnswered() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let socketURL = "http://127.0.0.1:\(simulator.httpPort)/chat-gateway"
        #expect(try await Self.http(.GET, socketURL).status == 426, "not an upgrade request")

        let client = try await CXoneTestClient.connect(simulator)
        try await simulator.cxone.waitForConnections(1, timeout: .seconds(60))
        simulator.cxone.inject(.missingPongs)
        simulator.cxone.setDown(true)
        try await client.socket.waitForClose()
        #expect(try await Self.http(.GET, socketURL).status == 503)

        simulator.cxone.setDown(false)
        let back = try await CXoneTestClient.connect(simulator)
        back.socket.send(CXoneOutbound.heartbeatText)
        #expect(try await back.socket.isQuiet(for: .milliseconds(300)), "missing-pongs is still on")
        simulator.cxone.clearFaults()
        back.socket.send(CXoneOutbound.heartbeatText)
        #expect(try await back.socket.next() == CXoneInbound.pongText)
    }
}
