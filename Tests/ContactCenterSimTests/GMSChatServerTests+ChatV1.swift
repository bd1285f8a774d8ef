import ContactCenterSim
import Foundation
import Testing

/// Chat API v1: REST plus `/_genesys` events tied by `gms_user`, and the seed's background catch-up.
@Suite struct GMSChatV1Tests {
    static let form = "application/x-www-form-urlencoded"

    static func json(_ body: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
    }

    /// `/_genesys` rows of events: `[type, nickname, text, offset, party]`.
    static func rows(_ events: [GMSTestClient.Message]) -> [[String]] {
        events.flatMap { (($0.data["message"] as? [String: Any])?["transcriptToShow"] as? [[String]]) ?? [] }
    }

    @Test func gmsUserIsRequired() async throws {
        let (simulator, _) = try await GMSChatServerTests.start()
        defer { Task { await simulator.stop() } }
        let rest = GMSTestClient(url: simulator.gms.baseURL + "/1/service")
        let missing = try await rest.post("", to: "/request-chat", contentType: Self.form)
        #expect(missing.status == 400)
        #expect((try Self.json(missing.body)["message"] as? String)?.contains("gms_user") == true)
    }

    @Test func restChatEventsAndTheCatchUpAfterABackgroundDisconnect() async throws {
        let (simulator, _) = try await GMSChatServerTests.start(GMSServerSettings(greetingDelay: .milliseconds(50)))
        defer { Task { await simulator.stop() } }
        let rest = GMSTestClient(url: simulator.gms.baseURL + "/1/service", gmsUser: "ann-user")
        let comet = GMSTestClient(url: simulator.gms.cometdURL, gmsUser: "ann-user")

        let service = try Self.json(try await rest.post("_verbose=true", to: "/request-chat", contentType: Self.form).body)
        let serviceID = try #require(service["_id"] as? String)
        #expect(service["_chatIxnAPI-CREATE-URL"] as? String == "/genesys/1/service/\(serviceID)/ixn/chat")

        let clientID = try await comet.handshake()
        _ = try await comet.connect(clientID)
        #expect(try await comet.subscribe(clientID, "/_genesys").first?["successful"] as? Bool == true)

        let created = try await rest.post(
            "firstName=Ann&lastName=Lee&subject=Billing&notify_by=comet&_verbose=true",
            to: "/\(serviceID)/ixn/chat",
            contentType: Self.form
        )
        #expect(created.status == 200)
        let chat = try Self.json(created.body)
        let chatID = try #require(chat["chatSessionId"] as? String)
        #expect(chat["chatIxnState"] as? String == "CONNECTED")
        #expect(chat["secureKey"] as? String != nil)
        #expect(chat["userId"] as? String != nil)
        #expect(chat["transcriptPosition"] as? String == "1")
        #expect((chat["transcriptToShow"] as? [[String]])?.first?[0] == "Notice.Joined")
        #expect((chat["transcriptToShow"] as? [[String]])?.first?[4] == "CLIENT")
        #expect(simulator.gms.chats.first?.version == .v1)
        #expect(simulator.gms.chats.first?.nickname == "Ann Lee")

        let greeting = try await comet.events(clientID, on: "/_genesys") { events in Self.rows(events).contains { $0[0] == "Message.Text" } }
        let event = greeting[0].data
        #expect(event["tag"] as? String == "service.chat.refresh.\(serviceID)")
        #expect(event["id"] as? String != nil)
        let message = try #require(event["message"] as? [String: Any])
        #expect(message["chatSessionId"] as? String == chatID)
        #expect(message["chatIxnState"] as? String == "TRANSCRIPT")
        #expect(message["transcriptPosition"] is String)
        #expect(
            Self.rows(greeting).map { [$0[0], $0[1], $0[4]] } == [
                ["Notice.Joined", "Ann Lee", "CLIENT"], ["Notice.Joined", "Ada Lovelace", "AGENT"], ["Message.Text", "Ada Lovelace", "AGENT"],
            ]
        )
        #expect(Self.rows(greeting).allSatisfy { Int($0[3]) != nil })

        let sent = try await rest.post("message=about%20my%20bill&_verbose=true", to: "/\(serviceID)/ixn/chat/send", contentType: Self.form)
        #expect(sent.status == 200)
        let echo = try await comet.events(clientID, on: "/_genesys") { events in Self.rows(events).contains { $0[2] == "about my bill" } }
        #expect(Self.rows(echo).last?[4] == "CLIENT")
        #expect((echo.last?.data["message"] as? [String: Any])?["transcriptPosition"] as? String == "4")
        let refreshed = try Self.json(try await rest.post("transcriptPosition=2", to: "/\(serviceID)/ixn/chat/refresh", contentType: Self.form).body)
        #expect((refreshed["transcriptToShow"] as? [[String]])?.map { $0[0] } == ["Message.Text", "Message.Text"])
        #expect(refreshed["transcriptPosition"] as? String == "4")

        // Background: /meta/disconnect with the position, then agent events while away.
        let bye = try await comet.send(#"{"channel":"/meta/disconnect","clientId":"\#(clientID)","ext":{"transcriptPosition":"4"},"id":"9"}"#)
        #expect(bye.first?["successful"] as? Bool == true)
        #expect(simulator.gms.chats.first?.isOnline == false)
        #expect(simulator.gms.agentNotices(chatID: chatID) == ["customer is not online"])
        try simulator.gms.agentTyping(started: true, chatID: chatID)
        try simulator.gms.agentSays("Hello", chatID: chatID)

        // Foreground: a new session of the same gms_user gets one catch-up event with the connect reply.
        let back = try await comet.handshake()
        _ = try await comet.subscribe(back, "/_genesys")
        let replies = try await comet.connect(back)
        #expect(replies.count == 2)
        #expect(replies.contains { $0["channel"] as? String == "/meta/connect" && $0["successful"] as? Bool == true })
        let catchUp = replies.filter { $0["channel"] as? String == "/_genesys" }
        #expect(catchUp.count == 1)
        #expect(Self.rows(catchUp).map { $0[0] } == ["Notice.TypingStarted", "Message.Text"])
        #expect(Self.rows(catchUp).last?[2] == "Hello")
        #expect((catchUp.first?.data["message"] as? [String: Any])?["transcriptPosition"] as? String == "6")
        #expect(simulator.gms.chats.first?.isOnline == true)

        // Typing rows are in the transcript; the agent's notice is not.
        #expect(!(simulator.gms.chats.first?.rows.contains { $0.text.contains("not online") } ?? true))
        let left = try await rest.post("", to: "/\(serviceID)/ixn/chat/disconnect", contentType: Self.form)
        #expect(try Self.json(left.body)["chatIxnState"] as? String == "DISCONNECTED")
    }

    /// A client restoring a saved chat (the app was killed): a raw disconnect of its old, forgotten
    /// clientId with the position and its gms_user still flags the chat away, and a new session catches up.
    @Test func aDisconnectOfAForgottenClientWithGmsUserFlagsTheChatAway() async throws {
        let (simulator, _) = try await GMSChatServerTests.start(GMSServerSettings(greeting: nil, greetingDelay: .seconds(3600)))
        defer { Task { await simulator.stop() } }
        let rest = GMSTestClient(url: simulator.gms.baseURL + "/1/service", gmsUser: "bo")
        let comet = GMSTestClient(url: simulator.gms.cometdURL, gmsUser: "bo")
        let serviceID = try #require(try Self.json(try await rest.post("", to: "/request-chat", contentType: Self.form).body)["_id"] as? String)
        _ = try await rest.post("firstName=Bo&lastName=Ek", to: "/\(serviceID)/ixn/chat", contentType: Self.form)
        let old = try await comet.handshake()
        simulator.gms.restart()
        let bye = try await comet.send(#"{"channel":"/meta/disconnect","clientId":"\#(old)","ext":{"transcriptPosition":1},"id":"7"}"#)
        #expect(bye.first?["error"] as? String == "402::Unknown client")
        #expect(simulator.gms.chats.first?.isOnline == false)
        #expect(simulator.gms.agentNotices() == ["customer is not online"])
        #expect(simulator.gms.counters.disconnects.last?.transcriptPosition == "1")
        try simulator.gms.agentSays("still there?")

        let back = try await comet.handshake()
        _ = try await comet.subscribe(back, "/_genesys")
        let replies = try await comet.connect(back)
        let catchUp = replies.filter { $0["channel"] as? String == "/_genesys" }
        #expect(catchUp.count == 1)
        #expect(Self.rows(catchUp).map { $0[2] } == ["has joined the session", "still there?"])
    }
}
