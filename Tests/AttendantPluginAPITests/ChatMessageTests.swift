import AttendantPluginAPI
import Testing

@Suite struct ChatMessageTests {
    let agent = Party(displayName: "Grace", address: "agent:7")
    let at = UnixTime(secondsSince1970: 1_700_000_000)

    @Test func theAPI10InitializerMakesAMessage() {
        let message = ChatMessage(id: "m1", threadID: "t1", direction: .fromAgent, sender: self.agent, text: "Hello", sentAt: self.at)
        #expect(message.kind == .message)
    }

    @Test func kindIsStoredAndTakesPartInEquality() {
        let typing = ChatMessage(id: "m1", threadID: "t1", kind: .typingStarted, direction: .notice, sender: self.agent, text: "", sentAt: self.at)
        let text = ChatMessage(id: "m1", threadID: "t1", direction: .notice, sender: self.agent, text: "", sentAt: self.at)
        #expect(typing.kind == .typingStarted)
        #expect(typing != text)
    }

    @Test func kindsUseTheConfigurationSpelling() {
        #expect(
            ChatMessage.Kind.allKnown.map(\.rawValue) == [
                "message", "typing-started", "typing-stopped", "joined", "left", "push-url", "custom", "idle-alert",
            ]
        )
        #expect(ChatMessage.Kind("push-url") == .pushURL)
    }
}
