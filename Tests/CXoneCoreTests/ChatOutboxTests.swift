import AttendantPluginAPI
import CXoneCore
import Testing

/// The outbox while the desktop sleeps, and messages the server refuses.
@Suite struct ChatOutboxTests {
    /// Ready on a single-thread channel with a thread that has a case.
    static func ready() -> ChatDriver {
        var driver = ChatDriver()
        driver.readySingleThread(thread: ChatThread(id: "thread-1", state: .loaded))
        return driver
    }

    @Test func aMessageWrittenWhileAsleepWaitsInTheOutboxAndGoesOutOnceOnResume() throws {
        var driver = Self.ready()
        driver.apply(driver.machine.background(at: driver.wallClock))
        #expect(driver.state == .prepared)
        #expect(driver.machine.isAsleep)

        let refused = driver.perform { try $0.sendMessage(threadID: "thread-1", text: "Written asleep", at: $1) }
        #expect(refused == nil, "\(refused?.message ?? "")")
        let entry = try #require(driver.stored.outbox.first)
        #expect(entry.text == "Written asleep")
        #expect(driver.sentMessageIDs.isEmpty, "nothing goes out while asleep")
        #expect(!driver.machine.awaitsConfirmation(entry.messageID))

        // Resume: connected again, the thread recovered, the message sent once and confirmed.
        driver.apply(driver.machine.foreground())
        driver.handle(.socketOpened)
        driver.answerAuthorization()
        driver.handle(.threadRecovered(ChatThread(id: "thread-1", state: .loaded), caseID: "case-1", agent: nil))
        #expect(driver.state == .ready)
        #expect(driver.sentMessageIDs == [entry.messageID])
        #expect(driver.machine.awaitsConfirmation(entry.messageID))
        let mine = ChatMessage(
            id: entry.messageID,
            threadID: "thread-1",
            direction: .toAgent,
            sender: Party(displayName: "Me", address: ""),
            text: "Written asleep",
            sentAt: driver.wallClock
        )
        driver.handle(.messageCreated(mine, caseID: "case-1"))
        #expect(driver.stored.outbox.isEmpty)
        #expect(driver.sentMessageIDs == [entry.messageID])
    }

    @Test func aChatThatWasNeverConnectedOrWasDisconnectedStillRefusesMessages() {
        var driver = ChatDriver()
        driver.prepare()
        #expect(driver.perform { try $0.sendMessage(threadID: "thread-1", text: "x", at: $1) }?.code == .illegalChatState)
        var stopped = Self.ready()
        stopped.apply(stopped.machine.disconnect())
        #expect(!stopped.machine.isAsleep)
        #expect(stopped.perform { try $0.sendMessage(threadID: "thread-1", text: "x", at: $1) }?.code == .illegalChatState)
        #expect(stopped.stored.outbox.isEmpty)
    }

    @Test func aRefusedMessageLeavesTheOutboxAndAFailedOneStaysForTheNextConnection() throws {
        var driver = Self.ready()
        driver.perform { try $0.sendMessage(threadID: "thread-1", text: "Refused", at: $1) }
        driver.perform { try $0.sendMessage(threadID: "thread-1", text: "Failed", at: $1) }
        let refused = driver.stored.outbox[0].messageID
        let failed = driver.stored.outbox[1].messageID

        // An operation error: the server will not take it; sending it again would be refused again.
        driver.apply(
            driver.machine.messageRefused(
                messageID: refused.uppercased(),
                ChatError(.operation, "the chat server refused message", serverCode: "InvalidMessage"),
                transient: false
            )
        )
        #expect(driver.stored.outbox.map(\.messageID) == [failed])
        let first = try #require(driver.errors.last)
        #expect(first.messageID == refused)
        #expect(first.code == .operation)
        #expect(first.message.contains("removed from the outbox"), "\(first.message)")

        // A server error: kept, and sent again (with the same id) on the next connection only.
        driver.apply(driver.machine.messageRefused(messageID: failed, ChatError(.server, "the chat server failed"), transient: true))
        #expect(driver.stored.outbox.map(\.messageID) == [failed])
        let second = try #require(driver.errors.last)
        #expect(second.messageID == failed)
        #expect(second.message.contains("stays in the outbox"), "\(second.message)")
        #expect(driver.sentMessageIDs == [refused, failed])
        driver.handle(.socketClosed(reason: "gone"))
        driver.advance(by: .seconds(3))
        driver.handle(.socketOpened)
        driver.answerAuthorization()
        driver.handle(.threadRecovered(ChatThread(id: "thread-1", state: .loaded), caseID: "case-1", agent: nil))
        #expect(driver.sentMessageIDs == [refused, failed, failed])

        // A refusal for a message no longer in the outbox changes nothing.
        let before = driver.reports.count
        driver.apply(driver.machine.messageRefused(messageID: refused, ChatError(.operation, "again"), transient: false))
        #expect(driver.reports.count == before)
    }
}

extension ChatOutboxTests {
    @Test func anErrorAnsweringASendIsThatMessagesRefusal() throws {
        let request = ChatWireOutput.request(for: .sendMessage(threadID: "thread-1", messageID: "message-1", text: "x", customFields: [:]))
        #expect(request.messageID == "message-1")
        let refused = try #require(
            ChatWireInput.refusal(.operationError(CXoneOperationError(errorCode: "InvalidMessage", errorMessage: "too long")), request: request)
        )
        #expect(refused.messageID == "message-1" && !refused.transient)
        #expect(refused.error.code == .operation && refused.error.serverCode == "InvalidMessage")
        #expect(refused.error.message == "the chat server refused message message-1 (InvalidMessage): too long")
        let failed = try #require(
            ChatWireInput.refusal(.serverError(CXoneServerError(message: "Internal server error", requestId: "e-1")), request: request)
        )
        #expect(failed.transient && failed.error.code == .server)
        #expect(CXoneInbound.serverError(CXoneServerError(message: "x", requestId: "E-1")).answeredRequestId == CXoneID("e-1"))
        #expect(ChatWireInput.refusal(.pong, request: request) == nil)
        let recovery = ChatWireOutput.request(for: .recoverThread(threadID: "thread-1"))
        #expect(ChatWireInput.refusal(.operationError(CXoneOperationError(errorCode: "RecoveringThreadFailed")), request: recovery) == nil)
    }
}
