import AttendantPluginAPI
import AttendantPluginTestKit
import Glibc
import Synchronization
import TestSupport
import Testing

@testable import AttendantCore

/// A token source that does what a test says, one answer per fetch, and counts the fetches.
final class ScriptedTokenSource: TokenSource {
    enum Answer: Sendable {
        case token(String)
        case fail(TokenError)
        /// Waits until ``release()``, then gives the token.
        case held(String)
    }

    private let state = Mutex<(answers: [Answer], fetches: Int, held: [CheckedContinuation<Void, Never>])>(([], 0, []))
    let description = "token command /usr/local/bin/scripted"

    init(_ answers: [Answer] = []) { self.state.withLock { $0.answers = answers } }

    func script(_ answers: Answer...) { self.state.withLock { $0.answers += answers } }

    var fetches: Int { self.state.withLock { $0.fetches } }

    func release() {
        let waiting = self.state.withLock { state in
            defer { state.held.removeAll() }
            return state.held
        }
        for continuation in waiting { continuation.resume() }
    }

    func fetch() async throws -> String {
        let answer = self.state.withLock { state -> Answer in
            state.fetches += 1
            return state.answers.isEmpty ? .fail(TokenError(.source, "\(self.description): script ran out")) : state.answers.removeFirst()
        }
        switch answer {
        case .token(let token): return token
        case .fail(let error): throw error
        case .held(let token):
            await withCheckedContinuation { continuation in self.state.withLock { $0.held.append(continuation) } }
            return token
        }
    }
}

/// Collects what a keeper hands over.
final class RenewalLog: Sendable {
    private let tokens = Mutex<[ChannelToken]>([])
    func append(_ token: ChannelToken) { self.tokens.withLock { $0.append(token) } }
    var all: [ChannelToken] { self.tokens.withLock { $0 } }
}

@Suite(.timeLimit(.minutes(2))) struct TokenManagerTests {
    final class Harness: Sendable {
        let clock = ManualClock()
        let source: any TokenSource
        let manager: TokenManager
        let records = LogRecords()
        let renewals = RenewalLog()

        init(source: any TokenSource, settings: (inout TokenSettings) -> Void = { _ in }) {
            self.source = source
            var tokenSettings = TokenSettings(source: .command(["/usr/local/bin/scripted"]))
            settings(&tokenSettings)
            let records = self.records
            var logger = Logger(label: "attendant.test") { _ in RecordingLogHandler(records: records) }
            logger[metadataKey: "channel"] = "desk"
            let clock = self.clock
            self.manager = TokenManager(
                channelName: "desk",
                settings: tokenSettings,
                source: source,
                clock: clock,
                wallClock: { clock.unixTime() },
                logger: logger,
                random: SeededRandom()
            )
        }

        var epoch: Double { self.clock.epoch.secondsSince1970 }

        /// A capability token issued `issued` seconds after the clock's start.
        func jwt(issued: Double, lifetime: Double = 3600, nonce: Int = 0) -> String {
            TestJWT.capability(issuedAt: self.epoch + issued, lifetime: lifetime, nonce: nonce)
        }

        func start() -> Task<Void, Never> {
            let renewals = self.renewals
            return Task { await self.manager.run { renewals.append($0) } }
        }

        func at(_ seconds: Int64) -> ManualClock.Instant { .init(offset: .seconds(seconds)) }
    }

    @Test func getsATokenAtOnceAndRenewsAtNinetyPercentOfItsLifetime() async throws {
        let source = ScriptedTokenSource()
        let h = Harness(source: source)
        source.script(.token(h.jwt(issued: 0)), .token(h.jwt(issued: 3240)))
        let run = h.start()
        await h.clock.waitForSleeper(until: h.at(3240))
        let first = try #require(await h.manager.current())
        #expect(first.expiresAt == h.clock.epoch + .seconds(3600))
        #expect(await h.manager.remainingLifetime() == .seconds(3600))
        var health = try #require(await h.manager.health())
        #expect(
            health
                == TokenHealth(expiresAt: h.clock.epoch + .seconds(3600), lastRenewal: h.clock.epoch, lastRenewalError: nil, consecutiveFailures: 0)
        )

        h.clock.advance(by: .seconds(3240))
        await h.clock.waitForSleeper(until: h.at(3240 + 3240))
        #expect(source.fetches == 2)
        #expect(h.renewals.all.map(\.value) == [h.jwt(issued: 0), h.jwt(issued: 3240)], "each new token is handed over, in order")
        health = try #require(await h.manager.health())
        #expect(health.expiresAt == h.clock.epoch + .seconds(6840))
        #expect(health.lastRenewal == h.clock.epoch + .seconds(3240))
        #expect(
            h.records.text.contains(
                "got a new token for alice from token command /usr/local/bin/scripted: expires at 2027-01-15T09:54:00Z (in 60 min); next renewal at 2027-01-15T09:48:00Z"
            )
        )
        run.cancel()
        await run.value
    }

    @Test func failedRenewalsRetryWithBackoffKeepTheTokenAndCountInHealth() async throws {
        let source = ScriptedTokenSource()
        let h = Harness(source: source)
        let broken = TokenError(.source, "token command /usr/local/bin/scripted exited with status 1: network unreachable")
        source.script(.token(h.jwt(issued: 0)), .fail(broken), .fail(broken), .fail(broken), .token(h.jwt(issued: 3300)))
        let run = h.start()
        await h.clock.waitForSleeper(until: h.at(3240))
        h.clock.advance(by: .seconds(3240))
        for failures in 1...3 {
            while await h.manager.health()?.consecutiveFailures != failures { await Task.yield() }
            let health = try #require(await h.manager.health())
            #expect(health.lastRenewalError == broken.message)
            #expect(health.expiresAt == h.clock.epoch + .seconds(3600), "the old token is kept and still valid")
            #expect(await h.manager.current()?.value == h.jwt(issued: 0))
            await h.clock.waitForSleepers(atLeast: 1)
            h.clock.advanceToNextDeadline()
        }
        while await h.manager.health()?.consecutiveFailures != 0 { await Task.yield() }
        #expect(await h.manager.health()?.lastRenewalError == nil)
        #expect(h.clock.now.offset < .seconds(3600), "renewed before the old token expired")
        #expect(
            h.records.text.contains(
                "token renewal failed (3 times in a row): \(broken.message); the current token expires at 2027-01-15T09:00:00Z; trying again at"
            )
        )
        run.cancel()
        await run.value
    }

    @Test func renewalsOnDemandShareTheFetchThatIsRunning() async throws {
        let source = ScriptedTokenSource([.token("opaque-first"), .held("opaque-second")])
        let h = Harness(source: source)
        let run = h.start()
        #expect(await h.manager.current()?.value == "opaque-first")
        #expect(h.clock.sleeperCount == 0, "an opaque token is renewed only on demand: no timer")
        async let a = h.manager.renew()
        async let b = h.manager.renew()
        while source.fetches < 2 { await Task.yield() }
        source.release()
        let (first, second) = try await (a, b)
        #expect(first.value == "opaque-second" && second.value == "opaque-second")
        #expect(source.fetches == 2, "one fetch answered both")
        #expect(h.records.text.contains("its lifetime is unknown (not a JWT), so it is renewed only when the server refuses it or on request"))
        run.cancel()
        await run.value
    }

    @Test func aHangingTokenCommandIsKilledAfterTheTimeout() async throws {
        let folder = TemporaryFolder()
        let command = TokenSettings.Source.command(["/bin/sh", "-c", "echo $$ > \(folder.path)/pid; exec sleep 1000"])
        let h = Harness(source: command.makeSource(channel: "desk", environment: [:])) { $0.timeout = .seconds(10) }
        let renewal = Task { try await h.manager.renew() }
        // The shell creates the file before it writes its pid into it.
        var written: pid_t?
        while written == nil && !Task.isCancelled {
            await Task.yield()
            written = folder.read("pid").flatMap { pid_t($0.trimmingCharacters(in: "\n")) }
        }
        let pid = try #require(written)
        await h.clock.waitForSleeper(until: h.at(10))
        h.clock.advance(by: .seconds(10))
        await #expect(throws: TokenError(.timeout, "token command /bin/sh did not finish within 10 s and was killed")) { try await renewal.value }
        #expect(kill(pid, 0) != 0, "the command is gone")
        #expect(await h.manager.health()?.lastRenewalError == "token command /bin/sh did not finish within 10 s and was killed")
    }

    @Test func twentyFourHoursOfOneHourTokensNeverLetOneExpire() async throws {
        let source = ScriptedTokenSource()
        let h = Harness(source: source)
        source.script(.token(h.jwt(issued: 0)))
        let run = h.start()
        var renewals = 0
        while h.clock.now.offset < .seconds(86_400) {
            let now = h.clock.now.offset
            // The renewal timer (not the fetch's time limit, which comes and goes).
            await h.clock.waitForSleepers { $0.contains { $0.offset > now + .seconds(600) } }
            let due = try #require(h.clock.nextDeadline)
            let held = try #require(await h.manager.current())
            #expect(held.expiresAt! > h.clock.epoch + due.offset, "the next renewal is before the token expires")
            source.script(.token(h.jwt(issued: due.offset.seconds, nonce: renewals + 1)))
            h.clock.advanceToNextDeadline()
            renewals += 1
            while source.fetches < renewals + 1 { await Task.yield() }
        }
        #expect(renewals == 27, "every 54 minutes: \(renewals)")
        #expect(h.renewals.all.count >= 27)
        run.cancel()
        await run.value
    }
}
