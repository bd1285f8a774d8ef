import AttendantPluginAPI
import AttendantPluginKit
import AttendantPluginTestKit
import SIPCore
import Testing

/// The whole user agent without a network: who hears what when a registration succeeds, fails, is kept
/// alive or removed, and what RFC 5626 pings do.
@Suite struct SIPAgentTests {
    typealias Agent = SIPAgent

    static let now = UnixTime(secondsSince1970: 1_800_000_000)

    /// An agent and what it asked for so far.
    struct Harness {
        var agent = Agent(
            configuration: Agent.Configuration(
                prefix: "sip-voice",
                addressOfRecord: "sip:alice@example.com",
                registrarDescription: "example.com:5060 over tcp",
                cycle: 600
            ),
            hashing: InMemoryHashing(),
            identifiers: SIPIdentifiers(generator: SeededGenerator(seed: 7))
        )
        var actions: [Agent.Action] = []
        var lastRequest: SIPRequest?
        var timers: Set<Agent.Timer> = []

        mutating func record(_ new: [Agent.Action]) -> [Agent.Action] {
            for action in new {
                switch action {
                case .work(.send(.request(let request), _)): self.lastRequest = request
                case .setTimer(let timer, _): self.timers.insert(timer)
                case .cancelTimer(let timer): self.timers.remove(timer)
                default: break
                }
            }
            self.actions += new
            return new
        }

        @discardableResult
        mutating func listen(outbound: Bool = false, at now: UnixTime = SIPAgentTests.now) throws -> [Agent.Action] {
            let builder = try BuilderTests.builder(outbound: outbound)
            let flow = Agent.Flow(pings: true, localAddress: "192.0.2.10:5060")
            return self.record(self.agent.listen(on: flow, registration: RegistrationConfiguration(builder: builder), credentials: .none, now: now))
        }

        /// Answers the last REGISTER; a 200 echoes its Contact with `expires`.
        @discardableResult
        mutating func respond(
            _ statusCode: Int,
            expires: UInt32 = 600,
            _ headers: SIPHeaders = [],
            at now: UnixTime = SIPAgentTests.now
        ) throws -> [Agent.Action] {
            let request = try #require(self.lastRequest)
            var contact: SIPNameAddress?
            if statusCode == 200 {
                contact = try request.headers.contacts.first
                contact?.parameters.set("expires", String(expires))
            }
            let response = SIPResponse.answering(request, statusCode: statusCode, toTag: "reg1", contact: contact, extraHeaders: headers)
            return self.record(self.agent.receive(response, now: now))
        }

        mutating func fire(_ timer: Agent.Timer, at now: UnixTime = SIPAgentTests.now) -> [Agent.Action] {
            self.timers.remove(timer)
            return self.record(self.agent.timerFired(timer, now: now))
        }
    }

    static func listened(_ actions: [Agent.Action]) -> [ChannelError?] {
        actions.compactMap { if case .listened(let error) = $0 { error } else { nil } }
    }

    static func keptAlive(_ actions: [Agent.Action]) -> [([UInt64], ChannelError?)] {
        actions.compactMap { if case .keptAlive(let waiters, let error) = $0 { (waiters, error) } else { nil } }
    }

    static func sends(_ actions: [Agent.Action]) -> Int {
        actions.count { if case .work(.send) = $0 { true } else { false } }
    }

    static func contains(_ actions: [Agent.Action], _ wanted: (Agent.Action) -> Bool) -> Bool {
        actions.contains(where: wanted)
    }

    @Test func listeningWaitsForTheRegistrarsOKAndTheReportSaysWhatIsRegistered() throws {
        var harness = Harness()
        let started = try harness.listen()
        #expect(Self.sends(started) == 1)
        #expect(Self.listened(started).isEmpty)
        #expect(harness.agent.report(busy: false)["busy"] == "yes")

        let answered = try harness.respond(200, expires: 300)
        #expect(Self.listened(answered).count == 1)
        #expect(Self.listened(answered).first! == nil)
        #expect(harness.agent.listening)
        let report = harness.agent.report(busy: false)
        #expect(report["listening"] == "yes")
        #expect(report["phase"] == "registered")
        #expect(report["expires"] == "300")
        #expect(report["registrations"] == "1")
        #expect(report["busy"] == "no")
        #expect(report["local-address"] == "192.0.2.10:5060")
        #expect(Self.contains(answered) { if case .log(.info, let line) = $0 { line.contains("registered sip:alice@example.com") } else { false } })
    }

    @Test func aRefusedRegistrationFailsTheListenClosesTheFlowAndIsNotNewsToTheHost() throws {
        var harness = Harness()
        try harness.listen()
        let refused = try harness.respond(403)
        let error = try #require(Self.listened(refused).first ?? nil)
        #expect(error.code == .authentication)
        #expect(error.message.contains("registering sip:alice@example.com at example.com:5060 over tcp failed"))
        #expect(Self.contains(refused) { if case .closeLink = $0 { true } else { false } })
        #expect(!Self.contains(refused) { if case .emit = $0 { true } else { false } })
        #expect(!harness.agent.listening)

        let keepAlive = harness.agent.keepAlive(waiter: 1, renewal: nil, now: Self.now)
        #expect(Self.keptAlive(keepAlive).first?.1?.message == "sip-voice: not registered at example.com:5060 over tcp")
    }

    @Test func aFlowLostWhileListeningStopsListeningWithATransientErrorAndARetryDelay() throws {
        var harness = Harness()
        try harness.listen()
        try harness.respond(200)
        let lost = harness.agent.flowFailed("connection reset", now: Self.now)
        let stopped = lost.compactMap { if case .emit(.stoppedListening(let error)) = $0 { error } else { nil } }
        #expect(stopped.count == 1)
        #expect(stopped.first?.code == .transient)
        #expect(stopped.first?.retryAfter != nil)
        #expect(Self.contains(lost) { if case .closeLink = $0 { true } else { false } })
        #expect(harness.agent.report(busy: false)["listening"] == "no")
    }

    @Test func aKeepAliveIsFreshEarlyAndRefreshesPastHalfTheGrant() throws {
        var harness = Harness()
        try harness.listen()
        try harness.respond(200, expires: 600)

        let early = harness.record(harness.agent.keepAlive(waiter: 1, renewal: nil, now: UnixTime(secondsSince1970: Self.now.secondsSince1970 + 60)))
        #expect(Self.sends(early) == 0)
        #expect(Self.keptAlive(early).map(\.0) == [[1]])
        #expect(Self.keptAlive(early).first?.1 == nil)

        let late = UnixTime(secondsSince1970: Self.now.secondsSince1970 + 400)
        let refreshing = harness.record(harness.agent.keepAlive(waiter: 2, renewal: nil, now: late))
        #expect(Self.sends(refreshing) == 1)
        #expect(Self.keptAlive(refreshing).isEmpty)
        #expect(harness.agent.report(busy: false)["busy"] == "yes")
        harness.agent.forgetKeepAlive(3)
        let refreshed = try harness.respond(200, at: late)
        #expect(Self.keptAlive(refreshed).map(\.0) == [[2]])
        #expect(harness.agent.registeredAt == late)
        #expect(harness.agent.registrations == 2)
    }

    @Test func stoppingRemovesTheBindingAndReturnsOnTheAnswerOrTheDeadline() throws {
        var harness = Harness()
        try harness.listen()
        try harness.respond(200)
        let stopping = harness.record(harness.agent.stop(now: Self.now))
        #expect(harness.timers.contains(.stopDeadline))
        #expect(harness.lastRequest?.headers[.expires] == "0")
        #expect(!Self.contains(stopping) { if case .stopped = $0 { true } else { false } })
        let answered = try harness.respond(200, expires: 0)
        #expect(Self.contains(answered) { if case .stopped = $0 { true } else { false } })
        #expect(!harness.timers.contains(.stopDeadline))

        var silent = Harness()
        try silent.listen()
        try silent.respond(200)
        _ = silent.record(silent.agent.stop(now: Self.now))
        let deadline = silent.fire(.stopDeadline)
        #expect(Self.contains(deadline) { if case .stopped = $0 { true } else { false } })
        #expect(Self.contains(deadline) { if case .log(.notice, let line) = $0 { line.contains("did not confirm") } else { false } })

        var idle = Harness()
        #expect(Self.contains(idle.agent.stop(now: Self.now)) { if case .stopped = $0 { true } else { false } })
    }

    @Test func anOutboundFlowIsPingedAndAMissingPongEndsIt() throws {
        var harness = Harness()
        try harness.listen(outbound: true)
        try harness.respond(200, [(.require, "outbound"), (.flowTimer, "30")])
        #expect(harness.timers.contains(.ping))

        let ping = harness.fire(.ping)
        #expect(Self.contains(ping) { if case .work(.ping) = $0 { true } else { false } })
        #expect(harness.timers.contains(.pongTimeout))
        _ = harness.record(harness.agent.pong())
        #expect(!harness.timers.contains(.pongTimeout))
        #expect(harness.timers.contains(.ping))

        _ = harness.fire(.ping)
        let overdue = harness.fire(.pongTimeout)
        let stopped = overdue.compactMap { if case .emit(.stoppedListening(let error)) = $0 { error } else { nil } }
        #expect(stopped.first?.message.contains("no answer to an RFC 5626 keep-alive within 10 s") == true)
    }
}
