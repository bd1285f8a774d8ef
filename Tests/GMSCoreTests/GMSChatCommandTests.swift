import AttendantPluginAPI
import AttendantPluginKit
import GMSCore
import Testing

/// ``GMSChatCommand``: what a request asks of a GMS chat, in each chat API version, before anything is sent.
@Suite struct GMSChatCommandTests {
    @Test func requestsBecomeTheChatsOperationsInBothVersions() throws {
        for version in [1, 2] {
            #expect(try GMSChatCommand(.connect, apiVersion: version) == .start)
            #expect(try GMSChatCommand(.prepare, apiVersion: version) == .start)
            #expect(try GMSChatCommand(.listThreads, apiVersion: version) == .listThreads)
            #expect(try GMSChatCommand(.custom(command: "chat-status", arguments: [:]), apiVersion: version) == .status)
            let send = GMSChatOperation(v2: "sendMessage", v1: "send", fields: ["message": "hi"], reply: .done, startsChat: true)
            #expect(try GMSChatCommand(.sendMessage(threadID: nil, text: "hi"), apiVersion: version) == .operate(send))
            #expect(
                try GMSChatCommand(.endConversation(threadID: nil), apiVersion: version)
                    == .operate(GMSChatOperation(v2: "disconnect", v1: "disconnect", reply: .done))
            )
            let stop = GMSChatOperation(v2: "stopTyping", v1: "stopTyping", reply: .fields(["typing": "stopped"]))
            #expect(try GMSChatCommand(.typing(threadID: nil, started: false), apiVersion: version) == .operate(stop))
            #expect(try GMSChatCommand(.custom(command: "chat-typing", arguments: ["state": "stopped"]), apiVersion: version) == .operate(stop))
            let start = try GMSChatCommand(.custom(command: "chat-typing", arguments: [:]), apiVersion: version)
            #expect(
                start == .operate(GMSChatOperation(v2: "startTyping", v1: "startTyping", reply: .fields(["typing": "started"]))),
                "typing starts by default"
            )
        }
        let nickname = try GMSChatCommand(.custom(command: "chat-nickname", arguments: ["nickname": "Kim"]), apiVersion: 2)
        #expect(
            nickname
                == .operate(
                    GMSChatOperation(
                        v2: "updateNickname",
                        v1: "updateNickname",
                        fields: ["nickname": "Kim"],
                        reply: .fields(["operation": "updateNickname"])
                    )
                )
        )
        let pushed = try GMSChatCommand(.custom(command: "chat-push-url", arguments: ["url": "https://x.test"]), apiVersion: 2)
        #expect(
            pushed
                == .operate(
                    GMSChatOperation(v2: "pushUrl", v1: "pushUrl", fields: ["pushUrl": "https://x.test"], reply: .fields(["operation": "pushUrl"]))
                )
        )
    }

    @Test func whatOnlyV2HasIsRefusedOnV1AndAnEmptyFieldEverywhere() {
        #expect(
            throws: ChannelError(.unsupported, "gms-chat: GMS chat API v1 has no customer operation for a custom notice; it needs api-version = 2")
        ) {
            try GMSChatCommand(.custom(command: "chat-notice", arguments: ["text": "x"]), apiVersion: 1)
        }
        #expect(throws: ChannelError(.illegalState, "gms-chat: a nickname change needs nickname")) {
            try GMSChatCommand(.custom(command: "chat-nickname", arguments: [:]), apiVersion: 2)
        }
        #expect(throws: ChannelError(.illegalState, "gms-chat: a pushed URL needs pushUrl")) {
            try GMSChatCommand(.custom(command: "chat-push-url", arguments: ["url": ""]), apiVersion: 2)
        }
        let unknown = #expect(throws: ChannelError.self) { try GMSChatCommand(.viewPage(title: "t", url: "u"), apiVersion: 2) }
        #expect(unknown?.code == .unsupported)
        #expect(unknown?.message.hasPrefix("gms-chat: no view-page requests here; it knows prepare, connect,") == true)
    }
}

/// ``GMSChatInbound``: which decoder an event on a subscribed channel goes to, by API version and channel.
@Suite struct GMSChatInboundTests {
    static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test func eventsAreReadByTheirVersionsChannelAndOthersIgnoredOrRejected() throws {
        let reply = try Self.json(#"{"chatId":"c1","secureKey":"k1","messages":[]}"#)
        let v1 = try Self.json(#"{"tag":"service.chat.refresh.1","message":{"transcriptPosition":"1","transcriptToShow":[]}}"#)
        guard case .v2(let decoded) = GMSChatInbound(channel: "/service/chatV2/support", data: reply, apiVersion: 2, service: "support") else {
            Issue.record("not read as v2")
            return
        }
        #expect(decoded.secureKey == "k1")
        guard case .v1 = GMSChatInbound(channel: "/_genesys", data: v1, apiVersion: 1, service: "support") else {
            Issue.record("not read as v1")
            return
        }
        guard case .ignored("/_genesys") = GMSChatInbound(channel: "/_genesys", data: v1, apiVersion: 2, service: "support") else {
            Issue.record("v1's channel is not a v2 chat's")
            return
        }
        guard
            case .ignored("/service/chatV2/other") = GMSChatInbound(channel: "/service/chatV2/other", data: reply, apiVersion: 2, service: "support")
        else {
            Issue.record("another service's channel is not this chat's")
            return
        }
        guard
            case .rejected("/service/chatV2/support", _) = GMSChatInbound(
                channel: "/service/chatV2/support",
                data: .array([]),
                apiVersion: 2,
                service: "support"
            )
        else {
            Issue.record("not a GMS event, on the chat's channel")
            return
        }
        #expect(GMSChatInbound.serviceChannel("support") == "/service/chatV2/support")
    }

    @Test func theSessionCountsWhatItRejectsOrIgnores() {
        var session = GMSChatSessionTests.session()
        _ = session.received(
            GMSChatInbound(channel: "/other", data: .object([:]), apiVersion: 2, service: "customer-support"),
            now: GMSChatSessionTests.now
        )
        _ = session.received(
            GMSChatInbound(channel: "/service/chatV2/customer-support", data: .array([]), apiVersion: 2, service: "customer-support"),
            now: GMSChatSessionTests.now
        )
        #expect(session.eventsIgnored == 1 && session.eventsRejected == 1)
    }
}
