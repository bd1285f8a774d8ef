import AttendantPluginAPI
import CXoneCore
import Testing

/// ``ChatActivity`` alone: the agent typing and reading, per thread, and the messages met.
@Suite struct ChatActivityValueTests {
    static let bob = Party(displayName: "Bob", address: "agent-7")
    static let eve = Party(displayName: "Eve", address: "agent-9")

    @Test func everyStartIsToldAndAnEndOnlyAfterAStart() {
        var activity = ChatActivity()
        let ended = activity.typingEnded(inThread: "t1")
        #expect(!ended, "nobody was typing")
        let started = activity.typingStarted(Self.bob, inThread: "T1")
        let startedAgain = activity.typingStarted(Self.eve, inThread: "t1")
        #expect(started)
        #expect(startedAgain, "the SDK tells each start")
        #expect(activity.typingAgent(inThread: "t1") == Self.eve, "the latest start's agent")
        #expect(activity.typingAgent(inThread: "t2") == nil, "typing is per thread")
        let endedNow = activity.typingEnded(inThread: "t1")
        #expect(endedNow)
        #expect(activity.typingAgent(inThread: "t1") == nil)
    }

    @Test func theNewestReadMessageIsKeptPerThreadAndARepeatIsNoNews() {
        var activity = ChatActivity()
        let first = activity.agentRead("m1", inThread: "T1")
        let repeated = activity.agentRead("m1", inThread: "t1")
        let newer = activity.agentRead("m2", inThread: "t1")
        #expect(first)
        #expect(!repeated)
        #expect(newer)
        #expect(activity.readByAgentThrough(inThread: "t1") == "m2")
        #expect(activity.readByAgentThrough(inThread: "t2") == nil)
    }

    @Test func aMessageIsMetOnceWhateverTheCaseOfItsID() {
        var activity = ChatActivity()
        let first = activity.firstMeeting("Message-1")
        let again = activity.firstMeeting("message-1")
        let other = activity.firstMeeting("message-2")
        #expect(first)
        #expect(!again)
        #expect(other)
    }
}
