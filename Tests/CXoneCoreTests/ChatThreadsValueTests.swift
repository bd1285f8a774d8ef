import AttendantPluginAPI
import CXoneCore
import Testing

/// ``ChatThreads`` alone: the list of threads with its id table, and what the server said about each.
@Suite struct ChatThreadsValueTests {
    static let bob = Party(displayName: "Bob", address: "agent-7")
    static let eve = Party(displayName: "Eve", address: "agent-9")

    @Test func threadsAreFoundByIdInAnyCaseAndKeepTheirOrder() {
        var threads = ChatThreads()
        threads.append(ChatThread(id: "Thread-A", state: .received))
        threads.append(ChatThread(id: "thread-b", state: .pending))
        #expect(threads.all.map(\.id) == ["Thread-A", "thread-b"])
        #expect(threads.index(of: "THREAD-B") == 1)
        #expect(threads.thread("thread-a")?.id == "Thread-A")
        #expect(threads.thread("thread-c") == nil)

        threads[0].state = .ready
        #expect(threads.thread("thread-a")?.state == .ready)

        threads.replaceAll(with: [ChatThread(id: "thread-b", state: .closed)])
        #expect(threads.index(of: "thread-a") == nil)
        #expect(threads.index(of: "thread-b") == 0)
    }

    @Test func aDuplicateIdIsListedAndLookupsFindTheFirst() {
        var threads = ChatThreads()
        threads.append(ChatThread(id: "t1", name: "first", state: .ready))
        threads.append(ChatThread(id: "T1", name: "second", state: .ready))
        #expect(threads.all.count == 2)
        #expect(threads.thread("t1")?.name == "first")
    }

    @Test func anAgentAssignedToACaseBeforeItsThreadIsKnownIsTheThreadsOnceTheCaseIs() {
        var threads = ChatThreads()
        threads.append(ChatThread(id: "t1", state: .ready))
        let queued = threads.setPositionInQueue(3, ofCase: "case-1")
        let queuedAgain = threads.setPositionInQueue(3, ofCase: "case-1")
        #expect(queued)
        #expect(!queuedAgain, "the same position is no change")
        threads.assign(Self.bob, toCase: "case-1")
        #expect(threads.index(ofCase: "case-1") == nil, "the thread's case is not known yet")
        #expect(threads.assignedAgent(ofThread: "t1") == nil)

        threads.setCaseID("case-1", ofThread: "T1")
        #expect(threads.caseID(ofThread: "t1") == "case-1")
        #expect(threads.index(ofCase: "CASE-1") == 0)
        #expect(threads.assignedAgent(ofThread: "t1") == Self.bob)
        #expect(threads.positionInQueue(ofThread: "t1") == nil, "an assigned case is no longer queued")

        threads.refreshAgentSide(at: 0)
        #expect(threads[0].assignedAgent == Self.bob)
    }

    @Test func theRecoveredAgentOfAThreadGoesBeforeTheCasesAndUnassigningClearsBoth() {
        var threads = ChatThreads()
        threads.append(ChatThread(id: "t1", state: .ready))
        threads.setCaseID("case-1", ofThread: "t1")
        threads.setAgent(Self.eve, ofThread: "t1")
        threads.setAgent(nil, ofThread: "t1")
        #expect(threads.assignedAgent(ofThread: "t1") == Self.eve, "a recovery naming no agent changes nothing")
        let queued = threads.setPositionInQueue(2, ofCase: "case-1")
        #expect(queued)
        #expect(threads.positionInQueue(ofThread: "t1") == 2)

        threads.assign(nil, toCase: "case-1")
        #expect(threads.assignedAgent(ofThread: "t1") == nil)
        #expect(threads.positionInQueue(ofThread: "t1") == 2, "unassigned, the case is still queued")
    }

    @Test func aNewThreadsFormAnswersAndWelcomeGoOutOnce() {
        var threads = ChatThreads()
        threads.setCustomFields(["email": "a@example.com"], ofThread: "New-1")
        let answers = threads.takeCustomFields(ofThread: "new-1")
        let answersAgain = threads.takeCustomFields(ofThread: "new-1")
        #expect(answers == ["email": "a@example.com"])
        #expect(answersAgain.isEmpty, "the answers go with one message")
        let welcomed = threads.markWelcomed("New-1")
        let welcomedAgain = threads.markWelcomed("new-1")
        #expect(welcomed)
        #expect(!welcomedAgain)
    }
}
