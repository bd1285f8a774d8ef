import AttendantPluginAPI
import GMSCore
import Testing

/// How transcript rows of both API versions become the plugin API's chat messages.
@Suite struct TranscriptMappingTests {
    static func row(_ type: String, party: String, position: Int = 3, text: String = "t") -> GMSTranscriptEvent {
        GMSTranscriptEvent(
            position: position,
            type: GMSEventType(type),
            party: GMSParty(nickname: "Ada", type: party),
            text: text,
            utcMilliseconds: 1_432_845_088_000
        )
    }

    @Test(arguments: [
        ("Message", ChatMessage.Kind.message), ("Message.Text", .message), ("ParticipantJoined", .joined), ("Notice.Joined", .joined),
        ("ParticipantLeft", .left), ("Notice.Left", .left), ("TypingStarted", .typingStarted), ("Notice.TypingStarted", .typingStarted),
        ("TypingStopped", .typingStopped), ("Notice.TypingStopped", .typingStopped), ("PushUrl", .pushURL), ("Notice.PushUrl", .pushURL),
        ("CustomNotice", .custom), ("Notice.Custom", .custom), ("IdleAlert", .idleAlert), ("IdleClose", .idleAlert), ("FileUploaded", .message),
    ])
    func mapsEveryEventTypeOfBothVersions(type: String, kind: ChatMessage.Kind) {
        #expect(Self.row(type, party: "Agent").kind == kind)
    }

    @Test func theCustomersOwnRowsGoToTheAgentAndNoticesAreNotices() {
        #expect(Self.row("Message", party: "Client").direction == .toAgent)
        #expect(Self.row("Message.Text", party: "CLIENT").direction == .toAgent)
        #expect(Self.row("Message", party: "Agent").direction == .fromAgent)
        #expect(Self.row("Message.Text", party: "AGENT").direction == .fromAgent)
        #expect(Self.row("Notice.TypingStarted", party: "AGENT").direction == .notice)
        #expect(Self.row("ParticipantJoined", party: "Supervisor").direction == .notice)
    }

    /// A row replayed after a new session is the same message: same id, same position.
    @Test func aRowsMessageIsNamedByItsThreadAndPosition() {
        let message = Self.row("Message", party: "Agent", position: 42, text: "Hello").chatMessage(
            threadID: "gms-1",
            receivedAt: UnixTime(secondsSince1970: 5)
        )
        #expect(message.id == "gms-1#42")
        #expect(message.transcriptPosition == 42)
        #expect(message.text == "Hello")
        #expect(message.sender.displayName == "Ada")
        #expect(message.sentAt == UnixTime(secondsSince1970: 1_432_845_088))
        let untimed = GMSTranscriptEvent(position: 1, type: GMSEventType("Message.Text"), party: GMSParty(nickname: "", type: "AGENT"), text: "x")
        let fallback = untimed.chatMessage(threadID: "t", receivedAt: UnixTime(secondsSince1970: 9))
        #expect(fallback.sentAt == UnixTime(secondsSince1970: 9))
        #expect(fallback.sender.displayName == "Agent")
    }
}
