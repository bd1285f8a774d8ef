import AttendantPluginAPI
import AttendantPluginKit
import CXoneCore
import Testing

/// Recovery on a multi-thread channel: after a lost connection, a restart or a sleep, every thread comes
/// back whole, and only what the person has not seen is reported.
extension ChatReliabilityTests {
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
}
