import ContactCenterSim
import Foundation
import Testing

/// The Bayeux WebSocket transport: same messages, one JSON array per frame, the held connect answered
/// on the socket, acks separate from events.
@Suite struct GMSWebSocketTests {
    /// Frames until one holds a message for which `match` holds; every message seen.
    static func messages(_ socket: TestWebSocket, until match: (GMSTestClient.Message) -> Bool) async throws -> [GMSTestClient.Message] {
        var seen: [GMSTestClient.Message] = []
        while !seen.contains(where: match) {
            seen += try GMSTestClient.parse(try await socket.next(timeout: .seconds(60)))
        }
        return seen
    }

    @Test func chatOverTheSocket() async throws {
        let (simulator, _) = try await GMSChatServerTests.start(GMSServerSettings(greetingDelay: .milliseconds(50), connectHold: .seconds(20)))
        defer { Task { await simulator.stop() } }
        let socket = try await TestWebSocket.connect(port: simulator.httpPort, uri: "/genesys/cometd")
        defer { Task { await socket.close() } }
        socket.send(#"[{"channel":"/meta/handshake","version":"1.0","supportedConnectionTypes":["websocket"],"id":"1"}]"#)
        let handshake = try #require(try GMSTestClient.parse(try await socket.next()).first)
        let clientID = try #require(handshake["clientId"] as? String)
        let connect = { (id: String) in #"[{"channel":"/meta/connect","clientId":"\#(clientID)","connectionType":"websocket","id":"\#(id)"}]"# }
        socket.send(connect("2"))
        #expect(try GMSTestClient.parse(try await socket.next()).first?["successful"] as? Bool == true)
        socket.send(connect("3"))  // held

        let channel = GMSChatV2Tests.channel
        socket.send(#"[{"channel":"\#(channel)","clientId":"\#(clientID)","data":{"operation":"requestChat","nickname":"Wes"},"id":"4"}]"#)
        let seen = try await Self.messages(socket) { message in message.v2Messages.contains { $0["type"] as? String == "Message" } }
        let ack = try #require(seen.first { $0["id"] as? String == "4" })
        #expect(ack["successful"] as? Bool == true)
        #expect(ack["data"] == nil)
        #expect(seen.contains { $0["channel"] as? String == "/meta/connect" && $0["id"] as? String == "3" })
        let indexes = seen.flatMap(\.v2Messages).compactMap { $0["index"] as? Int }
        #expect(indexes == [1, 2, 3])

        // Without a held connect, events are pushed on the socket as they come.
        try simulator.gms.agentSays("pushed")
        let pushed = try await Self.messages(socket) { $0.v2Messages.contains { $0["text"] as? String == "pushed" } }
        #expect(pushed.flatMap(\.v2Messages).last?["index"] as? Int == 4)

        // A dropped socket ends the client's long-poll; the client lives on until the window.
        socket.send(connect("5"))
        _ = try await poll(seconds: 30) { simulator.gms.counters.connects >= 3 ? true : nil }
        simulator.gms.dropConnections()
        try await socket.waitForClose()
        #expect(simulator.gms.chats.first?.rows.count == 4)
    }
}
