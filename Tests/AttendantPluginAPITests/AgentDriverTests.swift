import AttendantPluginAPI
import AttendantPluginKit
import AttendantPluginTestKit
import Synchronization
import TestSupport
import Testing

/// The kit's ``AgentDriver`` with a toy agent of the tests' own, on the test kit's in-memory host and
/// manual clock: what reaches the link, when `listen()`, keep-alives and stops return, and what arrives on
/// a link that was let go of.
@Suite(.timeLimit(.minutes(1))) struct AgentDriverTests {
    /// Says "hello" to listen, "ping" to keep alive and "bye" to stop; "ok" answers whichever waits, and no
    /// "ok" within 5 s fails it and closes the link.
    struct Agent: ChannelAgent {
        enum Timer: Hashable, Sendable { case answer }
        typealias Action = AgentAction<Timer, String>

        var awaitingListen = false
        var keepAlives: [UInt64] = []
        var stopping = false
        var detached = 0
        var resets: [Bool] = []

        mutating func start() -> [Action] {
            self.awaitingListen = true
            return [.work("hello"), .setTimer(.answer, after: .seconds(5))]
        }

        mutating func keepAlive(_ id: UInt64) -> [Action] {
            self.keepAlives.append(id)
            return [.work("ping"), .setTimer(.answer, after: .seconds(5))]
        }

        mutating func stop() -> [Action] {
            self.stopping = true
            return [.work("bye"), .setTimer(.answer, after: .seconds(5))]
        }

        mutating func receive(_ text: String) -> [Action] {
            guard text == "ok" else { return [.log(.info, "ignored \(text)")] }
            return [.cancelTimer(.answer)] + self.settle(nil)
        }

        mutating func timerFired(_ timer: Timer, now: UnixTime) -> [Action] {
            self.settle(ChannelError(.transient, "toy: no answer")) + [.closeLink, .emit(.stoppedListening(ChannelError(.transient, "toy: gone")))]
        }

        mutating func settle(_ error: ChannelError?) -> [Action] {
            var actions: [Action] = []
            if self.awaitingListen { actions.append(.listened(error)) }
            if !self.keepAlives.isEmpty { actions.append(.keptAlive(self.keepAlives, error)) }
            if self.stopping { actions.append(.stopped) }
            self.awaitingListen = false
            self.keepAlives = []
            self.stopping = false
            return actions
        }

        mutating func openingFailed(_ reason: String) -> ChannelError { ChannelError(.transient, "toy: cannot open: \(reason)") }
        mutating func detachLink() { self.detached += 1 }
        mutating func reset(stopped: Bool) { self.resets.append(stopped) }
        mutating func forgetKeepAlive(_ id: UInt64) { self.keepAlives.removeAll { $0 == id } }
    }

    final class Link: AgentLink {
        let sent = Recorder<String>()
        let closes = Mutex(0)
        func closeNow() { self.closes.withLock { $0 += 1 } }
        func close() async { self.closeNow() }
        var closed: Int { self.closes.withLock { $0 } }
    }

    struct OpenFailed: Error, CustomStringConvertible {
        var description: String { "refused" }
    }

    final class Rig: Sendable {
        let host = InMemoryChannelHost()
        let driver: AgentDriver<Agent, Link>
        /// The links opened, with their generations.
        let opened = Recorder<(Link, Generation)>()

        init() {
            self.driver = AgentDriver(agent: Agent(), host: self.host, prefix: "toy") { text, link in link.sent.add(text) }
        }

        func listen(failing: Bool = false) async throws(ChannelError) {
            try await self.driver.listen { () async throws(ChannelError) in
                "prepared"
            } open: { generation in
                if failing { throw OpenFailed() }
                let link = Link()
                self.opened.add((link, generation))
                return link
            } start: { agent, _, prepared in
                #expect(prepared == "prepared")
                return agent.start()
            }
        }

        /// `text` arrives on the link of `generation`.
        func arrive(_ text: String, on generation: Generation) {
            self.driver.arrived(on: generation) { agent, _ in agent.receive(text) }
        }

        /// Starts a `listen()` and waits for its "hello"; the task, the link and its generation.
        func startListening() async throws -> (Task<Void, any Error>, Link, Generation) {
            let listening = Task { try await self.listen() }
            let (link, generation) = try await self.opened.next()
            #expect(try await link.sent.next() == "hello")
            return (listening, link, generation)
        }
    }

    @Test func listenReturnsOnceTheAgentSaysSoAndItsWorkGoesOutOnTheLink() async throws {
        let rig = Rig()
        let (listening, link, generation) = try await rig.startListening()
        #expect(rig.driver.withState { $0.listensUnderWay } == 1)
        rig.arrive("ok", on: generation)
        try await listening.value
        #expect(rig.driver.withState { $0.listensUnderWay } == 0)
        #expect(link.closed == 0)

        // A second listen lets the first link go: what arrives on it afterwards is not heard.
        let (again, second, next) = try await rig.startListening()
        #expect(next > generation)
        #expect(link.closed == 1)
        #expect(rig.driver.withState { $0.agent.detached } == 2)
        rig.arrive("stale", on: generation)
        rig.arrive("ok", on: next)
        try await again.value
        #expect(!rig.host.logRecords.text.contains("ignored stale"))
        #expect(second.closed == 0)
    }

    @Test func theAgentsTimerFailsTheListenClosesTheLinkAndReachesTheHost() async throws {
        let rig = Rig()
        let (listening, link, generation) = try await rig.startListening()
        await rig.host.manualClock.waitForSleepers(atLeast: 1)
        rig.host.manualClock.advance(by: .seconds(5))
        let error = await #expect(throws: ChannelError.self) { try await listening.value }
        #expect(error?.message == "toy: no answer")
        #expect(link.closed == 1)
        guard case .stoppedListening(let lost) = await rig.host.nextEvent() else {
            Issue.record("expected stopped-listening")
            return
        }
        #expect(lost.message == "toy: gone")
        rig.arrive("late", on: generation)
        #expect(!rig.host.logRecords.text.contains("ignored late"), "the closed link's generation is over")
    }

    @Test func aLinkThatCannotOpenFailsTheListenWithTheAgentsError() async throws {
        let rig = Rig()
        let error = await #expect(throws: ChannelError.self) { try await rig.listen(failing: true) }
        #expect(error?.message == "toy: cannot open: refused")
        #expect(rig.driver.withState { $0.listensUnderWay } == 0)
    }

    @Test func keepAlivesWaitForTheAgentAndACancelledOneIsForgotten() async throws {
        let rig = Rig()
        let (listening, link, generation) = try await rig.startListening()
        rig.arrive("ok", on: generation)
        try await listening.value

        let first = Task { try await rig.driver.keepAlive { agent, id in agent.keepAlive(id) } }
        #expect(try await link.sent.next() == "ping")
        let second = Task { try await rig.driver.keepAlive { agent, id in agent.keepAlive(id) } }
        #expect(try await link.sent.next() == "ping")
        #expect(rig.driver.withState { $0.agent.keepAlives.count } == 2)
        second.cancel()
        let error = await #expect(throws: ChannelError.self) { try await second.value }
        #expect(error?.message == "toy: the keep-alive was cancelled")
        #expect(rig.driver.withState { $0.agent.keepAlives.count } == 1)

        rig.arrive("ok", on: generation)
        try await first.value
    }

    @Test func stopWaitsForTheAgentThenResetsItAndClosesTheLink() async throws {
        let rig = Rig()
        let (listening, link, generation) = try await rig.startListening()
        rig.arrive("ok", on: generation)
        try await listening.value

        let stopping = Task { await rig.driver.stop { $0.stop() } }
        #expect(try await link.sent.next() == "bye")
        #expect(link.closed == 0, "not before the agent says it has stopped")
        rig.arrive("ok", on: generation)
        await stopping.value
        #expect(link.closed == 1)
        #expect(rig.driver.withState { $0.agent.resets } == [true])
        #expect(rig.driver.withState { $0.link == nil })
        rig.arrive("after", on: generation)
        #expect(!rig.host.logRecords.text.contains("ignored after"))
    }

    @Test func aCancelledListenClosesItsLinkAndResetsTheAgent() async throws {
        let rig = Rig()
        let (listening, link, _) = try await rig.startListening()
        listening.cancel()
        let error = await #expect(throws: ChannelError.self) { try await listening.value }
        #expect(error?.message == "toy: listening was cancelled")
        #expect(link.closed == 1)
        #expect(rig.driver.withState { $0.agent.resets } == [false])
        #expect(rig.driver.withState { $0.listensUnderWay } == 0)
    }

    @Test func whatTheAgentLogsReachesTheHostsLogger() async throws {
        let rig = Rig()
        let (listening, _, generation) = try await rig.startListening()
        rig.arrive("hi", on: generation)
        #expect(rig.host.logRecords.all.contains { $0.level == .info && $0.message == "ignored hi" })
        listening.cancel()
        _ = try? await listening.value
    }
}
