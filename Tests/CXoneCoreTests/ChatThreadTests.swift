import AttendantPluginAPI
import CXoneCore
import Testing

/// The single-thread, multi-thread, create-thread and end-contact diagrams.
@Suite struct ChatThreadTests {
    @Test func singleThreadRecoversTheStoredThread() throws {
        var driver = ChatDriver(stored: .init(visitorID: "v", customerID: "c", threadIDs: ["Thread-1"]))
        driver.prepare()
        driver.connect()
        #expect(driver.lastCommand == .recoverThread(threadID: "Thread-1"))
        #expect(driver.state == .connected)
        let history = driver.message("m1", thread: "Thread-1", "earlier")
        driver.handle(
            .threadRecovered(
                ChatThread(id: "Thread-1", name: "Support", state: .received, lastMessages: [history]),
                caseID: "case-7",
                agent: Party(displayName: "Bob", address: "agent-7")
            )
        )
        #expect(driver.state == .ready)
        let thread = try #require(driver.machine.threads.first)
        #expect(driver.machine.threads.count == 1)
        #expect(thread.state == .ready)
        #expect(thread.lastMessages == [history])
        #expect(driver.threadUpdates.last == thread)
        #expect(driver.received.isEmpty, "history is not reported as new")
        #expect(driver.states.suffix(3) == [.connecting, .connected, .ready])
    }

    @Test func singleThreadWithoutAThreadIsReadyWithoutOne() {
        var driver = ChatDriver()
        driver.prepare()
        driver.connect()
        #expect(driver.lastCommand == .recoverThread(threadID: nil))
        driver.handle(.threadRecoveryFailed(threadID: nil))
        #expect(driver.state == .ready)
        #expect(driver.machine.threads.isEmpty)
        #expect(driver.threadUpdates.isEmpty)
    }

    @Test func aRecoveringThreadFailedOperationErrorIsTheSameAsNoThread() {
        var driver = ChatDriver(stored: .init(threadIDs: ["gone"]))
        driver.prepare()
        driver.connect()
        driver.handle(.operationError(code: "RecoveringThreadFailed", message: "no such thread"))
        #expect(driver.state == .ready)
        #expect(driver.machine.threads.isEmpty)
        #expect(driver.errors.isEmpty)
    }

    @Test func liveChatRecoversTheLivechat() {
        var driver = ChatDriver()
        driver.prepare(.init(isLiveChat: true))
        driver.perform { try $0.connect() }
        driver.handle(.availabilityFetched(online: true))
        driver.handle(.socketOpened)
        driver.answerAuthorization()
        #expect(driver.lastCommand == .recoverLivechat(threadID: nil))
    }

    @Test func multiThreadFetchesTheListAndLoadsEachThread() throws {
        var driver = ChatDriver()
        driver.prepare(.init(multiThread: true))
        driver.connect()
        #expect(driver.lastCommand == .fetchThreadList)
        driver.handle(.threadListFetched(["t1", "t2"]))
        #expect(driver.machine.threads.map(\.state) == [.received, .received])
        #expect(driver.commands.suffix(2) == [.loadThreadMetadata(threadID: "t1"), .loadThreadMetadata(threadID: "t2")])
        #expect(driver.stored.threadIDs == ["t1", "t2"])
        #expect(driver.state == .connected)
        driver.handle(.threadMetadataLoaded(threadID: "T1", name: "Billing", lastMessage: driver.message("m1", thread: "t1")))
        #expect(driver.machine.thread("t1")?.state == .loaded)
        #expect(driver.machine.thread("t1")?.name == "Billing")
        #expect(driver.state == .connected)
        driver.handle(.threadMetadataLoaded(threadID: "t2", name: nil, lastMessage: nil))
        #expect(driver.machine.threads.map(\.state) == [.loaded, .loaded])
        #expect(driver.state == .ready)
        // openThread recovers one.
        driver.perform { try $0.openThread(threadID: "t2") }
        #expect(driver.lastCommand == .recoverThread(threadID: "t2"))
        driver.handle(
            .threadRecovered(ChatThread(id: "t2", state: .received, lastMessages: [driver.message("m2", thread: "t2")]), caseID: "case-2", agent: nil)
        )
        #expect(driver.machine.thread("t2")?.state == .ready)
        #expect(driver.machine.thread("t2")?.lastMessages.count == 1)
        #expect(driver.machine.thread("t1")?.state == .loaded)
    }

    @Test func multiThreadWithNoThreadsIsReady() {
        var driver = ChatDriver()
        driver.prepare(.init(multiThread: true))
        driver.connect()
        driver.handle(.threadListFetched([]))
        #expect(driver.state == .ready)
    }

    @Test func aThreadListServerErrorIsReportedAndTheChatIsReady() {
        var driver = ChatDriver()
        driver.prepare(.init(multiThread: true))
        driver.connect()
        driver.handle(.serverError(message: "internal error, request 42"))
        #expect(driver.state == .ready)
        #expect(driver.errors.map(\.code) == [.server])
    }

    @Test func openThreadIsIllegalBeforeReadyAndNeedsAKnownThread() throws {
        var driver = ChatDriver()
        driver.prepare(.init(multiThread: true))
        #expect(driver.perform { try $0.openThread(threadID: "t1") }?.code == .illegalChatState)
        driver.connect()
        driver.handle(.threadListFetched([]))
        #expect(driver.perform { try $0.openThread(threadID: "t1") }?.code == .invalidThread)
    }

    @Test func createThreadMakesAPendingStoredThreadWithAUUID() throws {
        var driver = ChatDriver()
        driver.prepare(.init(multiThread: true))
        driver.connect()
        driver.handle(.threadListFetched([]))
        driver.perform { try $0.createThread(customFields: ["email": "ada@example.org"]) }
        let thread = try #require(driver.machine.threads.first)
        #expect(thread.state == .pending)
        #expect(thread.id.count == 36)
        #expect(driver.stored.threadIDs == [thread.id])
        #expect(driver.threadUpdates.last == thread)
        // Multi-thread: another one is fine.
        #expect(driver.perform { try $0.createThread(customFields: [:]) } == nil)
        #expect(driver.machine.threads.count == 2)
        #expect(Set(driver.machine.threads.map(\.id)).count == 2)
    }

    @Test func createThreadOnASingleThreadChannelWithAThreadIsUnsupported() throws {
        var driver = ChatDriver()
        driver.readySingleThread(thread: ChatThread(id: "thread-1", state: .ready))
        let before = driver.actions.count
        let error = try #require(driver.perform { try $0.createThread(customFields: [:]) })
        #expect(error.code == .unsupportedChannelConfig)
        #expect(driver.actions.count == before)
        #expect(driver.machine.threads.count == 1)
    }

    @Test func createThreadOnASingleThreadChannelWithoutAThread() throws {
        var driver = ChatDriver()
        driver.readySingleThread()
        #expect(driver.perform { try $0.createThread(customFields: [:]) } == nil)
        #expect(driver.machine.threads.first?.state == .pending)
    }

    @Test func createThreadIsIllegalBeforeReady() {
        var driver = ChatDriver()
        driver.prepare()
        #expect(driver.perform { try $0.createThread(customFields: [:]) }?.code == .illegalChatState)
    }

    @Test func endConversationSendsEndContactAndTheClosedCaseClosesTheThread() throws {
        var driver = ChatDriver()
        driver.readySingleThread(thread: ChatThread(id: "thread-1", state: .ready), caseID: "case-1")
        driver.perform { try $0.endConversation() }
        #expect(driver.lastCommand == .endContact(threadID: "thread-1", caseID: "case-1"))
        #expect(driver.machine.threads.first?.state == .ready)
        driver.handle(.caseStatusChanged(caseID: "case-1", status: .pending))
        #expect(driver.machine.threads.first?.state == .ready)
        driver.handle(.caseStatusChanged(caseID: "CASE-1", status: CaseStatusFixture.closed))
        #expect(driver.machine.threads.first?.state == .closed)
        #expect(driver.threadUpdates.last?.state == .closed)
        #expect(driver.state == .ready, "single-thread: the chat stays ready")
        #expect(driver.perform { try $0.endConversation(threadID: "thread-1") }?.code == .invalidThread)
    }

    /// The SDK keeps a single-thread (messaging) channel's thread after its case closes
    /// (`processCaseStatusChangedEvent` closes only a live chat's thread; `create()` refuses a second
    /// thread): the person writes on in the same thread, the server opens a new case for it. So a thread
    /// closed here goes on, `ready` again, when the person writes to it or asks for a new thread.
    @Test func aClosedSingleThreadConversationGoesOnInItsThreadWhenThePersonWritesAgain() throws {
        var driver = ChatDriver()
        driver.readySingleThread(thread: ChatThread(id: "thread-1", state: .ready), caseID: "case-1")
        driver.perform { try $0.endConversation() }
        driver.handle(.caseStatusChanged(caseID: "case-1", status: .closed))
        #expect(driver.machine.threads.first?.state == .closed)

        let refused = driver.perform { try $0.sendMessage(threadID: "thread-1", text: "One more thing", at: $1) }
        #expect(refused == nil, "\(refused?.message ?? "")")
        #expect(driver.machine.threads.map(\.id) == ["thread-1"] && driver.machine.threads.first?.state == .ready)
        #expect(driver.threadUpdates.last?.state == .ready, "the host hears the thread is open again")
        guard case .sendMessage(let threadID, _, let text, _)? = driver.lastCommand else {
            Issue.record("no SendMessage: \(String(describing: driver.lastCommand))")
            return
        }
        #expect(threadID == "thread-1" && text == "One more thing")

        // Asking for a new thread (chat send with no thread names the working one, and there is none open)
        // takes the closed one up again as well.
        driver.handle(.caseStatusChanged(caseID: "case-1", status: .closed))
        #expect(driver.perform { try $0.createThread(customFields: [:]) } == nil)
        #expect(driver.machine.threads.map(\.id) == ["thread-1"] && driver.machine.threads.first?.state == .ready)
    }

    /// A live chat that is over starts a new conversation when the person writes to it, as the SDK's
    /// "new conversation" does (`create()` clears the old live chat's thread on a live chat channel).
    @Test func aLiveChatThatIsOverStartsANewConversationWhenThePersonWritesToIt() throws {
        var driver = ChatDriver()
        driver.prepare(.init(isLiveChat: true))
        driver.perform { try $0.connect() }
        driver.handle(.availabilityFetched(online: true))
        driver.handle(.socketOpened)
        driver.answerAuthorization()
        driver.handle(.threadRecovered(ChatThread(id: "live-1", state: .ready), caseID: "case-9", agent: nil))
        driver.perform { try $0.endConversation() }
        driver.handle(.caseStatusChanged(caseID: "case-9", status: .closed))
        #expect(driver.state == .closed)

        let refused = driver.perform { try $0.sendMessage(threadID: "live-1", text: "Hello again", at: $1) }
        #expect(refused == nil, "\(refused?.message ?? "")")
        #expect(driver.state == .ready)
        let thread = try #require(driver.machine.threads.first)
        #expect(driver.machine.threads.count == 1 && thread.id != "live-1" && thread.state == .pending)
        guard case .sendMessage(let threadID, _, let text, _)? = driver.lastCommand else {
            Issue.record("no SendMessage: \(String(describing: driver.lastCommand))")
            return
        }
        #expect(threadID == thread.id && text == "Hello again")
    }

    @Test func endingALiveChatClosesTheChatAndANewThreadReopensIt() throws {
        var driver = ChatDriver()
        driver.prepare(.init(isLiveChat: true))
        driver.perform { try $0.connect() }
        driver.handle(.availabilityFetched(online: true))
        driver.handle(.socketOpened)
        driver.answerAuthorization()
        driver.handle(.threadRecovered(ChatThread(id: "live-1", state: .ready), caseID: "case-9", agent: nil))
        #expect(driver.perform { try $0.createThread(customFields: [:]) }?.code == .unsupportedChannelConfig)
        driver.perform { try $0.endConversation() }
        driver.handle(.caseStatusChanged(caseID: "case-9", status: .closed))
        #expect(driver.state == .closed)
        #expect(driver.perform { try $0.createThread(customFields: [:]) } == nil)
        #expect(driver.state == .ready)
        #expect(driver.machine.threads.count == 1)
        #expect(driver.machine.threads.first?.state == .pending)
    }

    @Test func aRecoveredLiveChatThatIsOverLeavesTheChatClosed() {
        var driver = ChatDriver()
        driver.prepare(.init(isLiveChat: true))
        driver.perform { try $0.connect() }
        driver.handle(.availabilityFetched(online: true))
        driver.handle(.socketOpened)
        driver.answerAuthorization()
        driver.handle(.threadRecovered(ChatThread(id: "live-1", state: .closed), caseID: "case-9", agent: nil))
        #expect(driver.state == .closed)
        #expect(driver.perform { try $0.createThread(customFields: [:]) } == nil)
        #expect(driver.state == .ready)
    }

    @Test func endingAThreadWithoutACaseClosesItLocally() {
        var driver = ChatDriver()
        driver.readySingleThread()
        driver.perform { try $0.createThread(customFields: [:]) }
        let sentBefore = driver.sent.count
        driver.perform { try $0.endConversation() }
        #expect(driver.sent.count == sentBefore)
        #expect(driver.machine.threads.first?.state == .closed)
    }

    @Test func endConversationNeedsTheThreadNamedWhenSeveralAreOpen() {
        var driver = ChatDriver()
        driver.prepare(.init(multiThread: true))
        driver.connect()
        driver.handle(.threadListFetched([]))
        driver.perform { try $0.createThread(customFields: [:]) }
        driver.perform { try $0.createThread(customFields: [:]) }
        #expect(driver.perform { try $0.endConversation() }?.code == .invalidThread)
    }
}

enum CaseStatusFixture {
    /// CXone sends statuses in mixed case.
    static let closed = ChatStateMachine.CaseStatus("Closed")
}
