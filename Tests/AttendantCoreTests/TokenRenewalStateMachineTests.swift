import AttendantCore
import AttendantPluginAPI
import AttendantPluginKit
import TestSupport
import Testing

@Suite struct TokenRenewalStateMachineTests {
    typealias Machine = TokenRenewalStateMachine<SeededRandom>
    let t0 = UnixTime(secondsSince1970: 1_800_000_000)

    func machine(renewAt: Double = 0.9, renewBefore: Duration = .seconds(60)) -> Machine {
        var configuration = Machine.Configuration()
        configuration.renewAt = renewAt
        configuration.renewBefore = renewBefore
        return Machine(configuration: configuration, random: SeededRandom())
    }

    func at(_ seconds: Double) -> UnixTime { self.t0 + .milliseconds(Int64(seconds * 1000)) }

    @Test func renewsAtNinetyPercentOfTheLifetimeFromIssuedAt() {
        var m = self.machine()
        #expect(m.start(now: self.t0) == .fetch)
        #expect(m.start(now: self.t0) == .none, "only once")
        // Issued 10 minutes ago, valid for an hour: 90 % of the lifetime is 54 min after iat.
        let action = m.fetchSucceeded(expiresAt: self.at(3000), issuedAt: self.at(-600), changed: true, now: self.t0)
        #expect(action == .wait(until: self.at(2640)))
        #expect(m.timerFired(now: self.at(2639)) == .wait(until: self.at(2640)), "an early wake-up waits again")
        #expect(m.timerFired(now: self.at(2640)) == .fetch)
        #expect(m.state == .fetching)
    }

    @Test func withoutIssuedAtTheLifetimeCountsFromTheFetch() {
        var m = self.machine()
        _ = m.start(now: self.t0)
        #expect(m.fetchSucceeded(expiresAt: self.at(1000), issuedAt: nil, changed: true, now: self.t0) == .wait(until: self.at(900)))
        // An iat in the future (clock skew) counts from the fetch too.
        _ = m.renewRequested(now: self.at(10))
        #expect(m.fetchSucceeded(expiresAt: self.at(1010), issuedAt: self.at(500), changed: true, now: self.at(10)) == .wait(until: self.at(910)))
    }

    @Test func atLeastRenewBeforeAheadOfExpiry() {
        var m = self.machine(renewAt: 0.99, renewBefore: .seconds(300))
        _ = m.start(now: self.t0)
        // 99 % of an hour would leave 36 s; renew-before wants 300 s.
        #expect(m.fetchSucceeded(expiresAt: self.at(3600), issuedAt: self.t0, changed: true, now: self.t0) == .wait(until: self.at(3300)))
    }

    @Test func aShortLivedTokenIsRenewedAtNinetyPercentOfWhatIsLeftNeverAfterExpiry() {
        var m = self.machine()
        _ = m.start(now: self.t0)
        // 45 s of life: the 60 s margin is already past, so renew at 90 % of what is left.
        #expect(m.fetchSucceeded(expiresAt: self.at(45), issuedAt: self.t0, changed: true, now: self.t0) == .wait(until: self.at(40.5)))
        // Half a second left: not sooner than a second after it came, and not after it expires.
        _ = m.renewRequested(now: self.at(41))
        #expect(m.fetchSucceeded(expiresAt: self.at(41.5), issuedAt: nil, changed: true, now: self.at(41)) == .wait(until: self.at(41.5)))
    }

    @Test func theSameTokenAgainBacksOffButNeverPastExpiry() {
        var m = self.machine()
        _ = m.start(now: self.t0)
        _ = m.fetchSucceeded(expiresAt: self.at(3600), issuedAt: self.t0, changed: true, now: self.t0)
        var now = self.at(3240)
        #expect(m.timerFired(now: now) == .fetch)
        var waits: [Duration] = []
        for _ in 0..<12 {
            guard case .wait(let until) = m.fetchSucceeded(expiresAt: self.at(3600), issuedAt: self.t0, changed: false, now: now) else {
                Issue.record("expected a wait")
                return
            }
            #expect(until <= self.at(3600), "never after expiry")
            waits.append(until - now)
            now = until
            #expect(m.timerFired(now: now) == .fetch)
        }
        #expect(waits.allSatisfy { $0 <= .seconds(300) })
        #expect(now == self.at(3600), "asked up to the end")
        // A new token at last: the normal schedule again.
        #expect(m.fetchSucceeded(expiresAt: self.at(7200), issuedAt: self.at(3600), changed: true, now: now) == .wait(until: self.at(6840)))
    }

    @Test func failuresRetryWithFullJitterUnderTheBackoffCeiling() {
        var m = self.machine()
        _ = m.start(now: self.t0)
        var now = self.t0
        for attempt in 0..<12 {
            guard case .wait(let until) = m.fetchFailed(now: now) else {
                Issue.record("expected a retry")
                return
            }
            #expect(until - now <= m.configuration.backoff.ceiling(attempt: attempt))
            #expect(m.consecutiveFailures == attempt + 1)
            now = until
            #expect(m.timerFired(now: now) == .fetch)
        }
        #expect(m.configuration.backoff.ceiling(attempt: 11) == .seconds(300))
        _ = m.fetchSucceeded(expiresAt: now + .seconds(3600), issuedAt: now, changed: true, now: now)
        #expect(m.consecutiveFailures == 0)
    }

    @Test func whileATokenIsHeldRetriesLeaveRoomBeforeItExpires() {
        var m = self.machine()
        _ = m.start(now: self.t0)
        _ = m.fetchSucceeded(expiresAt: self.at(3600), issuedAt: self.t0, changed: true, now: self.t0)
        var now = self.at(3240)
        _ = m.timerFired(now: now)
        var attempts = 0
        while now < self.at(3600) {
            guard case .wait(let until) = m.fetchFailed(now: now) else { return }
            #expect(until - now <= max((self.at(3600) - now) / 2, .seconds(1)) + .milliseconds(1), "at most half the time left")
            now = until
            _ = m.timerFired(now: now)
            attempts += 1
            if attempts > 100 { break }
        }
        #expect(attempts > 5, "several attempts before the token ran out (\(attempts))")
        #expect(m.expiresAt == self.at(3600), "the held token is kept")
        // After expiry: plain backoff, up to five minutes.
        guard case .wait(let until) = m.fetchFailed(now: now) else { return }
        #expect(until - now <= .seconds(300))
    }

    @Test func unknownLifetimeMeansRenewOnlyOnDemand() {
        var m = self.machine()
        _ = m.start(now: self.t0)
        #expect(m.fetchSucceeded(expiresAt: nil, issuedAt: nil, changed: true, now: self.t0) == .waitForDemand)
        #expect(m.state == .holding(renewAt: nil))
        #expect(m.timerFired(now: self.at(86_400)) == .waitForDemand)
        #expect(m.renewRequested(now: self.at(86_400)) == .fetch)
        #expect(m.renewRequested(now: self.at(86_400)) == .none, "a fetch is running: join it")
    }
}
