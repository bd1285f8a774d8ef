import AttendantPluginAPI
import AttendantPluginKit
import CXoneCore
import Testing

/// Heartbeat, reconnect with backoff, recovery after reconnect, the outbox, once-only reporting.
@Suite struct ChatReliabilityTests {
    static let thread = ChatThread(id: "thread-1", state: .ready)

    /// Ready on a single-thread channel with thread-1 (case-1); the socket opened at virtual time 0.
    static func ready(stored: ChatStateMachine.StoredValues = .init()) -> ChatDriver {
        var driver = ChatDriver(stored: stored)
        driver.readySingleThread(thread: Self.thread)
        return driver
    }

    /// Kills the connection with a missed pong and returns the backoff the machine chose.
    static func losePong(_ driver: inout ChatDriver) -> Duration? {
        let heartbeat = driver.deadline(.heartbeat)!
        driver.advance(by: heartbeat - driver.now)
        driver.advance(by: .seconds(5))
        return driver.deadline(.reconnect).map { $0 - driver.now }
    }

    /// A multi-thread chat, ready with one thread, t1, met by its metadata (`last`: its last message);
    /// `listed`: the thread list came with its time, as the session gives it.
    static func multiThreadReady(last: ChatMessage? = nil, listed: Bool = false) -> ChatDriver {
        var driver = ChatDriver()
        driver.prepare(.init(multiThread: true))
        driver.connect()
        driver.handle(.threadListFetched(["t1"], at: listed ? driver.wallClock : nil))
        driver.handle(.threadMetadataLoaded(threadID: "t1", name: nil, lastMessage: last))
        #expect(driver.state == .ready)
        return driver
    }

    /// Lets the reconnect timer fire and answers socket and ReconnectCustomer.
    static func reconnect(_ driver: inout ChatDriver) {
        driver.advance(by: driver.deadline(.reconnect)! - driver.now)
        driver.handle(.socketOpened)
        driver.answerAuthorization()
    }

    @Test func aHeartbeatGoesEveryTenSecondsWhileTheServerAnswers() {
        var driver = Self.ready()
        #expect(driver.deadline(.heartbeat) == .seconds(10))
        for round in 1...3 {
            driver.advance(by: .seconds(10))
            #expect(driver.lastCommand == .heartbeat)
            #expect(driver.sent.last?.at == .seconds(Int64(10 * round) + Int64(round - 1)))
            #expect(driver.deadline(.pongTimeout) == driver.now + .seconds(5))
            driver.advance(by: .seconds(1))
            driver.handle(.pong)
            #expect(!driver.machine.isArmed(.pongTimeout))
        }
        #expect(driver.commands.filter { $0 == .heartbeat }.count == 3)
        #expect(driver.state == .ready)
    }

    @Test func aMissedPongReconnectsWithBackoffAndRecoversTheThread() throws {
        var driver = Self.ready()
        let delay = try #require(Self.losePong(&driver))
        #expect(driver.actions.contains(.closeSocket))
        #expect(driver.state == .connecting)
        #expect(delay >= .milliseconds(1300) && delay < .milliseconds(2300), "1.3^1 + rand(0..1) s")
        #expect(!driver.machine.isArmed(.heartbeat), "no heartbeat while disconnected")
        let sentBefore = driver.sent.count
        Self.reconnect(&driver)
        #expect(driver.socketOpens == 2)
        #expect(driver.commands[sentBefore] == .reconnectCustomer(token: "token-1"))
        #expect(driver.lastCommand == .recoverThread(threadID: "thread-1"))
        #expect(driver.state == .connected)
        driver.handle(.threadRecovered(Self.thread, caseID: "case-1", agent: nil))
        #expect(driver.state == .ready)
        #expect(driver.machine.reconnectAttempt == 0)
        #expect(driver.deadline(.heartbeat) == driver.now + .seconds(10))
    }

    @Test func theBackoffGrowsAsMinOf1Point3PowNPlusJitterAnd30AndGivesUpAfter20Tries() throws {
        var driver = Self.ready()
        var delays: [Duration] = []
        delays.append(try #require(Self.losePong(&driver)))
        while let deadline = driver.deadline(.reconnect) {
            driver.advance(by: deadline - driver.now)
            driver.handle(.socketClosed(reason: "connection refused"))
            if let next = driver.deadline(.reconnect) { delays.append(next - driver.now) }
        }
        #expect(delays.count == 20)
        var growth = 1.0
        for (index, delay) in delays.enumerated() {
            growth *= 1.3
            let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
            #expect(seconds >= min(growth, 30) && seconds <= min(growth + 1, 30), "attempt \(index + 1): \(seconds) s")
        }
        #expect(driver.socketOpens == 21)
        #expect(driver.state == .prepared)
        #expect(driver.errors.last?.code == .connection)
        #expect(driver.timers.isEmpty)
    }

    @Test func aSocketClosedByTheServerIsReconnectedToo() {
        var driver = Self.ready()
        driver.handle(.socketClosed(reason: "1006 abnormal closure"))
        #expect(driver.state == .connecting)
        #expect(driver.machine.isArmed(.reconnect))
        #expect(!driver.actions.contains(.closeSocket))
    }

    @Test func messagesWrittenWhileDisconnectedAreDeliveredOnceAfterReconnecting() throws {
        var driver = Self.ready()
        _ = Self.losePong(&driver)
        driver.perform { try $0.sendMessage(threadID: "thread-1", text: "are you there?", at: $1) }
        let entry = try #require(driver.stored.outbox.first)
        #expect(driver.sentMessageIDs.isEmpty, "nothing goes out while disconnected")
        Self.reconnect(&driver)
        #expect(driver.sentMessageIDs.isEmpty, "nothing goes out before the thread is recovered")
        driver.handle(.threadRecovered(Self.thread, caseID: "case-1", agent: nil))
        #expect(driver.sentMessageIDs == [entry.messageID])
        driver.handle(
            .messageCreated(
                ChatMessage(
                    id: entry.messageID,
                    threadID: "thread-1",
                    direction: .toAgent,
                    sender: Party(displayName: "", address: ""),
                    text: entry.text,
                    sentAt: entry.writtenAt
                ),
                caseID: "case-1"
            )
        )
        #expect(driver.stored.outbox.isEmpty)
        // Another reconnect sends nothing again.
        _ = Self.losePong(&driver)
        Self.reconnect(&driver)
        driver.handle(.threadRecovered(Self.thread, caseID: "case-1", agent: nil))
        #expect(driver.sentMessageIDs == [entry.messageID])
    }

    @Test func anUnconfirmedMessageIsSentAgainWithTheSameIDAfterAReconnect() throws {
        var driver = Self.ready()
        driver.perform { try $0.sendMessage(threadID: "thread-1", text: "one", at: $1) }
        let id = try #require(driver.sentMessageIDs.first)
        driver.handle(.socketClosed(reason: "reset"))
        Self.reconnect(&driver)
        driver.handle(.threadRecovered(Self.thread, caseID: "case-1", agent: nil))
        #expect(driver.sentMessageIDs == [id, id], "sent again, with the id the server deduplicates by")
        #expect(driver.stored.outbox.count == 1)
    }

    @Test func aMessageTheRecoveredThreadHoldsIsNotSentAgain() throws {
        var driver = Self.ready()
        driver.perform { try $0.sendMessage(threadID: "thread-1", text: "one", at: $1) }
        let id = try #require(driver.sentMessageIDs.first)
        driver.handle(.socketClosed(reason: "reset"))
        Self.reconnect(&driver)
        var recovered = Self.thread
        recovered.lastMessages = [
            ChatMessage(
                id: id,
                threadID: "thread-1",
                direction: .toAgent,
                sender: Party(displayName: "", address: ""),
                text: "one",
                sentAt: driver.epoch
            )
        ]
        driver.handle(.threadRecovered(recovered, caseID: "case-1", agent: nil))
        #expect(driver.sentMessageIDs == [id])
        #expect(driver.stored.outbox.isEmpty)
        #expect(driver.received.isEmpty, "our own message is not news")
    }

    @Test func afterARestartTheStoredOutboxIsDeliveredOnce() throws {
        var first = Self.ready()
        _ = Self.losePong(&first)
        first.perform { try $0.sendMessage(threadID: "thread-1", text: "one", at: $1) }
        first.perform { try $0.sendMessage(threadID: "thread-1", text: "two", at: $1) }
        // The daemon stops here; a new machine starts from what the store holds.
        let stored = first.stored
        #expect(stored.outbox.map(\.text) == ["one", "two"])
        #expect(stored.threadIDs == ["thread-1"])
        var second = ChatDriver(stored: stored, seed: 99)
        second.prepare()
        second.connect()
        #expect(second.commands.first == .reconnectCustomer(token: "token-1"))
        #expect(second.lastCommand == .recoverThread(threadID: "thread-1"))
        second.handle(.threadRecovered(Self.thread, caseID: "case-1", agent: nil))
        #expect(second.sentMessageIDs == stored.outbox.map(\.messageID))
        for entry in stored.outbox {
            second.handle(
                .messageCreated(
                    ChatMessage(
                        id: entry.messageID,
                        threadID: "thread-1",
                        direction: .toAgent,
                        sender: Party(displayName: "", address: ""),
                        text: entry.text,
                        sentAt: entry.writtenAt
                    ),
                    caseID: "case-1"
                )
            )
        }
        #expect(second.stored.outbox.isEmpty)
        second.handle(.socketClosed(reason: "reset"))
        Self.reconnect(&second)
        second.handle(.threadRecovered(Self.thread, caseID: "case-1", agent: nil))
        #expect(second.sentMessageIDs.count == 2)
    }

    @Test func agentMessagesThatCameWhileTheDaemonWasStoppedAreReportedOnceAfterARestart() {
        var first = Self.ready()
        let seen = first.message("a1", "before the stop", at: 10)
        first.handle(.messageCreated(seen, caseID: "case-1"))
        #expect(first.received == [seen])
        #expect(first.stored.shownMessages["thread-1"]?.entries.map(\.id) == ["a1"])

        // The daemon stops; the agent writes twice and the customer once (from elsewhere) meanwhile.
        let missed = [first.message("a2", "while you were away", at: 20), first.message("a3", "still there?", at: 30)]
        let mine = first.message("c1", from: false, "from the phone", at: 25)
        var recovered = Self.thread
        recovered.lastMessages = [seen, missed[0], mine, missed[1]]
        var second = ChatDriver(stored: first.stored, seed: 5)
        second.readySingleThread(thread: recovered)
        #expect(second.received == missed)
        #expect(second.stored.shownMessages["thread-1"]?.entries.map(\.id) == ["a1", "a2", "a3"])

        // Another restart: nothing is new.
        var third = ChatDriver(stored: second.stored, seed: 6)
        third.readySingleThread(thread: recovered)
        #expect(third.received.isEmpty)
    }

    @Test func aThreadMetWithNoMarkShowsItsHistoryAsSeen() {
        // First start on this machine: the thread's past messages are history, not news.
        var recovered = Self.thread
        var driver = ChatDriver()
        recovered.lastMessages = [driver.message("a1", at: 1), driver.message("a2", at: 2)]
        driver.readySingleThread(thread: recovered)
        #expect(driver.received.isEmpty)
        #expect(driver.stored.shownMessages["thread-1"]?.entries.map(\.id) == ["a1", "a2"])
    }

    @Test func aListedThreadOpenedForTheFirstTimeShowsItsHistoryAsSeen() {
        // Multi-thread: a thread listed for the first time is known by its last message only
        // (LoadThreadMetadata); `chat open` loads its history, which is not news either.
        var first = ChatDriver()
        first.prepare(.init(multiThread: true))
        first.connect()
        first.handle(.threadListFetched(["t1"]))
        let history = [
            first.message("a1", thread: "t1", "from 2022", at: 1_650_000_000),
            first.message("c1", thread: "t1", from: false, "thanks", at: 1_650_000_100),
            first.message("a2", thread: "t1", "you are welcome", at: 1_650_000_200),
        ]
        first.handle(.threadMetadataLoaded(threadID: "t1", name: nil, lastMessage: history[2]))
        #expect(first.state == .ready)
        first.perform { try $0.openThread(threadID: "t1") }
        first.handle(.threadRecovered(ChatThread(id: "t1", state: .ready, lastMessages: history), caseID: "case-1", agent: nil))
        #expect(first.received.isEmpty)
        // What the agent writes afterwards is news, once.
        let later = first.message("a3", thread: "t1", "anything else?", at: 1_700_000_000)
        first.handle(.messageCreated(later, caseID: "case-1"))
        first.handle(.messageCreated(later, caseID: "case-1"))
        #expect(first.received == [later])

        // Listed in one run and not opened: what the agent wrote while the daemon was stopped is news in
        // the next (as the last message listed, and not again when opened); the history before it is not.
        var listed = ChatDriver()
        listed.prepare(.init(multiThread: true))
        listed.connect()
        listed.handle(.threadListFetched(["t1"]))
        listed.handle(.threadMetadataLoaded(threadID: "t1", name: nil, lastMessage: history[2]))
        var second = ChatDriver(stored: listed.stored, seed: 5)
        second.prepare(.init(multiThread: true))
        second.connect()
        second.handle(.threadListFetched(["t1"]))
        second.handle(.threadMetadataLoaded(threadID: "t1", name: nil, lastMessage: later))
        #expect(second.received == [later])
        second.perform { try $0.openThread(threadID: "t1") }
        second.handle(.threadRecovered(ChatThread(id: "t1", state: .ready, lastMessages: history + [later]), caseID: "case-1", agent: nil))
        #expect(second.received == [later])
    }

    @Test func agentMessagesInTheSameSecondAsTheLastShownAreReportedOnceAfterARestart() {
        // CXone's createdAt has whole seconds: the agent writes again within the second of the last
        // message shown, while the daemon is stopped.
        var first = Self.ready()
        let seen = first.message("a1", "before the stop", at: 10)
        first.handle(.messageCreated(seen, caseID: "case-1"))
        let missed = [first.message("a2", "same second", at: 10), first.message("a3", "same second again", at: 10)]
        var recovered = Self.thread
        recovered.lastMessages = [seen] + missed
        var second = ChatDriver(stored: first.stored, seed: 5)
        second.readySingleThread(thread: recovered)
        #expect(second.received == missed)
        var third = ChatDriver(stored: second.stored, seed: 6)
        third.readySingleThread(thread: recovered)
        #expect(third.received.isEmpty)
    }

    @Test func agentMessagesInTheSameSecondAsTheLastShownAreReportedOnceAfterSleep() {
        var driver = Self.ready()
        let seen = driver.message("a1", "before sleep", at: 10)
        driver.handle(.messageCreated(seen, caseID: "case-1"))
        for cycle in 1...3 {
            driver.perform { $0.background(at: $1) }
            driver.perform { $0.foreground() }
            driver.handle(.socketOpened)
            driver.answerAuthorization()
            let missed = driver.message("a\(cycle + 1)", "written during sleep \(cycle)", at: 10)
            var recovered = Self.thread
            recovered.lastMessages = [seen, missed]
            driver.handle(.threadRecovered(recovered, caseID: "case-1", agent: nil))
            #expect(driver.state == .ready)
            #expect(driver.received.last == missed, "cycle \(cycle)")
        }
        #expect(driver.received.map(\.id) == ["a1", "a2", "a3", "a4"])
    }

    @Test func theShownRecordIsBoundedAndWhatItDropsStaysShown() {
        var driver = ChatDriver { $0.shownMessagesLimit = 3 }
        driver.readySingleThread(thread: nil)
        driver.perform { try $0.createThread() }
        let threadID = driver.machine.threads[0].id
        let messages = (1...5).map { driver.message("a\($0)", thread: threadID, at: Double($0)) }
        for message in messages { driver.handle(.messageCreated(message, caseID: "case-1")) }
        let shown = driver.stored.shownMessages[threadID.lowercased()]
        #expect(shown?.entries.map(\.id) == ["a3", "a4", "a5"])
        #expect(shown?.floor == messages[1].sentAt)
        // After a restart the whole history comes back: nothing of it is news, the sixth message is.
        var recovered = ChatThread(id: threadID, state: .ready)
        let sixth = driver.message("a6", thread: threadID, at: 5)
        recovered.lastMessages = messages + [sixth]
        var second = ChatDriver(stored: driver.stored, seed: 3)
        second.readySingleThread(thread: recovered)
        #expect(second.received == [sixth])
    }

    @Test func theShownRecordIsWrittenOnlyWhenItChanges() {
        var driver = Self.ready()
        func shownWrites(_ driver: ChatDriver) -> Int {
            driver.actions.filter { if case .store(.shownMessages) = $0 { true } else { false } }.count
        }
        let before = shownWrites(driver)
        let first = driver.message("a1", "first")
        driver.handle(.messageCreated(first, caseID: "case-1"))
        #expect(shownWrites(driver) == before + 1)
        // The same message again (a gateway's resend) is neither news nor a write.
        driver.handle(.messageCreated(first, caseID: "case-1"))
        #expect(shownWrites(driver) == before + 1)
        #expect(driver.received == [first])
        // The customer's own message does not touch the agent's record.
        driver.handle(.messageCreated(driver.message("c1", from: false, "mine"), caseID: "case-1"))
        #expect(shownWrites(driver) == before + 1)
        let second = driver.message("a2", "second")
        driver.handle(.messageCreated(second, caseID: "case-1"))
        #expect(shownWrites(driver) == before + 2)
        #expect(driver.stored.shownMessages.values.flatMap { $0.entries.map(\.id) }.suffix(2) == ["a1", "a2"])
    }

    @Test func agentMessagesRecoveredAfterAReconnectAreReportedOnce() {
        var driver = Self.ready()
        let seen = driver.message("a1", "first")
        driver.handle(.messageCreated(seen, caseID: "case-1"))
        driver.handle(.socketClosed(reason: "reset"))
        Self.reconnect(&driver)
        let missed = driver.message("a2", "while you were away")
        let mine = driver.message("c1", from: false, "mine")
        var recovered = Self.thread
        recovered.lastMessages = [seen, mine, missed]
        driver.handle(.threadRecovered(recovered, caseID: "case-1", agent: nil))
        #expect(driver.received == [seen, missed])
        // The same thread recovered again (another reconnect) reports nothing new.
        driver.handle(.socketClosed(reason: "reset"))
        Self.reconnect(&driver)
        driver.handle(.threadRecovered(recovered, caseID: "case-1", agent: nil))
        driver.handle(.messageCreated(missed, caseID: "case-1"))
        #expect(driver.received == [seen, missed])
    }

    @Test func aStaleTimerIsIgnored() throws {
        var driver = Self.ready()
        let stale = try #require(driver.timers.keys.first { $0.kind == .heartbeat })
        driver.advance(by: .seconds(10))
        driver.handle(.pong)
        let sent = driver.sent.count
        driver.apply(driver.machine.timerFired(stale))
        #expect(driver.sent.count == sent)
    }
}
