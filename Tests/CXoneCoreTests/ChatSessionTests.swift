import AttendantPluginAPI
import AttendantPluginKit
import CXoneCore
import Testing

/// What CXoneCore decides for the driver beyond the machine: the storage layout, the contact history,
/// errors as the host sees them, and the user's operations with what each caller hears.
@Suite struct ChatSessionTests {
    // MARK: Storage

    /// Applies records to a store's values and secrets, as the driver does.
    static func keep(_ records: [StoreWrite]) -> (store: [String: String], secrets: [String: String]) {
        var store: [String: String] = [:]
        var secrets: [String: String] = [:]
        for record in records {
            switch record.place {
            case .store: store[record.key] = record.value
            case .secrets: secrets[record.key] = record.value
            }
        }
        return (store, secrets)
    }

    @Test func everyStoredValueIsReadBackAsItWasKeptAndTheTokenOnlyFromTheSecrets() throws {
        let shown = ChatStateMachine.ShownMessages(
            entries: [.init(id: "m-1", sentAt: UnixTime(secondsSince1970: 1_800_000_000.5))],
            floor: UnixTime(secondsSince1970: 1_799_999_000)
        )
        let token = ChannelToken(value: "secret-token", expiresAt: UnixTime(secondsSince1970: 1_800_003_600))
        let values: [ChatStateMachine.StoredValue] = [
            .visitorID("visitor-1"), .customerID("customer-1"), .threadIDs(["Thread-A", "thread-b"]),
            .shownMessages(threadID: "Thread-A", shown), .accessToken(token),
        ]
        let (store, secrets) = Self.keep(try values.map(ChatStorage.record(for:)))

        #expect(!store.values.contains { $0.contains("secret-token") }, "the access token stays out of the state database")
        let (stored, contacts) = ChatStorage.read(store)
        #expect(stored.visitorID == "visitor-1")
        #expect(stored.customerID == "customer-1")
        #expect(stored.threadIDs == ["Thread-A", "thread-b"])
        #expect(stored.shownMessages == ["thread-a": shown])
        #expect(stored.accessToken == nil)
        #expect(contacts.threads.isEmpty)
        let secret = try #require(secrets[ChatStorage.Key.accessToken])
        #expect(ChatStorage.accessToken(fromSecret: secret) == token)

        // A token cleared is removed from the secrets.
        #expect(
            try ChatStorage.record(for: .accessToken(nil))
                == StoreWrite(.secrets, key: ChatStorage.Key.accessToken, value: nil, what: "the chat's access token")
        )
    }

    @Test func anOlderVersionsShownThroughIsAFloorAndUnreadableRecordsAreLeftOut() {
        let (stored, _) = ChatStorage.read([
            "shown-through.thread-a": "1800000000",
            "shown.thread-b": "{not json",
            "thread-ids": "[\"unterminated",
            "shown-through.thread-c": "soon",
        ])
        #expect(stored.shownMessages == ["thread-a": ChatStateMachine.ShownMessages(floor: UnixTime(secondsSince1970: 1_800_000_000))])
        #expect(stored.threadIDs.isEmpty)
        #expect(ChatStorage.accessToken(fromSecret: "plain text") == nil)
    }

    // MARK: Contact history

    static func agentMessage(_ id: String, thread: String) -> ChatMessage {
        ChatMessage(
            id: id,
            threadID: thread,
            direction: .fromAgent,
            sender: Party(displayName: "Agent Smith", address: "agent-1"),
            text: "Hello",
            sentAt: UnixTime(secondsSince1970: 1_800_000_000)
        )
    }

    @Test func anAgentsThreadIsOneContactEndedOnceByItsCloseAlsoAfterARestart() throws {
        var history = ChatContactHistory()
        let first = history.note(.messageReceived(Self.agentMessage("m-1", thread: "Thread-A"))) { _ in nil }
        guard case .started(let contact)? = first else {
            Issue.record("no contact: \(String(describing: first))")
            return
        }
        #expect(contact.id == "thread-a")
        #expect(contact.threadID == "thread-a")
        #expect(contact.summary == "Conversation with Agent Smith")
        #expect(contact.kind == .chat)
        #expect(history.note(.messageReceived(Self.agentMessage("m-2", thread: "thread-a"))) { _ in "Billing" } == nil, "one contact per thread")

        var mine = Self.agentMessage("m-3", thread: "thread-b")
        mine.direction = .toAgent
        #expect(history.note(.messageReceived(mine)) { _ in nil } == nil, "the user's own message is no contact")
        #expect(
            history.note(.threadUpdated(ChatThread(id: "thread-b", state: .closed))) { _ in nil } == nil,
            "a thread that was no contact ends none"
        )

        // Kept and read back after a restart: the thread is not recorded again, and its close ends it once.
        let kept = Self.keep([ChatStorage.contactRecord(threadID: contact.id, ended: false)]).store
        var restarted = ChatStorage.read(kept).contacts
        #expect(restarted.note(.messageReceived(Self.agentMessage("m-4", thread: "thread-a"))) { _ in nil } == nil)
        let ended = restarted.note(.threadUpdated(ChatThread(id: "THREAD-A", state: .closed))) { _ in nil }
        #expect(ended == .ended(contactID: "thread-a"))
        guard case .contactEnded("thread-a", .completed)? = ended?.event else {
            Issue.record("not an end: \(String(describing: ended))")
            return
        }
        #expect(restarted.note(.threadUpdated(ChatThread(id: "thread-a", state: .closed))) { _ in nil } == nil)

        var named = ChatContactHistory()
        let titled = named.note(.messageReceived(Self.agentMessage("m-5", thread: "thread-c"))) { _ in "Billing question" }
        guard case .started(let withName)? = titled else {
            Issue.record("no contact")
            return
        }
        #expect(withName.summary == "Billing question")
    }

    // MARK: Errors

    @Test func chatErrorsReachTheHostWithTheCodeThatDecidesWhatItDoes() {
        let version = ChatError(.server, "too old", serverCode: ChatError.sdkVersionNotSupported)
        #expect(version.channelError().code == .configuration)
        let refused = ChatError(.operation, "refused", serverCode: "ConsumerAuthorizationFailed")
        #expect(refused.channelError(signIn: true).code == .authentication)
        #expect(refused.channelError(signIn: false).code == .server, "nothing to sign in with: retried")
        #expect(ChatError(.illegalChatState, "not now").channelError().code == .illegalState)
        #expect(ChatError(.invalidThread, "no such thread").channelError().code == .illegalState)
        #expect(ChatError(.unsupportedChannelConfig, "no").channelError().code == .unsupported)
        #expect(ChatError(.connection, "lost").channelError() == ChannelError(.transient, "cxone-chat: lost"))
        #expect(ChatError.isAuthorizationFailure("TokenRefreshingFailed"))
        #expect(!ChatError.isAuthorizationFailure("RecipientNotFound"))
        let reports: [ChatStateMachine.Report] = [.stateChanged(.prepared), .error(refused)]
        #expect(reports.failure(otherwise: "x", signIn: false).code == .server)
        #expect([ChatStateMachine.Report]().failure(otherwise: "connecting failed") == ChannelError(.transient, "cxone-chat: connecting failed"))
    }

    // MARK: Operations

    /// Begins `operation` on the driver's machine, as the channel's driver does.
    static func begin(_ operation: ChatOperation, _ driver: inout ChatDriver, current: inout String?) throws -> ChatOperation.Pending {
        let pending = try operation.begin(&driver.machine, &current)
        driver.apply(pending.actions)
        return pending
    }

    @Test func aMessageIsSentToTheWorkingThreadAndTheCallerHearsSentOnceConfirmed() throws {
        var driver = ChatOutboxTests.ready()
        var current: String? = nil
        let pending = try Self.begin(
            try .sendMessage("Hi", to: nil, at: driver.wallClock, timeout: .seconds(10), gateway: "wss://gateway"),
            &driver,
            current: &current
        )
        let id = try #require(driver.sentMessageIDs.first)
        #expect(pending.settle(driver.machine, []) == nil, "waits for MessageCreated")
        #expect(
            pending.timedOut?(driver.machine)
                == .success(
                    .fields([
                        "delivery": "queued", "message": id, "thread": "thread-1",
                        "reason": "no confirmation from wss://gateway within 10 s; it is sent again when the chat reconnects",
                    ])
                )
        )
        let mine = ChatMessage(
            id: id,
            threadID: "thread-1",
            direction: .toAgent,
            sender: Party(displayName: "Me", address: ""),
            text: "Hi",
            sentAt: driver.wallClock
        )
        driver.handle(.messageCreated(mine, caseID: "case-1"))
        #expect(pending.settle(driver.machine, []) == .success(.fields(["delivery": "sent", "message": id, "thread": "thread-1"])))

        #expect(throws: ChannelError(.illegalState, "cxone-chat: the message is empty")) {
            try ChatOperation.sendMessage("", to: nil, at: driver.wallClock, timeout: .seconds(10), gateway: "wss://gateway")
        }
    }

    @Test func aMessageWrittenAsleepIsQueuedWithTheReason() throws {
        var driver = ChatOutboxTests.ready()
        driver.apply(driver.machine.background(at: driver.wallClock))
        var current: String? = nil
        let pending = try Self.begin(
            try .sendMessage("Later", to: "thread-1", at: driver.wallClock, timeout: .seconds(10), gateway: "wss://gateway"),
            &driver,
            current: &current
        )
        let entry = try #require(driver.stored.outbox.first)
        #expect(
            pending.settle(driver.machine, [])
                == .success(
                    .fields([
                        "delivery": "queued", "message": entry.messageID, "thread": "thread-1",
                        "reason": "the desktop is asleep; it is sent when the chat connects again on resume",
                    ])
                )
        )
    }

    @Test func typingAndThreadsFollowTheWorkingThread() throws {
        var driver = ChatOutboxTests.ready()
        var current: String? = nil
        #expect(throws: ChannelError(.illegalState, "cxone-chat: typing state \"maybe\" is neither started nor stopped")) {
            try ChatOperation.typing(["state": "maybe"])
        }
        let typing = try Self.begin(try .typing([:]), &driver, current: &current)
        #expect(typing.settle(driver.machine, []) == .success(.fields(["typing": "started", "thread": "thread-1"])))

        let ending = try Self.begin(.endConversation(nil, timeout: .seconds(10)), &driver, current: &current)
        #expect(ending.settle(driver.machine, []) == nil, "waits for the server to close the thread")
        driver.handle(.caseStatusChanged(caseID: "case-1", status: .closed))
        #expect(ending.settle(driver.machine, []) == .success(.done))
        #expect(driver.machine.workingThread(current: current) == nil, "no open thread is left")
    }

    // MARK: The link

    @Test func aRefusalIsMatchedToTheMessageItAnswersOnlyOnTheLinkThatSentIt() throws {
        let context = ChatWireOutput.Context(
            brandID: 1386,
            channelID: "chat_1",
            customer: ChatStateMachine.CustomerIdentity(id: "customer-1"),
            visitorID: "visitor-1",
            sdkVersion: "test"
        )
        let eventID = CXoneID("e-1")
        let send = ChatStateMachine.Command.sendMessage(threadID: "thread-1", messageID: "m-1", text: "Hi", customFields: [:])
        var link = ChatWireLink()
        #expect(try !link.frame(for: send, context: context, eventID: eventID).isEmpty)
        let refusal = CXoneInbound.operationError(CXoneOperationError(errorCode: "InvalidMessage", errorMessage: "too long", transactionId: eventID))

        // A new socket's link knows no request of the old one: the error is the machine's, no message's.
        var fresh = ChatWireLink()
        guard case .input(.operationError("InvalidMessage", _)) = fresh.receive(refusal, now: UnixTime(secondsSince1970: 0)).meaning else {
            Issue.record("not an operation error")
            return
        }
        let (meaning, ignored) = link.receive(refusal, now: UnixTime(secondsSince1970: 0))
        #expect(ignored == nil)
        guard case .refusal("m-1", let error, transient: false) = meaning else {
            Issue.record("not a refusal of m-1: \(meaning)")
            return
        }
        #expect(error.serverCode == "InvalidMessage")
        guard case .input(.operationError) = link.receive(refusal, now: UnixTime(secondsSince1970: 0)).meaning else {
            Issue.record("a request is answered once")
            return
        }
    }
}
