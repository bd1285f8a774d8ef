import AsyncHTTPClient
import CXoneCore
import ContactCenterSim
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The gateway's faults: server errors, operation errors, missing pongs and dropped sockets.
extension CXoneGatewayTests {
    @Test func faultsServerErrorsOperationErrorsPongsAndDrops() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let client = try await CXoneTestClient.connect(simulator)
        let base = "http://127.0.0.1:\(simulator.httpPort)/control/cxone"

        #expect(try await Self.http(.POST, base + "/fault?kind=server-error&event=FetchThreadList").status == 200)
        let (serverError, eventId) = try await client.request(.fetchThreadList)
        guard case .serverError(let error) = serverError else {
            Issue.record("got \(serverError)")
            return
        }
        #expect(error.requestId == eventId.rawValue)

        simulator.cxone.clearFaults()
        simulator.cxone.inject(.operationError(eventType: "RecoverThread", errorCode: "InternalServerError"))
        let (operationError, _) = try await client.request(.recoverThread(nil))
        guard case .operationError(let failure) = operationError else {
            Issue.record("got \(operationError)")
            return
        }
        #expect(failure.errorCode == "InternalServerError")

        simulator.cxone.inject(.missingPongs)
        client.socket.send(CXoneOutbound.heartbeatText)
        #expect(try await client.socket.isQuiet(for: .milliseconds(300)))
        simulator.cxone.clearFaults()
        client.socket.send(CXoneOutbound.heartbeatText)
        #expect(try await client.socket.next() == CXoneInbound.pongText)

        #expect(try await Self.http(.POST, base + "/fault?kind=drop-next").status == 200)
        client.socket.send(CXoneOutbound.heartbeatText)
        #expect(try await client.socket.next() == CXoneInbound.pongText, "heartbeats do not trigger the drop")
        client.send(.fetchThreadList)
        try await client.socket.waitForClose()

        let other = try await CXoneTestClient.connect(simulator)
        try await simulator.cxone.waitForConnections(1, timeout: .seconds(60))
        let (dropped, body) = try await Self.http(.POST, base + "/drop")
        #expect(dropped == 200)
        #expect(String(decoding: body, as: UTF8.self) == #"{"dropped":1}"#)
        try await other.socket.waitForClose()
        #expect(try await Self.http(.POST, base + "/fault?kind=bogus").status == 400)
    }
}
