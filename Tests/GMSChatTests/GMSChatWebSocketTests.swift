import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation
import Testing

/// The GMSChat plugin on the test kit's network: the test plays GMS's CometD server on the other end of
/// the channel's WebSocket (Bayeux 1.0 handshake, subscribe, connect; GMS Chat API v2 on
/// `/service/chatV2/<service>`, gms-cometd.md §2), with no simulator and nothing of the daemon. (Against
/// the simulator's server, over both transports and API versions: GMSChatDriverTests in
/// PluginIntegrationTests.)
@Suite(.timeLimit(.minutes(2))) struct GMSChatWebSocketTests {
    static let service = "/service/chatV2/customer-support"

    @Test func aChatStartsOverTheWebSocketAndTheAgentIsHeard() async throws {
        let host = InMemoryChannelHost(channelName: "gms")
        let settings = ChannelSettings([
            "url": .string("https://gms.example.com/genesys"),
            "transport": .string("websocket"),
            "first-name": .string("Grace"),
            "last-name": .string("Hopper"),
            "user-data": .table(["Segment": .string("gold"), "TimeZone": .integer(-480)]),
        ])
        let channel = try GMSChatPlugin.factory.makeChannel(settings: settings, host: host)
        let running = Task { await channel.run() }
        defer { running.cancel() }
        let listening = Task { try await channel.listen() }

        let socket = try await host.inMemoryNetwork.nextWebSocket()
        #expect(socket.request.url == "wss://gms.example.com/genesys/cometd")
        let server = CometDServer(socket)
        // The session: a handshake, the chat service's subscription, and the first connect, which listen()
        // waits for; later connects are held, as the server holds them, and events come meanwhile.
        var connects = 0
        while connects == 0 {
            for message in try await server.nextBatch() {
                switch message["channel"] as? String {
                case "/meta/handshake":
                    #expect((message["supportedConnectionTypes"] as? [String])?.contains("websocket") == true)
                    server.reply(to: message, ["clientId": "client-1", "advice": ["reconnect": "retry", "interval": 0, "timeout": 30_000]])
                case "/meta/subscribe":
                    #expect(message["subscription"] as? String == Self.service)
                    server.reply(to: message, ["subscription": Self.service])
                case "/meta/connect":
                    connects += 1
                    server.reply(to: message, [:])
                default:
                    Issue.record("unexpected before the session: \(message)")
                }
            }
        }
        try await listening.value

        let connecting = Task { try await channel.perform(.connect) }
        var requested: [String: Any]?
        while requested == nil {
            for message in try await server.nextBatch() {
                switch message["channel"] as? String {
                case "/meta/connect": break  // held
                case "/meta/subscribe": server.reply(to: message, ["subscription": Self.service])
                case Self.service?:
                    requested = message
                    server.reply(to: message, [:])
                default: Issue.record("unexpected: \(message)")
                }
            }
        }
        let data = try #require(requested?["data"] as? [String: Any])
        #expect(data["operation"] as? String == "requestChat")
        #expect(data["firstName"] as? String == "Grace" && data["lastName"] as? String == "Hopper")
        #expect(
            data["userData"] as? [String: String] == ["Segment": "gold", "TimeZone": "-480"],
            "what routing reads, from [channel.gms-chat.user-data]"
        )

        server.push(
            Self.service,
            [
                "chatId": "chat-1", "userId": "user-1", "secureKey": "key-1", "alias": "117", "statusCode": 0, "nextPosition": 4,
                "messages": [
                    [
                        "index": 1, "type": "ParticipantJoined", "from": ["nickname": "Grace", "type": "Client", "participantId": 1],
                        "utcTime": 1_800_000_000_000,
                    ],
                    [
                        "index": 2, "type": "ParticipantJoined", "from": ["nickname": "Ada", "type": "Agent", "participantId": 2],
                        "utcTime": 1_800_000_001_000,
                    ],
                    [
                        "index": 3, "type": "Message", "text": "Hello, this is Ada.",
                        "from": ["nickname": "Ada", "type": "Agent", "participantId": 2],
                        "utcTime": 1_800_000_002_000,
                    ],
                ],
            ]
        )
        _ = try await connecting.value
        try await eventually(host) {
            $0.contains { if case .messageReceived(let message) = $0 { message.text == "Hello, this is Ada." } else { false } }
        }
        let messages = host.events.compactMap { if case .messageReceived(let message) = $0 { message } else { nil } }
        let greeting = try #require(messages.first { $0.text == "Hello, this is Ada." })
        #expect(greeting.direction == .fromAgent && greeting.sender.displayName == "Ada", "\(greeting)")

        // The customer writes: a sendMessage operation with the chat's keys, on the same socket.
        let sending = Task { try await channel.perform(.sendMessage(threadID: nil, text: "Where is my parcel?")) }
        var sent: [String: Any]?
        while sent == nil {
            for message in try await server.nextBatch() where message["channel"] as? String == Self.service {
                sent = message["data"] as? [String: Any]
                server.reply(to: message, [:])
            }
        }
        #expect(sent?["operation"] as? String == "sendMessage" && sent?["message"] as? String == "Where is my parcel?", "\(sent ?? [:])")
        #expect(sent?["secureKey"] as? String == "key-1" && sent?["userId"] as? String == "user-1", "\(sent ?? [:])")
        _ = try await sending.value

        // The server drops the socket: the channel hears it closed and opens a new one, where it connects
        // again as the same client (the server keeps a client for maxInterval after its last connect).
        socket.close(code: 1001, reason: "restarting")
        let again = CometDServer(try await host.inMemoryNetwork.nextWebSocket())
        let reconnect = try await again.nextBatch()
        #expect(reconnect.first?["channel"] as? String == "/meta/connect" && reconnect.first?["clientId"] as? String == "client-1", "\(reconnect)")

        // Stopping says goodbye with the transcript position, on the new socket.
        let stopping = Task { await channel.stopListening() }
        var goodbye: [String: Any]?
        while goodbye == nil {
            for message in try await again.nextBatch() where message["channel"] as? String == "/meta/disconnect" {
                goodbye = message
                again.reply(to: message, [:])
            }
        }
        #expect((goodbye?["ext"] as? [String: Any])?["transcriptPosition"] as? String == "3", "\(goodbye ?? [:])")
        await stopping.value
    }
}

/// Waits (bounded) until the host's events satisfy `condition`.
func eventually(_ host: InMemoryChannelHost, within seconds: Double = 60, _ condition: ([ChannelEvent]) -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition(host.events) {
        guard Date() < deadline else { throw CometDServer.Failure(description: "no such event within \(seconds) s: \(host.events)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// GMS's CometD server on the test's end of the channel's WebSocket: reads the channel's batches (JSON
/// arrays of Bayeux messages), answers them by `id`, and pushes events.
struct CometDServer {
    struct Failure: Error, CustomStringConvertible { var description: String }

    let socket: WebSocketPeer

    init(_ socket: WebSocketPeer) { self.socket = socket }

    func nextBatch() async throws -> [[String: Any]] {
        let message = try await self.socket.nextMessage()
        guard case .text(let text) = message,
            let batch = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
        else { throw Failure(description: "not a Bayeux batch: \(message)") }
        return batch
    }

    /// A successful reply to `message`, with `fields`.
    func reply(to message: [String: Any], _ fields: [String: Any]) {
        var reply = fields
        reply["channel"] = message["channel"]
        reply["id"] = message["id"]
        reply["successful"] = true
        if message["channel"] as? String == "/meta/handshake" {
            reply["version"] = "1.0"
            reply["supportedConnectionTypes"] = ["websocket", "long-polling"]
        }
        self.send([reply])
    }

    func push(_ channel: String, _ data: [String: Any]) { self.send([["channel": channel, "data": data]]) }

    private func send(_ batch: [[String: Any]]) {
        let data = try! JSONSerialization.data(withJSONObject: batch)
        self.socket.send(text: String(decoding: data, as: UTF8.self))
    }
}
