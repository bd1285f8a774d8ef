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

    /// Lets the reconnect timer fire and answers socket and ReconnectCustomer.
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

    @Test func multiThreadRecoversTheOpenedThreadsAfterAReconnect() {
        var driver = ChatDriver()
        driver.prepare(.init(multiThread: true))
        driver.connect()
        driver.handle(.threadListFetched(["t1", "t2"]))
        driver.handle(.threadMetadataLoaded(threadID: "t1", name: nil, lastMessage: nil))
        driver.handle(.threadMetadataLoaded(threadID: "t2", name: nil, lastMessage: nil))
        driver.perform { try $0.openThread(threadID: "t2") }
        driver.handle(.threadRecovered(ChatThread(id: "t2", state: .ready), caseID: "case-2", agent: nil))
        driver.handle(.socketClosed(reason: "reset"))
        Self.reconnect(&driver)
        // The list first, as the SDK fetches it on every connection; then what was loaded or open is
        // recovered.
        #expect(driver.lastCommand == .fetchThreadList)
        driver.handle(.threadListFetched(["t1", "t2"]))
        #expect(Array(driver.commands.suffix(2)) == [.recoverThread(threadID: "t1"), .recoverThread(threadID: "t2")])
        #expect(driver.state == .connected)
        driver.handle(.threadRecovered(ChatThread(id: "t2", state: .ready), caseID: "case-2", agent: nil))
        #expect(driver.state == .connected, "t1 is still awaited")
        driver.handle(.threadRecovered(ChatThread(id: "t1", state: .ready), caseID: "case-1", agent: nil))
        #expect(driver.state == .ready)
    }

    /// A thread the agent opened while the connection was lost: only the thread list after the reconnect
    /// names it. It is recovered whole, and each agent message in it is news (found by
    /// Benchmarks/fault_campaign.py: the thread was never met and its messages never alerted).
    @Test func multiThreadMeetsAThreadOpenedWhileTheConnectionWasLostAndReportsItsMessages() {
        var driver = Self.multiThreadReady()
        driver.handle(.socketClosed(reason: "reset"))
        Self.reconnect(&driver)
        #expect(driver.lastCommand == .fetchThreadList)
        driver.handle(.threadListFetched(["t1", "t3"]))
        #expect(Array(driver.commands.suffix(2)) == [.recoverThread(threadID: "t3"), .recoverThread(threadID: "t1")], "the new one first")
        driver.handle(.threadRecovered(ChatThread(id: "t1", state: .ready), caseID: "case-1", agent: nil))
        let opening = driver.message("a1", thread: "t3", "Hello, about your order")
        let next = driver.message("a2", thread: "t3", "Are you there?", at: 1)
        var recovered = ChatThread(id: "t3", state: .ready)
        recovered.lastMessages = [opening, next]
        driver.handle(.threadRecovered(recovered, caseID: "case-3", agent: nil))
        #expect(driver.state == .ready)
        #expect(driver.received == [opening, next])
        #expect(driver.machine.threads.map(\.id) == ["t1", "t3"])
    }

    /// A thread met by its metadata (not opened) is recovered whole after a lost connection too: the agent
    /// may have written in it meanwhile, and nothing else would bring those messages. The fault campaign
    /// lost such conversations after suspends.
    @Test func multiThreadRecoversAThreadMetByItsMetadataAfterTheConnectionWasLost() {
        let old = ChatDriver().message("a0", thread: "t1", "Your order shipped")
        var driver = Self.multiThreadReady(last: old)
        #expect(driver.received.isEmpty, "met for the first time, its last message is history")
        driver.handle(.socketClosed(reason: "reset"))
        Self.reconnect(&driver)
        driver.handle(.threadListFetched(["t1"]))
        #expect(driver.lastCommand == .recoverThread(threadID: "t1"))
        let meanwhile = driver.message("a1", thread: "t1", "Did it arrive?", at: 5)
        var recovered = ChatThread(id: "t1", state: .ready)
        recovered.lastMessages = [old, meanwhile]
        driver.handle(.threadRecovered(recovered, caseID: "case-1", agent: nil))
        #expect(driver.state == .ready)
        #expect(driver.received == [meanwhile], "only what came while the connection was lost is news")
    }

    /// A thread new to the list after a reconnect whose recovery the next drop cut short (the full-size
    /// fault campaign: with 118 threads to recover after each resume, the new one, recovered last, was not
    /// answered before the machine slept again) stays `received`: it is recovered after the next
    /// reconnect too, and before the threads already met, since it is the one with news. Before, only
    /// `ready` and `loaded` threads were, and each such thread's messages were lost for good.
    @Test func multiThreadRecoversANewThreadWhoseRecoveryADropCutShort() {
        var driver = Self.multiThreadReady()
        driver.handle(.socketClosed(reason: "reset"))
        Self.reconnect(&driver)
        var before = driver.sent.count
        driver.handle(.threadListFetched(["t1", "t2"]))
        #expect(
            Array(driver.commands.dropFirst(before)) == [.recoverThread(threadID: "t2"), .recoverThread(threadID: "t1")],
            "the new thread first"
        )
        driver.handle(.threadRecovered(ChatThread(id: "t1", state: .ready), caseID: "case-1", agent: nil))
        driver.handle(.socketClosed(reason: "reset"))  // before t2's answer
        Self.reconnect(&driver)
        before = driver.sent.count
        driver.handle(.threadListFetched(["t1", "t2"]))
        #expect(Array(driver.commands.dropFirst(before)) == [.recoverThread(threadID: "t2"), .recoverThread(threadID: "t1")])
        let news = driver.message("a1", thread: "t2", "A new question", at: 5)
        var recovered = ChatThread(id: "t2", state: .ready)
        recovered.lastMessages = [news]
        driver.handle(.threadRecovered(recovered, caseID: "case-2", agent: nil))
        driver.handle(.threadRecovered(ChatThread(id: "t1", state: .ready), caseID: "case-1", agent: nil))
        #expect(driver.state == .ready)
        #expect(driver.received == [news], "the agent's message in the new thread is news")
    }

    /// A thread the agent opened while the daemon was not running (killed, stopped, the machine off) is met
    /// on the first connection of the next run. It is recovered whole, and each agent message in it is news,
    /// as for a thread new after a reconnect: the full-size fault campaign lost such threads in its
    /// SIGKILLs, met by their last message only and taken for history. Messages from before the earlier
    /// run's list stay history, threads met before are loaded by their metadata as ever, and on a
    /// channel's first run every thread's past stays history.
    @Test func multiThreadRecoversWholeAThreadOpenedWhileTheDaemonWasAway() {
        let first = Self.multiThreadReady(last: ChatDriver().message("a0", thread: "t1", "Old news"), listed: true)
        #expect(first.received.isEmpty, "the first run: history")

        // The daemon is killed; the agent opens t2 meanwhile; the next run starts from the store.
        var second = ChatDriver(stored: first.stored, seed: 99)
        second.prepare(.init(multiThread: true))
        second.connect()
        let before = second.sent.count
        second.handle(.threadListFetched(["t1", "t2"], at: second.wallClock + .seconds(60)))
        #expect(Array(second.commands.dropFirst(before)) == [.recoverThread(threadID: "t2"), .loadThreadMetadata(threadID: "t1")])
        second.handle(.threadMetadataLoaded(threadID: "t1", name: nil, lastMessage: second.message("a0", thread: "t1", "Old news")))
        #expect(second.state != .ready, "the recovery of t2 is waited for")
        // Written while the daemon was away, but for one from long before the first run's list (a thread
        // that reaches the list late, say after the brand went multi-thread): history.
        let old = second.message("b0", thread: "t2", "Your order from 2022", at: -86_400 * 365)
        let opening = second.message("b1", thread: "t2", "About your order", at: 1)
        let next = second.message("b2", thread: "t2", "Are you there?", at: 2)
        var recovered = ChatThread(id: "t2", state: .ready)
        recovered.lastMessages = [old, opening, next]
        second.handle(.threadRecovered(recovered, caseID: "case-2", agent: nil))
        #expect(second.state == .ready)
        #expect(second.received == [opening, next], "what the new thread got since the last list is news; t1's last is not")

        // A third run meets t2 as known: nothing is news again.
        var third = ChatDriver(stored: second.stored, seed: 5)
        third.prepare(.init(multiThread: true))
        third.connect()
        let start = third.sent.count
        third.handle(.threadListFetched(["t1", "t2"], at: third.wallClock + .seconds(120)))
        #expect(Array(third.commands.dropFirst(start)) == [.loadThreadMetadata(threadID: "t1"), .loadThreadMetadata(threadID: "t2")])
        third.handle(.threadMetadataLoaded(threadID: "t1", name: nil, lastMessage: third.message("a0", thread: "t1", "Old news")))
        third.handle(.threadMetadataLoaded(threadID: "t2", name: nil, lastMessage: next))
        #expect(third.state == .ready)
        #expect(third.received.isEmpty)
    }

    /// Waking from sleep reconnects as after a lost connection: every thread is recovered whole, so what the
    /// agent wrote while the machine slept is met, in a thread opened meanwhile too (found by the full-size
    /// fault campaign: after each resume the threads were loaded by their metadata, and a thread opened just
    /// before the sleep, or during it, was met by its last message only and taken for history; and in a known
    /// thread only the last of several messages would have been news). What was met before is not news again.
    @Test func multiThreadRecoversEveryThreadWholeAfterASleep() {
        let old = ChatDriver().message("a0", thread: "t1", "Your order shipped")
        var driver = Self.multiThreadReady(last: old, listed: true)
        driver.apply(driver.machine.background(at: driver.wallClock))
        #expect(driver.machine.isAsleep)
        driver.apply(driver.machine.foreground())
        driver.handle(.socketOpened)
        driver.answerAuthorization()
        #expect(driver.lastCommand == .fetchThreadList)
        let before = driver.sent.count
        driver.handle(.threadListFetched(["t1", "t2"], at: driver.wallClock))
        #expect(Array(driver.commands.dropFirst(before)) == [.recoverThread(threadID: "t2"), .recoverThread(threadID: "t1")])
        let first = driver.message("a1", thread: "t1", "Did it arrive?", at: 5)
        let second = driver.message("a2", thread: "t1", "Hello?", at: 6)
        var t1 = ChatThread(id: "t1", state: .ready)
        t1.lastMessages = [old, first, second]
        let opening = driver.message("b1", thread: "t2", "A new question", at: 7)
        var t2 = ChatThread(id: "t2", state: .ready)
        t2.lastMessages = [opening]
        driver.handle(.threadRecovered(t2, caseID: "case-2", agent: nil))
        driver.handle(.threadRecovered(t1, caseID: "case-1", agent: nil))
        #expect(driver.state == .ready)
        #expect(driver.received == [opening, first, second])
    }

    /// After a restart a thread is met by its last message; when a lost connection then has it recovered
    /// whole, the messages before that one are its history, not news (they are older than what was met).
    @Test func aRecoveryAfterARestartShowsNoHistoryAsNews() {
        var driver = ChatDriver()
        driver.prepare(.init(multiThread: true))
        driver.connect()
        driver.handle(.threadListFetched(["t1"]))
        let older = driver.message("a0", thread: "t1", "Your order shipped")
        let last = driver.message("a1", thread: "t1", "Did it arrive?", at: 5)
        driver.handle(.threadMetadataLoaded(threadID: "t1", name: nil, lastMessage: last))
        #expect(driver.state == .ready)
        driver.handle(.socketClosed(reason: "reset"))
        Self.reconnect(&driver)
        driver.handle(.threadListFetched(["t1"]))
        let meanwhile = driver.message("a2", thread: "t1", "Hello?", at: 9)
        var recovered = ChatThread(id: "t1", state: .ready)
        recovered.lastMessages = [older, last, meanwhile]
        driver.handle(.threadRecovered(recovered, caseID: "case-1", agent: nil))
        #expect(driver.received == [meanwhile])
    }

    /// Loading many threads waits for each answer within the response timeout, not for all of them: a
    /// gateway answering one recovery after another on a busy machine is slow, not silent.
    @Test func theResponseTimeoutRunsFromTheLastAnswerWhileThreadsLoad() throws {
        var driver = ChatDriver()
        driver.prepare(.init(multiThread: true))
        driver.connect()
        let ids = (1...5).map { "t\($0)" }
        driver.handle(.threadListFetched(ids))
        for id in ids {
            driver.advance(by: .seconds(4))
            driver.handle(.pong)  // the heartbeat's, every 10 s
            driver.handle(.threadMetadataLoaded(threadID: id, name: nil, lastMessage: nil))
        }
        #expect(driver.state == .ready, "20 s for five answers 4 s apart, each within the 10 s timeout")
        driver.handle(.socketClosed(reason: "reset"))
        Self.reconnect(&driver)
        driver.handle(.threadListFetched(ids))
        for id in ids {
            driver.advance(by: .seconds(4))
            driver.handle(.pong)
            driver.handle(.threadRecovered(ChatThread(id: id, state: .ready), caseID: nil, agent: nil))
        }
        #expect(driver.state == .ready)
        #expect(driver.socketOpens == 2, "no connection given up on")
        #expect(driver.errors.isEmpty, "no answer was late: \(driver.errors)")
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
