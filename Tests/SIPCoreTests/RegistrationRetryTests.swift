import AttendantPluginAPI
import SIPCore
import Testing

/// When a registrar is tried again: its Retry-After, probes of one that does not answer, or the host's backoff.
@Suite struct RegistrationRetryTests {
    @Test func retryAfterWinsAndAnAnsweringFailureLeavesTheDelayToTheHost() {
        var retry = RegistrationRetry()
        var random = SeededGenerator(seed: 9)
        #expect(retry.delay(statusCode: 503, retryAfter: 20, using: &random) == .seconds(20))
        #expect(retry.delay(statusCode: 503, retryAfter: nil, using: &random) == nil)
        #expect(retry.delay(statusCode: 500, retryAfter: nil, using: &random) == nil)
        #expect(retry.probes == 0)
    }

    @Test func aSilentRegistrarIsProbedSoonAndNeverLaterThanTheCeilingUntilItRegisters() throws {
        var retry = RegistrationRetry()
        var random = SeededGenerator(seed: 10)
        var delays: [Duration] = []
        for statusCode in [nil, 408, nil, nil, nil, nil, nil, nil, nil, nil] as [Int?] {
            delays.append(try #require(retry.delay(statusCode: statusCode, retryAfter: nil, using: &random)))
        }
        #expect(retry.probes == 10)
        // Each wait is half to all of 0.5, 1, 2, 4, 4, … seconds.
        let ceilings: [Double] = [0.5, 1, 2, 4, 4, 4, 4, 4, 4, 4]
        for (delay, ceiling) in zip(delays, ceilings) {
            let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
            #expect(seconds >= ceiling / 2 && seconds <= ceiling, "\(delay) for a ceiling of \(ceiling) s")
        }
        retry.registered()
        #expect(retry.probes == 0)
        let first = try #require(retry.delay(statusCode: nil, retryAfter: nil, using: &random))
        #expect(first <= .milliseconds(500))
    }

    @Test func eachFailureClassTellsTheHostWhatToDo() {
        #expect(RegistrationError(.authentication, "403").channelErrorCode == .authentication)
        #expect(RegistrationError(.configuration, "bad").channelErrorCode == .configuration)
        #expect(RegistrationError(.transient, "timeout").channelErrorCode == .transient)
    }
}

/// What the host's keep-alive does with a registered binding.
@Suite struct RegistrationKeepAliveTests {
    static let registered = UnixTime(secondsSince1970: 1_800_000_000)

    static func decide(after seconds: Double, credentialsExpiry: Int64? = nil) -> RegistrationKeepAlive {
        RegistrationKeepAlive.decide(
            now: UnixTime(secondsSince1970: 1_800_000_000 + seconds), registeredAt: Self.registered, grantedExpires: 600,
            credentialsExpiry: credentialsExpiry, cycle: 600
        )
    }

    @Test func aBindingYoungerThanHalfItsLifeIsFreshAndAnOlderOneIsRefreshed() {
        #expect(Self.decide(after: 60) == .fresh)
        #expect(Self.decide(after: 299) == .fresh)
        #expect(Self.decide(after: 300) == .refresh)
        #expect(
            RegistrationKeepAlive.decide(now: Self.registered, registeredAt: nil, grantedExpires: 600, credentialsExpiry: nil, cycle: 600) == .refresh,
            "never registered"
        )
    }

    @Test func ephemeralCredentialsThatWouldNotOutliveTheNextCycleAreRenewedFirst() {
        // They expire 1,199 s from now: less than two cycles.
        #expect(Self.decide(after: 1, credentialsExpiry: 1_800_001_200) == .renewCredentials)
        // A day left: the binding's age decides.
        #expect(Self.decide(after: 1, credentialsExpiry: 1_800_086_400) == .fresh)
        #expect(Self.decide(after: 400, credentialsExpiry: 1_800_086_400) == .refresh)
    }
}
