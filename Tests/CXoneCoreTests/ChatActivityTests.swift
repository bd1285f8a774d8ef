import AttendantPluginAPI
import AttendantPluginKit
import CXoneCore
import Foundation
import Testing

/// The agent's typing, queue position, assignment and read receipts, and the customer's typing and read
/// events: from SDK-shaped frames through the mapping into the machine, and out as commands.
@Suite struct ChatActivityTests {
    static func input(_ frame: String) throws -> ChatStateMachine.Input? {
        let inbound = try CXoneInbound.decode(Array(frame.utf8))
        return ChatWireInput.input(for: inbound, now: UnixTime(secondsSince1970: 1_800_000_100)).input
    }

    static let agent = #"{"id":7,"firstName":"Grace","surname":"Kelly"}"#

    @Test func theGatewaysActivityEventsDecodeAsTheSDKReadsThem() throws {
        let typing = try Self.input(
            #"{"eventId":"e1","eventObject":"Thread","eventType":"SenderTypingStarted","createdAt":"2026-11-24T22:00:00Z","data":{"brand":{"id":1386},"channel":{"id":"chat_x"},"thread":{"idOnExternalPlatform":"T-1"},"user":\#(Self.agent)}}"#
        )
        #expect(
            typing
                == .agentTyping(
                    threadID: "t-1",
                    started: true,
                    agent: Party(displayName: "Grace Kelly", address: "cxone-agent:7"),
                    at: UnixTime(secondsSince1970: 1_800_000_100)
                )
        )
        let ended = try Self.input(
            #"{"eventId":"e2","eventType":"SenderTypingEnded","createdAt":"2026-11-24T22:00:00Z","data":{"thread":{"idOnExternalPlatform":"T-1"}}}"#
        )
        #expect(ended == .agentTyping(threadID: "t-1", started: false, agent: nil, at: UnixTime(secondsSince1970: 1_800_000_100)))
        let queue = try Self.input(
            #"{"eventId":"e3","eventType":"SetPositionInQueue","createdAt":"2026-11-24T22:00:00Z","data":{"consumerContact":{"id":"C-9"},"positionInQueue":4}}"#
        )
        #expect(queue == .positionInQueue(caseID: "c-9", position: 4))
        let assigned = try Self.input(
            #"{"eventId":"e4","eventType":"CaseInboxAssigneeChanged","createdAt":"2026-11-24T22:00:00Z","data":{"case":{"id":"C-9","status":"open"},"inboxAssignee":\#(Self.agent),"previousInboxAssignee":null}}"#
        )
        #expect(assigned == .assigneeChanged(caseID: "c-9", agent: Party(displayName: "Grace Kelly", address: "cxone-agent:7")))
        let read = try Self.input(
            #"{"eventId":"e5","eventType":"MessageReadChanged","createdAt":"2026-11-24T22:00:00Z","data":{"brand":{"id":1386},"message":{"idOnExternalPlatform":"M-1","threadIdOnExternalPlatform":"T-1","messageContent":{"type":"TEXT","payload":{"text":"Hi"}},"createdAt":"2026-11-24T21:59:00Z","direction":"inbound","userStatistics":{"readAt":"2026-11-24T22:00:00Z"}}}}"#
        )
        guard case .messageRead(let message)? = read else {
            Issue.record("not a read receipt: \(String(describing: read))")
            return
        }
        #expect(message.id == "m-1" && message.threadID == "t-1" && message.direction == .toAgent)
    }

    @Test func theAgentsActivityShowsAndEachTypingStartIsReported() {
        var driver = ChatReliabilityTests.ready()
        let grace = Party(displayName: "Grace Kelly", address: "cxone-agent:7")
        let now = UnixTime(secondsSince1970: 1_800_000_100)
        driver.handle(.positionInQueue(caseID: "case-1", position: 2))
        #expect(driver.machine.activity(threadID: "thread-1").positionInQueue == 2)
        #expect(driver.machine.thread("thread-1")?.positionInQueue == 2)
        driver.handle(.assigneeChanged(caseID: "case-1", agent: grace))
        #expect(driver.machine.activity(threadID: "thread-1") == .init(assignedAgent: grace))
        #expect(driver.machine.thread("thread-1")?.assignedAgent == grace && driver.machine.thread("thread-1")?.positionInQueue == nil)
        driver.handle(.agentTyping(threadID: "thread-1", started: true, agent: nil, at: now))
        driver.handle(.agentTyping(threadID: "thread-1", started: true, agent: nil, at: now))
        #expect(driver.machine.activity(threadID: "thread-1").typingAgent == grace)
        let notices = driver.reports.compactMap { if case .messageReceived(let m) = $0 { m } else { nil } }
        #expect(notices.map(\.kind) == [.typingStarted, .typingStarted], "each start, as the SDK tells each")
        #expect(notices.first?.sender == grace && notices.first?.direction == .notice)
        // The agent's message ends the typing without a notice.
        driver.handle(.messageCreated(driver.message("a1", "Hello"), caseID: "case-1"))
        #expect(driver.machine.activity(threadID: "thread-1").typingAgent == nil)
        let mine = driver.message("c1", from: false, "mine", at: 5)
        driver.handle(.messageCreated(mine, caseID: "case-1"))
        var receipt = mine
        receipt.readByAgentAt = UnixTime(secondsSince1970: 1_800_000_200)
        driver.handle(.messageRead(receipt))
        #expect(driver.machine.activity(threadID: "thread-1").readByAgentThrough == "c1")
        #expect(driver.machine.thread("thread-1")?.lastMessages.last?.readByAgentAt == UnixTime(secondsSince1970: 1_800_000_200))
    }

    @Test func theCustomersTypingAndReadsGoOutWhereTheSDKSendsThem() throws {
        var driver = ChatReliabilityTests.ready()
        #expect(driver.perform { try $0.reportTyping(threadID: "thread-1", started: true) } == nil)
        #expect(driver.lastCommand == .senderTyping(threadID: "thread-1", started: true))
        driver.apply(driver.machine.markRead(threadID: "thread-1"))
        #expect(driver.lastCommand == .messageSeenByCustomer(threadID: "thread-1"))
        // Not for a pending (local) thread, nor typing in a closed one.
        let new = ChatMessageTests.readyWithNewThread()
        var multi = new.0
        let pending = new.1
        let sent = multi.sent.count
        multi.apply(multi.machine.markRead(threadID: pending))
        #expect(multi.sent.count == sent)
        _ = driver.perform { try $0.endConversation(threadID: "thread-1") }
        driver.handle(.caseStatusChanged(caseID: "case-1", status: .closed))
        #expect(driver.perform { try $0.reportTyping(threadID: "thread-1", started: false) }?.code == .invalidThread)
        // The frames are the SDK's: the thread reference as data.
        let context = ChatWireOutput.Context(
            brandID: 1386,
            channelID: "chat_x",
            customer: .init(id: "c"),
            visitorID: nil,
            accessToken: nil,
            sdkVersion: "t"
        )
        let frame = try ChatWireOutput.frame(for: .senderTyping(threadID: "t-1", started: false), context: context).encoded()
        let text = String(decoding: frame, as: UTF8.self)
        #expect(text.contains(#""eventType":"SenderTypingEnded""#) && text.contains(#""thread":{"idOnExternalPlatform":"t-1"}"#), "\(text)")
    }
}
