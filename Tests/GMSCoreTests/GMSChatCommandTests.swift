import AttendantPluginAPI
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
            #expect(try GMSChatCommand(.endConversation(threadID: nil), apiVersion: version) == .operate(GMSChatOperation(v2: "disconnect", v1: "disconnect", reply: .done)))
            let stop = GMSChatOperation(v2: "stopTyping", v1: "stopTyping", reply: .fields(["typing": "stopped"]))
            #expect(try GMSChatCommand(.typing(threadID: nil, started: false), apiVersion: version) == .operate(stop))
            #expect(try GMSChatCommand(.custom(command: "chat-typing", arguments: ["state": "stopped"]), apiVersion: version) == .operate(stop))
            let start = try GMSChatCommand(.custom(command: "chat-typing", arguments: [:]), apiVersion: version)
            #expect(start == .operate(GMSChatOperation(v2: "startTyping", v1: "startTyping", reply: .fields(["typing": "started"]))), "typing starts by default")
        }
        let nickname = try GMSChatCommand(.custom(command: "chat-nickname", arguments: ["nickname": "Kim"]), apiVersion: 2)
        #expect(nickname == .operate(GMSChatOperation(v2: "updateNickname", v1: "updateNickname", fields: ["nickname": "Kim"], reply: .fields(["operation": "updateNickname"]))))
        let pushed = try GMSChatCommand(.custom(command: "chat-push-url", arguments: ["url": "https://x.test"]), apiVersion: 2)
        #expect(pushed == .operate(GMSChatOperation(v2: "pushUrl", v1: "pushUrl", fields: ["pushUrl": "https://x.test"], reply: .fields(["operation": "pushUrl"]))))
    }

    @Test func whatOnlyV2HasIsRefusedOnV1AndAnEmptyFieldEverywhere() {
        #expect(throws: ChannelError(.unsupported, "gms-chat: GMS chat API v1 has no customer operation for a custom notice; it needs api-version = 2")) {
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
