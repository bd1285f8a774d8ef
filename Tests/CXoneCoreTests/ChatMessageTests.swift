import AttendantPluginAPI
import CXoneCore
import Testing

/// The "chat with an agent" diagram, large events and errors from the server.
@Suite struct ChatMessageTests {
    /// Ready on a multi-thread channel with one new (pending) thread.
    static func readyWithNewThread(customFields: [String: String] = [:]) -> (ChatDriver, String) {
        var driver = ChatDriver()
        driver.prepare(.init(multiThread: true))
        driver.connect()
        driver.handle(.threadListFetched([]))
        driver.perform { try $0.createThread(customFields: customFields) }
        return (driver, driver.machine.threads[0].id)
    }

    @Test func theWelcomeMessageGoesFirstThenTheMessage() throws {
        var (driver, threadID) = Self.readyWithNewThread(customFields: ["email": "ada@example.org"])
        driver.handle(.proactiveAction(welcome: "Hi, how can we help?"))
        driver.perform { try $0.sendMessage(threadID: threadID, text: "My order is late", at: $1) }
        guard case .sendOutbound(threadID, let welcomeID, "Hi, how can we help?") = driver.commands.dropLast().last,
            case .sendMessage(threadID, let messageID, "My order is late", let fields) = driver.lastCommand
        else {
            Issue.record("SendOutbound then SendMessage expected: \(driver.commands)")
            return
        }
        #expect(fields == ["email": "ada@example.org"], "the pre-chat answers go with the first message")
        #expect(welcomeID != messageID)
        #expect(driver.stored.outbox.map(\.messageID) == [welcomeID, messageID])
        // The welcome goes once.
        driver.perform { try $0.sendMessage(threadID: threadID, text: "Order 42", at: $1) }
        guard case .sendMessage(_, _, "Order 42", let later) = driver.lastCommand else {
            Issue.record("SendMessage expected")
            return
        }
        #expect(later.isEmpty)
        #expect(!driver.commands.dropLast().last.map { if case .sendOutbound = $0 { true } else { false } }!)
    }

    @Test func messageCreatedUpdatesTheThreadAndConfirmsTheOutbox() throws {
        var (driver, threadID) = Self.readyWithNewThread()
        driver.perform { try $0.sendMessage(threadID: threadID, text: "Hello", at: $1) }
        let entry = try #require(driver.stored.outbox.first)
        let mine = ChatMessage(
            id: entry.messageID.uppercased(),
            threadID: threadID,
            direction: .toAgent,
            sender: Party(displayName: "Me", address: ""),
            text: "Hello",
            sentAt: driver.wallClock
        )
        driver.handle(.messageCreated(mine, caseID: "case-3"))
        #expect(driver.stored.outbox.isEmpty)
        let thread = try #require(driver.machine.thread(threadID))
        #expect(thread.state == .ready)
        #expect(thread.lastMessages == [mine])
        #expect(driver.received == [mine])
        let reply = driver.message("agent-1", thread: threadID, "Hello, I am Bob")
        driver.handle(.messageCreated(reply, caseID: "case-3"))
        driver.handle(.messageCreated(reply, caseID: "case-3"))
        #expect(driver.received == [mine, reply], "each message is reported once")
        // The case id from MessageCreated is the one EndContact uses.
        driver.perform { try $0.endConversation(threadID: threadID) }
        #expect(driver.lastCommand == .endContact(threadID: threadID, caseID: "case-3"))
    }

    @Test func aMessageForAnUnknownThreadAddsTheThread() {
        var driver = ChatDriver()
        driver.prepare(.init(multiThread: true))
        driver.connect()
        driver.handle(.threadListFetched([]))
        driver.handle(.messageCreated(driver.message("x1", thread: "elsewhere"), caseID: nil))
        #expect(driver.machine.thread("elsewhere")?.state == .ready)
        #expect(driver.stored.threadIDs == ["elsewhere"])
    }

    @Test func sendMessageIsIllegalBeforeConnectingAndNeedsAKnownThread() {
        var driver = ChatDriver()
        driver.prepare()
        #expect(driver.perform { try $0.sendMessage(threadID: "t", text: "x", at: $1) }?.code == .illegalChatState)
        driver.connect()
        driver.handle(.threadRecoveryFailed(threadID: nil))
        #expect(driver.perform { try $0.sendMessage(threadID: "t", text: "x", at: $1) }?.code == .invalidThread)
        #expect(driver.stored.outbox.isEmpty)
    }

    @Test func aLargeEventIsDownloadedAndHandledAsItsOriginEvent() {
        var (driver, threadID) = Self.readyWithNewThread()
        driver.handle(.eventInS3(url: "https://s3.example/e1.json", originEventType: "MessageCreated"))
        #expect(driver.actions.last == .download(url: "https://s3.example/e1.json"))
        let big = driver.message("big-1", thread: threadID, String(repeating: "x", count: 200_000))
        driver.handle(.downloaded(url: "https://s3.example/e1.json", .messageCreated(big, caseID: nil)))
        #expect(driver.received == [big])
        // A second body for the same URL, or one nobody asked for, is ignored.
        driver.handle(.downloaded(url: "https://s3.example/e1.json", .messageCreated(driver.message("big-2", thread: threadID), caseID: nil)))
        #expect(driver.received == [big])
    }

    @Test func aDownloadedBodyThatIsNoServerEventIsIgnored() {
        var (driver, _) = Self.readyWithNewThread()
        driver.handle(.eventInS3(url: "https://s3.example/e3.json", originEventType: "Unknown"))
        driver.handle(.downloaded(url: "https://s3.example/e3.json", .socketClosed(reason: "not an event")))
        #expect(driver.state == .ready)
        #expect(!driver.machine.isArmed(.reconnect))
    }

    @Test func aFailedDownloadIsReported() {
        var (driver, _) = Self.readyWithNewThread()
        driver.handle(.eventInS3(url: "https://s3.example/e2.json", originEventType: "ThreadRecovered"))
        driver.handle(.downloadFailed(url: "https://s3.example/e2.json", reason: "403 Forbidden"))
        #expect(driver.errors.map(\.code) == [.server])
        #expect(driver.errors.first?.message.contains("https://s3.example/e2.json") == true)
    }

    @Test func serverErrorsReachTheUserAsTypedErrors() {
        var (driver, _) = Self.readyWithNewThread()
        driver.handle(.operationError(code: "SendingMessageFailed", message: "thread archived"))
        driver.handle(.serverError(message: "internal server error"))
        #expect(driver.errors.map(\.code) == [.operation, .server])
        #expect(driver.errors.first?.serverCode == "SendingMessageFailed")
        #expect(driver.state == .ready)
    }

    @Test func theLiveChatsBeginConversationMarkerIsNoMessage() {
        var driver = ChatDriver()
        driver.prepare(.init(isLiveChat: true))
        driver.perform { try $0.connect() }
        driver.handle(.availabilityFetched(online: true))
        driver.handle(.socketOpened)
        driver.answerAuthorization()
        driver.handle(.threadRecoveryFailed(threadID: nil))
        #expect(driver.state == .ready)
        // Another client of the customer (the mobile SDK) opens the live chat with the marker.
        let marker = driver.message("m0", thread: "live-1", from: false, "__Begin Live Chat Conversation__", at: 1)
        driver.handle(.messageCreated(marker, caseID: "case-9"))
        #expect(driver.received.isEmpty)
        #expect(driver.machine.thread("live-1")?.lastMessages.isEmpty == true)
        // The thread and its case exist: the conversation can be ended.
        #expect(driver.perform { try $0.endConversation(threadID: "live-1") } == nil)
        #expect(driver.lastCommand == .endContact(threadID: "live-1", caseID: "case-9"))
        // Recovered later, the history holds it; it is left out.
        let hello = driver.message("m1", thread: "live-1", from: false, "Hello", at: 2)
        var recovered = ChatThread(id: "live-1", state: .ready)
        recovered.lastMessages = [marker, hello]
        driver.handle(.threadRecovered(recovered, caseID: "case-9", agent: nil))
        #expect(driver.machine.thread("live-1")?.lastMessages.map(\.text) == ["Hello"])
        #expect(driver.threadUpdates.last?.lastMessages.map(\.text) == ["Hello"])
    }
}
