import ContactCenterSim
import Foundation
import Testing

/// Chat API v2 over CometD, and the background protocol for v2 chats.
@Suite struct GMSChatV2Tests {
    static let channel = "/service/chatV2/customer-support"

    /// A started chat: the client, its id, and the chat's secureKey once the agent's greeting came.
    static func startChat(
        _ simulator: ContactCenterSimulator,
        _ client: GMSTestClient
    ) async throws -> (clientID: String, secureKey: String, events: [GMSTestClient.Message]) {
        let clientID = try await client.handshake()
        _ = try await client.connect(clientID)
        _ = try await client.subscribe(clientID, Self.channel)
        let ack = try await client.publish(
            clientID,
            Self.channel,
            #"{"operation":"requestChat","nickname":"Ann","subject":"Billing","userData":{"TimeZone":-480}}"#
        )
        #expect(ack.first?["successful"] as? Bool == true)
        let events = try await client.events(clientID, on: Self.channel) { events in
            events.flatMap(\.v2Messages).contains { $0["type"] as? String == "Message" }
        }
        let secureKey = try #require(events.first?.data["secureKey"] as? String)
        return (clientID, secureKey, events)
    }

    @Test func requestChatGetsTheGreetingWithIndexes() async throws {
        let (simulator, client) = try await GMSChatServerTests.start(GMSServerSettings(greetingDelay: .milliseconds(100)))
        defer { Task { await simulator.stop() } }
        let (clientID, secureKey, events) = try await Self.startChat(simulator, client)
        let first = events[0].data
        #expect(first["statusCode"] as? Int == 0)
        #expect(first["chatEnded"] as? Bool == false)
        #expect(first["chatId"] as? String == simulator.gms.chats.first?.id)
        #expect(first["userId"] as? String != nil)
        #expect(first["alias"] as? String != nil)
        let messages = events.flatMap(\.v2Messages)
        #expect(messages.map { $0["index"] as? Int } == [1, 2, 3])
        #expect(messages.map { $0["type"] as? String } == ["ParticipantJoined", "ParticipantJoined", "Message"])
        #expect(messages.map { ($0["from"] as? [String: Any])?["type"] as? String } == ["Client", "Agent", "Agent"])
        #expect((messages[2]["from"] as? [String: Any])?["nickname"] as? String == "Ada Lovelace")
        #expect((messages[2]["from"] as? [String: Any])?["participantId"] as? Int == 2)
        #expect(messages[2]["text"] as? String == GMSServerSettings().greeting)
        #expect(messages[2]["utcTime"] as? Int != nil)
        #expect(events.last?.data["nextPosition"] as? Int == 4)

        // The customer's own message is echoed with the next index; the agent's answer comes live.
        _ = try await client.publish(clientID, Self.channel, #"{"operation":"sendMessage","secureKey":"\#(secureKey)","message":"my bill"}"#)
        try simulator.gms.agentSays("Let me look")
        let more = try await client.events(clientID, on: Self.channel) { events in
            events.flatMap(\.v2Messages).contains { $0["text"] as? String == "Let me look" }
        }
        let rows = more.flatMap(\.v2Messages)
        #expect(rows.map { $0["index"] as? Int } == [4, 5])
        #expect((rows[0]["from"] as? [String: Any])?["type"] as? String == "Client")
        #expect(rows[0]["text"] as? String == "my bill")
        #expect(try await simulator.gms.waitForCustomerMessage(containing: "bill", timeout: .seconds(60)).index == 4)

        for operation in [
            #""operation":"startTyping""#, #""operation":"stopTyping""#, #""operation":"pushUrl","pushUrl":"https://a.example""#,
            #""operation":"customNotice","message":"n""#, #""operation":"updateNickname","nickname":"Annie""#,
        ] {
            _ = try await client.publish(clientID, Self.channel, #"{\#(operation),"secureKey":"\#(secureKey)"}"#)
        }
        _ = try await client.publish(clientID, Self.channel, #"{"operation":"disconnect","secureKey":"\#(secureKey)"}"#)
        let ended = try await client.events(clientID, on: Self.channel) { events in events.contains { $0.data["chatEnded"] as? Bool == true } }
        #expect(
            ended.flatMap(\.v2Messages).map { $0["type"] as? String }
                == ["TypingStarted", "TypingStopped", "PushUrl", "CustomNotice", "NicknameUpdated", "ParticipantLeft"]
        )
        let chat = try #require(simulator.gms.chats.first)
        #expect(chat.isEnded)
        #expect(chat.nickname == "Annie")
        #expect(chat.rows.map(\.index) == Array(1...11))
    }

    @Test func theAgentAutoReplies() async throws {
        var settings = GMSServerSettings(greetingDelay: .milliseconds(50), autoReply: true)
        settings.autoReplyDelay = .milliseconds(10)
        let (simulator, client) = try await GMSChatServerTests.start(settings)
        defer { Task { await simulator.stop() } }
        let (clientID, secureKey, _) = try await Self.startChat(simulator, client)
        _ = try await client.publish(clientID, Self.channel, #"{"operation":"sendMessage","secureKey":"\#(secureKey)","message":"ping"}"#)
        let events = try await client.events(clientID, on: Self.channel) { events in
            events.flatMap(\.v2Messages).contains { $0["text"] as? String == "You said: ping" }
        }
        let reply = try #require(events.flatMap(\.v2Messages).last)
        #expect((reply["from"] as? [String: Any])?["type"] as? String == "Agent")
        #expect(reply["index"] as? Int == 5)
    }

    @Test func aBadSecureKeyIsStatusCode2() async throws {
        let (simulator, client) = try await GMSChatServerTests.start()
        defer { Task { await simulator.stop() } }
        let clientID = try await client.handshake()
        _ = try await client.connect(clientID)
        let ack = try await client.publish(clientID, Self.channel, #"{"operation":"sendMessage","secureKey":"nope","message":"x"}"#)
        #expect(ack.first?["successful"] as? Bool == true)
        let events = try await client.events(clientID, on: Self.channel) { !$0.isEmpty }
        let data = events[0].data
        #expect(data["statusCode"] as? Int == 2)
        let error = try #require((data["errors"] as? [[String: Any]])?.first)
        #expect(error["code"] as? Int != nil)
        #expect((error["advice"] as? String)?.contains("secureKey") == true)
    }

    @Test func requestNotificationsReplaysFromAPositionGivenAsIntOrString() async throws {
        let (simulator, client) = try await GMSChatServerTests.start(GMSServerSettings(greetingDelay: .milliseconds(50)))
        defer { Task { await simulator.stop() } }
        let (_, secureKey, _) = try await Self.startChat(simulator, client)
        try simulator.gms.agentSays("four")
        for (position, expected) in [("2", [2, 3, 4]), ("\"3\"", [3, 4]), ("0", [1, 2, 3, 4])] {
            let other = try await client.handshake()
            _ = try await client.connect(other)
            _ = try await client.publish(
                other,
                Self.channel,
                #"{"operation":"requestNotifications","secureKey":"\#(secureKey)","transcriptPosition":\#(position)}"#
            )
            let events = try await client.events(other, on: Self.channel) { !$0.isEmpty }
            #expect(events[0].v2Messages.map { $0["index"] as? Int } == expected)
        }
    }

    @Test func backgroundDisconnectFlagsTheCustomerAwayAndARequestNotificationsReplays() async throws {
        let (simulator, client) = try await GMSChatServerTests.start(GMSServerSettings(greetingDelay: .milliseconds(50)))
        defer { Task { await simulator.stop() } }
        let (clientID, secureKey, _) = try await Self.startChat(simulator, client)
        let bye = try await client.send(#"{"channel":"/meta/disconnect","clientId":"\#(clientID)","ext":{"transcriptPosition":"3"},"id":"4"}"#)
        #expect(bye.first?["successful"] as? Bool == true)
        let away = try #require(simulator.gms.chats.first)
        #expect(!away.isOnline)
        #expect(away.awayPosition == 3)
        #expect(simulator.gms.agentNotices() == ["customer is not online"])
        #expect(!away.rows.contains { $0.text.contains("not online") })
        #expect(simulator.gms.counters.disconnects.last?.transcriptPosition == "3")
        #expect(simulator.gms.counters.clientsAlive == 0)

        try simulator.gms.agentSays("are you there?")
        try simulator.gms.agentPushesURL("https://help.example")
        #expect(simulator.gms.chats.first?.rows.count == 5)

        let back = try await client.handshake()
        _ = try await client.connect(back)
        _ = try await client.publish(back, Self.channel, #"{"operation":"requestNotifications","secureKey":"\#(secureKey)","transcriptPosition":4}"#)
        let replay = try await client.events(back, on: Self.channel) { !$0.isEmpty }
        #expect(replay[0].v2Messages.map { $0["text"] as? String } == ["are you there?", "https://help.example"])
        #expect(simulator.gms.chats.first?.isOnline == true)
        // Live again: agent events reach the new client.
        try simulator.gms.agentSays("welcome back")
        let live = try await client.events(back, on: Self.channel) { events in events.flatMap(\.v2Messages).contains { $0["index"] as? Int == 6 } }
        #expect(live.flatMap(\.v2Messages).last?["text"] as? String == "welcome back")
    }
}
