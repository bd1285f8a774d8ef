import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import ContactCenterSim
import Foundation
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

/// 24 simulated hours of the real voice stack on one manual clock: the daemon's channel fleet (supervisor,
/// token manager with the url source, event router, SQLite state store), the SIPVoice plugin loaded from
/// its shared library, and the contact-centre simulator as token endpoint and registrar over TCP.
///
/// The clock only moves when the test moves it: from one deadline (keep-alive, binding refresh, token
/// renewal, backoff) or scripted event (a registrar restart, a call) to the next, after the real network
/// exchanges of the previous step have settled. Real time: seconds.
@Suite(.serialized, .timeLimit(.minutes(3))) struct VoiceSoakTests {
    /// The longest time the channel may be without a registration after a registrar restart: the
    /// supervisor's first backoff (full jitter of 1 s) plus one REGISTER exchange. Chosen generously.
    static let recoveryBound: Duration = .seconds(5)

    @Test func twentyFourHoursOfCyclesHourlyTokensAndRandomRegistrarRestartsMissNoCall() async throws {
        let soak = try await Soak(seed: 20261122)
        let report = try await soak.run(hours: 24, restarts: 12, calls: 48)
        await soak.stop()

        // Every call that was placed rang the desk at once and is in the contact history as missed
        // (the simulated caller hangs up).
        #expect(report.calls == 48)
        #expect(report.rang == 48, "\(report)")
        #expect(report.recordedMissed == 48, "\(report)")
        // The registrar restarted 12 times; each time the channel noticed, went back to listening by itself,
        // within the bound, and only then.
        #expect(report.restarts == 12)
        #expect(
            report.gaps.count == 12,
            "one listening gap per restart, none for token renewals: \(report.gaps); why the channel stopped each time:\n\(report.stops)"
        )
        #expect(
            report.gaps.allSatisfy { $0 <= Self.recoveryBound },
            "\(report.gaps); \(report)\nwhy the channel stopped each time:\n\(report.stops)"
        )
        // Hourly tokens: renewed about every 54 minutes (90 % of an hour), each without a listening gap.
        #expect((25...30).contains(report.tokensIssued), "\(report)")
        #expect(report.listens == 1 + 12, "one listen at start and one per restart: \(report)")
        #expect(report.finalState == .listening)
        // 144 cycles in a day; each restart starts the cycle afresh (a listen instead of a keep-alive).
        #expect(report.keepAlives >= 144 - 12, "\(report)")
        #expect(!report.log.contains("eyJ"), "no token in the log")
    }

    /// A token service that takes a while to answer costs no extra token: the rig moves the clock only
    /// once a fetch under way has ended, so the fetch's time limit never passes while the answer is on its
    /// way. (Before, the rig could move the clock past that limit while the request was still queued on a
    /// busy machine; the fetch then failed and was retried, and the soak counted 31 tokens in a day.)
    @Test func aSlowTokenServiceCostsNoExtraToken() async throws {
        let soak = try await Soak(seed: 11, tokenDelay: .milliseconds(60))
        let report = try await soak.run(hours: 6, restarts: 0, calls: 0)
        await soak.stop()
        // The first token, then one renewal at about 90 % of each token's hour: 54, 108, ... 324 minutes.
        #expect((6...8).contains(report.tokensIssued), "\(report)")
        #expect(report.listens == 1, "listening all along: \(report)")
        #expect(!report.log.contains("did not answer within"), "\(report.log.suffix(2000))")
    }

    @Test func aTokenThatExpiresWhileRenewalsFailEndsInSignInNeededAndRecoversWhenRenewalsWork() async throws {
        let soak = try await Soak(seed: 7)
        try await soak.settle()
        try #require(soak.state == .listening, "\(soak.logs.text.suffix(3000))")
        let issuedBefore = soak.simulator.tokensIssued
        soak.simulator.setRefusesRenewals(true)

        // Renewals fail from 54 minutes on; the token runs out at 60 minutes. The channel keeps listening
        // until the registrar refuses the expired token, then asks the user to sign in.
        try await soak.advance(until: "sign-in needed", within: .seconds(3 * 3600)) { soak.state == .failed }
        let failedAt = soak.clock.now.offset
        let detail = soak.fleet.statuses.first?.detail ?? ""
        #expect(detail.hasPrefix("sign-in needed: "), "\(detail)")
        let transitions = soak.transitions.log.withLock { $0 }
        let leftListening = try #require(transitions.last { $0.state != .listening && $0.state != .failed }?.at ?? transitions.last?.at)
        #expect(leftListening >= .seconds(3600), "listening until the token expired: \(transitions)")
        #expect(failedAt <= .seconds(3600 + 600), "noticed within one binding refresh of the expiry: \(failedAt)")
        #expect(soak.simulator.tokensIssued == issuedBefore, "no token was issued while refused")

        // Renewals work again: the token manager's next retry gets a token and the channel listens again.
        soak.simulator.setRefusesRenewals(false)
        try await soak.advance(until: "listening again", within: .seconds(3600)) { soak.state == .listening }
        #expect(soak.simulator.tokensIssued == issuedBefore + 1)
        #expect(soak.logs.text.contains("a new token arrived: listening again"), "\(soak.logs.text.suffix(2000))")
        await soak.stop()
    }
}

/// What the soak saw.
struct SoakReport: CustomStringConvertible {
    var calls = 0
    var rang = 0
    var recordedMissed = 0
    var restarts = 0
    var gaps: [Duration] = []
    var tokensIssued = 0
    var listens = 0
    var keepAlives = 0
    var steps = 0
    var finalState: ChannelStatus.State = .starting
    var log = ""
    var timeline: [String] = []

    /// The log's lines that say why the channel stopped listening, what failed and how long each retry
    /// waits, in order: one stop per registrar restart, and the cause of any other gap or long one (a
    /// failure message names it).
    var stops: String {
        self.log.split(separator: "\n")
            .filter { $0.contains("stopped listening") || $0.contains("failed") || $0.contains("warning") || $0.contains("listening again in") }
            .joined(separator: "\n")
    }

    var description: String {
        "\(timeline.joined(separator: " ")); calls \(calls), rang \(rang), missed recorded \(recordedMissed), restarts \(restarts), gaps \(gaps.map(\.seconds)), tokens \(tokensIssued), listens \(listens), keep-alives \(keepAlives), steps \(steps), final \(finalState)"
    }
}

/// The rig: the fleet and the simulator on one manual clock.
final class Soak: Sendable {
    let clock: ManualClock
    let simulator: ContactCenterSimulator
    let store: StateStore
    let fleet: ChannelFleet
    let group: ServiceGroup
    let logs = LogRecords()
    let transitions = Transitions()
    let folder: String
    /// The simulator's token count the token manager is known to have received.
    let tokensSeen = Atomic<Int>(0)
    private let running: Task<Void, any Error>
    private let seed: UInt64

    /// - Parameter tokenDelay: how long (real time) the simulator's token endpoint takes to answer.
    init(seed: UInt64, tokenDelay: Duration = .zero) async throws {
        self.seed = seed
        let clock = ManualClock(epoch: UnixTime(secondsSince1970: Date().timeIntervalSince1970.rounded()))
        self.clock = clock
        var simulation = SimulatorConfiguration(tokenLifetime: .seconds(3600), now: { clock.unixTime().secondsSince1970 })
        simulation.tokenDelay = tokenDelay
        self.simulator = try await ContactCenterSimulator.start(simulation)
        self.folder = try makeTemporaryFolder("attendant-soak")
        self.store = try StateStore(directory: self.folder)
        let records = self.logs
        let logger = Logger(label: "soak") { _ in RecordingLogHandler(records: records) }
        let router = EventRouter(store: self.store, logger: logger, presenters: [], wallClock: { clock.unixTime() })
        let buildDirectory = ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "") as NSString
        let environment = ChannelFleet.Environment(
            loader: PluginLoader(searchPath: [buildDirectory.deletingLastPathComponent]),
            store: self.store,
            router: router,
            clock: clock,
            wallClock: { clock.unixTime() },
            logger: logger
        )
        let fleetBox = Mutex<ChannelFleet?>(nil)
        let transitions = self.transitions
        let fleet = ChannelFleet(environment: environment) {
            guard let state = fleetBox.withLock({ $0 })?.statuses.first?.state else { return }
            transitions.log.withLock { log in
                if log.last?.state != state { log.append((clock.now.offset, state)) }
            }
        }
        fleetBox.withLock { $0 = fleet }
        self.fleet = fleet
        self.group = ServiceGroup(configuration: .init(services: [router, fleet], logger: logger))
        let group = self.group
        self.running = Task { try await group.run() }

        let configuration = try AttendantConfiguration(
            toml: """
                [[channel]]
                name = "phone"
                plugin = "sip-voice"
                keepalive-interval = "600s"
                token-url = "\(self.simulator.tokenURL)alice"
                token-url-field = "token"

                [channel.sip-voice]
                registrar = "\(self.simulator.registrarURI(transport: "tcp"))"
                address-of-record = "\(self.simulator.addressOfRecord("alice"))"
                outbound = false
                ring-timeout = "30s"
                """,
            file: nil
        )
        await fleet.apply(configuration)
    }

    func stop() async {
        await self.group.triggerGracefulShutdown()
        _ = try? await self.running.value
        await self.simulator.stop()
        try? FileManager.default.removeItem(atPath: self.folder)
    }

    var state: ChannelStatus.State? { self.fleet.statuses.first?.state }

    /// Waits (real time, bounded) until nothing moves any more: the channel waits on nothing from the
    /// network (no listen under way, no REGISTER unanswered, no token fetch), a token the simulator issued at this instant
    /// has reached the token manager, and the state, the timers and the counters are steady. Only then may
    /// the clock move: a jump past a response timeout while the response is still on its way would be a
    /// failure the test made up.
    func settle() async throws {
        let supervisor = self.fleet.supervisor(named: "phone")
        // Why the last snapshot was not at rest, for the failure message.
        var busy = ""
        func snapshot() async -> [String]? {
            // The first listen under way (connecting, the first REGISTER not yet sent): nothing the clock
            // waits on, yet not at rest. On a busy machine that step alone can outlast the quiet spell below.
            if self.state == nil || self.state == .starting {
                busy =
                    "the first listen is under way (state \(self.state.map(\.rawValue) ?? "none"), \(self.fleet.statuses.first?.detail ?? "no detail"))"
                return nil
            }
            // A listen or keep-alive the supervisor started that has not reached the channel yet (queued
            // behind another call, or its task not yet run on a busy machine): moving the clock would pass
            // its time limit before it began. Seen in whole-suite runs as one recovery of 312 s.
            if let calls = supervisor?.callsInFlight, calls > 0 {
                busy = "a channel call is under way (\(calls))"
                return nil
            }
            if case .fields(let report)? = try? await supervisor?.perform(.custom(command: "registration", arguments: [:])),
                report["busy"] == "yes"
            {
                busy = "a registration is under way: \(report.sorted { $0.key < $1.key })"
                return nil
            }
            // A token fetch under way: its request may not even have reached the simulator yet (on a busy
            // machine it can wait longer than the quiet spell below), and moving the clock now could pass
            // the fetch's time limit while the answer is on its way.
            if await supervisor?.tokenHealth()?.renewing == true {
                busy = "a token fetch is under way"
                return nil
            }
            let issued = self.simulator.tokensIssued
            if issued != self.tokensSeen.load(ordering: .relaxed) {
                guard await supervisor?.tokenHealth()?.lastRenewal == self.clock.unixTime() else { return nil }
                self.tokensSeen.store(issued, ordering: .relaxed)
            }
            return [
                "\(self.simulator.registerCount)", "\(issued)", "\(self.state.map(\.rawValue) ?? "-")",
                "\(self.clock.sleeperCount)", "\(self.clock.nextDeadline?.offset ?? .zero)", "\(self.transitions.log.withLock(\.count))",
            ]
        }
        let deadline = ContinuousClock.now + .seconds(60)
        var last: [String]?
        var quiet = 0
        while quiet < 4 {
            try await Task.sleep(for: .milliseconds(2))
            let now = await snapshot()
            quiet = now != nil && now == last ? quiet + 1 : 0
            last = now
            guard ContinuousClock.now < deadline else {
                throw SoakError(
                    "no rest after 60 s at t+\(self.clock.now.offset): \(now.map { "\($0)" } ?? busy); clock sleepers \(self.clock.sleeperCount), next deadline \(self.clock.nextDeadline.map { "t+\($0.offset)" } ?? "none"); token health \(String(describing: await supervisor?.tokenHealth()))\n\(self.logs.text.suffix(3000))"
                )
            }
        }
    }

    /// Moves the clock from deadline to deadline, settling after each, until `condition` holds (or
    /// `limit` of simulated time has passed, which fails).
    func advance(until what: String, within limit: Duration, _ condition: () -> Bool) async throws {
        let end = self.clock.now.offset + limit
        while !condition() {
            guard let next = self.clock.nextDeadline?.offset, next <= end else {
                throw SoakError(
                    "no \(what) within \(limit) of simulated time (now t+\(self.clock.now.offset)): \(self.fleet.statuses)\n\(self.logs.text.suffix(3000))"
                )
            }
            self.clock.advance(by: max(.zero, next - self.clock.now.offset))
            try await self.settle()
        }
    }

    func run(hours: Int, restarts: Int, calls: Int) async throws -> SoakReport {
        var random = SeededRandom(seed: self.seed)
        let end = Duration.seconds(hours * 3600)
        // Events at random minutes, away from the start.
        var restartTimes = (0..<restarts).map { _ in Duration.seconds(Int64.random(in: 600..<Int64(hours * 3600), using: &random)) }.sorted()
        var callTimes = (0..<calls).map { _ in Duration.seconds(Int64.random(in: 300..<Int64(hours * 3600), using: &random)) }.sorted()
        var report = SoakReport()

        try await self.settle()
        guard self.state == .listening else { throw SoakError("not listening at the start: \(self.fleet.statuses)\n\(self.logs.text)") }
        while self.clock.now.offset < end {
            let nextTimer = self.clock.nextDeadline?.offset ?? end
            let nextEvent = min(restartTimes.first ?? end, callTimes.first ?? end)
            let target = min(nextTimer, nextEvent, end)
            if target > self.clock.now.offset { self.clock.advance(by: target - self.clock.now.offset) }
            report.steps += 1
            try await self.settle()
            if let restart = restartTimes.first, restart <= self.clock.now.offset {
                restartTimes.removeFirst()
                let keep = Bool.random(using: &random)
                try await self.simulator.restart(keepBindings: keep)
                report.restarts += 1
                report.timeline.append("restart(\(keep ? "kept" : "dropped"))@\(self.clock.now.offset.seconds)")
                try await self.settle()
            }
            if let call = callTimes.first, call <= self.clock.now.offset {
                callTimes.removeFirst()
                try await self.call(&report)
            }
        }
        try await self.settle()

        let transitions = self.transitions.log.withLock { $0 }
        var leftAt: Duration?
        report.timeline += transitions.map { "\($0.state)@\($0.at.seconds)" }
        // Gaps: from leaving `listening` (after the first time there) to being back.
        let firstListening = transitions.firstIndex { $0.state == .listening } ?? transitions.endIndex
        for (at, state) in transitions[firstListening...] {
            if state != .listening, leftAt == nil { leftAt = at }
            if state == .listening, let left = leftAt {
                report.gaps.append(at - left)
                leftAt = nil
            }
        }
        let log = self.logs.text
        report.log = log
        report.tokensIssued = self.simulator.tokensIssued
        report.finalState = self.state ?? .starting
        report.listens = transitions.filter { $0.state == .listening }.count
        report.keepAlives = log.components(separatedBy: "keep-alive done").count - 1
        let contacts = try await self.store.recentContacts(limit: 1000)
        report.recordedMissed = contacts.filter { $0.outcome == .missed }.count
        return report
    }

    /// Alice's phone rings: the channel must be listening, the INVITE must ring (180) and raise a contact;
    /// then the caller hangs up.
    private func call(_ report: inout SoakReport) async throws {
        report.calls += 1
        guard self.state == .listening else {
            throw SoakError("a call at t+\(self.clock.now.offset) found the channel \(String(describing: self.state))")
        }
        let before = try await self.store.recentContacts(limit: 1000).count
        let call = try await self.simulator.call(user: "alice", fromDisplayName: "Grace Hopper", fromURI: "sip:grace@sim.attendant.test")
        _ = try await call.waitForProvisional(180, timeout: .seconds(60))
        let deadline = ContinuousClock.now + .seconds(60)
        while try await self.store.recentContacts(limit: 1000).count == before {
            guard ContinuousClock.now < deadline else { throw SoakError("call \(call.callID) rang but no contact was recorded") }
            try await Task.sleep(for: .milliseconds(2))
        }
        report.rang += 1
        try await call.cancel()
        try await self.settle()
    }
}

/// The channel's state changes, at their times on the manual clock.
final class Transitions: Sendable {
    let log = Mutex<[(at: Duration, state: ChannelStatus.State)]>([])
}

struct SoakError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
