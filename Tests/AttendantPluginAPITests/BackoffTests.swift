import AttendantPluginKit
import TestSupport
import Testing

struct BackoffTests {
    @Test func theCeilingGrowsGeometricallyUpToTheCap() {
        let backoff = Backoff(base: .seconds(1), factor: 2, cap: .seconds(300))
        #expect((0..<10).map { backoff.ceiling(attempt: $0) } == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300].map { Duration.seconds($0) })
        #expect(backoff.ceiling(attempt: 10_000) == .seconds(300), "no overflow on a long outage")
        #expect(Backoff(base: .milliseconds(250), factor: 1.5, cap: .seconds(10)).ceiling(attempt: 2) == .milliseconds(562))
    }

    @Test func fullJitterSpreadsFromZeroToTheCeiling() {
        var random = SeededRandom(seed: 7)
        let delays = (0..<2000).map { _ in Backoff().delay(attempt: 3, using: &random) }
        #expect(delays.allSatisfy { $0 >= .zero && $0 <= .seconds(8) })
        #expect(delays.min()! < .seconds(1) && delays.max()! > .seconds(7), "the whole range is used")
    }

    /// RFC 5626 section 4.5: 50 % to 100 % of min(max-time, base-time · 2^n), base 30 s when no flow
    /// works, 90 s when some do, max-time 1800 s.
    @Test func rfc5626FlowRecoveryWaitsBetweenHalfAndAllOfItsCeiling() {
        var random = SeededRandom(seed: 11)
        let none = Backoff.rfc5626(someFlowsWork: false)
        let some = Backoff.rfc5626(someFlowsWork: true)
        #expect(none.ceiling(attempt: 0) == .seconds(30) && none.ceiling(attempt: 2) == .seconds(120) && none.ceiling(attempt: 7) == .seconds(1800))
        #expect(some.ceiling(attempt: 0) == .seconds(90) && some.ceiling(attempt: 5) == .seconds(1800))
        let delays = (0..<2000).map { _ in none.delay(attempt: 1, using: &random) }
        #expect(delays.allSatisfy { $0 >= .seconds(30) && $0 <= .seconds(60) })
        #expect(delays.min()! < .seconds(31) && delays.max()! > .seconds(59))
        let exact = Backoff(jitter: .none).delay(attempt: 2, using: &random)
        #expect(exact == .seconds(4))
    }
}

struct TimerTableTests {
    enum Kind: Hashable, Sendable { case ring, refresh }

    @Test func aFiringFromAnEarlierArmingIsStale() {
        var table = TimerTable<Kind>()
        let first = table.arm(.ring)
        let second = table.arm(.ring)
        #expect(first != second)
        let staleFired = table.fire(first)
        let liveFired = table.fire(second)
        let againFired = table.fire(second)
        #expect(!staleFired, "re-armed: the first arming is stale")
        #expect(liveFired)
        #expect(!againFired, "consumed")
        #expect(!table.isArmed(.ring))
    }

    @Test func aDisarmedTimerThatFiresAnywayIsIgnored() {
        var table = TimerTable<Kind>()
        let ring = table.arm(.ring)
        _ = table.arm(.refresh)
        let disarmed = table.disarm(.ring)
        let disarmedAgain = table.disarm(.ring)
        let fired = table.fire(ring)
        #expect(disarmed == ring)
        #expect(disarmedAgain == nil)
        #expect(!fired)
        #expect(table.armedKinds == [.refresh])
        #expect(ring.description == "ring#1")
    }
}
