import AsyncHTTPClient
import CXoneCore
import ContactCenterSim
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// A CXone client on a test socket: one brand, channel and customer.
struct CXoneTestClient {
    let socket: TestWebSocket
    let customer: CXoneID

    static func connect(_ simulator: ContactCenterSimulator, customer: CXoneID = .random()) async throws -> CXoneTestClient {
        let url = simulator.pluginEndpoints.webSocket(
            brandId: CXoneGatewayTests.brand,
            channelId: CXoneGatewayTests.channel,
            visitorId: .random(),
            sdkVersion: "1.0"
        )
        let uri = String(url.dropFirst("ws://127.0.0.1:\(simulator.httpPort)".count))
        let socket = try await TestWebSocket.connect(port: simulator.httpPort, uri: uri)
        return CXoneTestClient(socket: socket, customer: customer)
    }

    /// Sends an event; returns its `eventId`.
    @discardableResult
    func send(_ event: CXoneSentEvent) -> CXoneID {
        let frame = CXoneClientFrame(
            brandId: CXoneGatewayTests.brand,
            channelId: CXoneGatewayTests.channel,
            customer: .init(idOnExternalPlatform: self.customer),
            event: event
        )
        if let bytes = try? CXoneOutbound.frame(frame).encoded() { self.socket.send(bytes) }
        return frame.eventId
    }

    /// Sends an event and decodes the next frame.
    func request(_ event: CXoneSentEvent) async throws -> (CXoneInbound, CXoneID) {
        let eventId = self.send(event)
        return (try await self.receive(), eventId)
    }

    func receive() async throws -> CXoneInbound {
        try CXoneInbound.decode(try await self.socket.next())
    }
}

/// Polls a condition every 10 ms for up to 5 s.
func poll(_ condition: () -> Bool) async throws {
    for _ in 0..<500 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("condition not met within 5 s")
}

extension ContactCenterSimulator {
    /// The gateway's bases as the plugin's endpoint type: the plugin builds the paths, the simulator
    /// routes them, so the two meet on the URLs too.
    var pluginEndpoints: CXoneEndpoints {
        CXoneEndpoints(socket: self.cxoneEndpoints.socket, chat: self.cxoneEndpoints.chat, host: self.cxoneEndpoints.host)
    }
}
