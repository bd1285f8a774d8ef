import AttendantPluginAPI
import SIPCore
import Testing

/// When a registrar is tried again: its Retry-After, probes of one that does not answer, or the host's backoff.
@Suite struct RegistrationRetryTests {
    @Test func retryAfterWinsAndAnAnsweringFailureLeavesTheDelayToTheHost() throws {
        var retry = RegistrationRetry()
        var random = SeededGenerator(seed: 9)
        let waited = try #require(retry.delay(statusCode: 503, retryAfter: 20, using: &random))
        #expect(waited >= .seconds(20) && waited < .seconds(40), "never sooner than asked: \(waited)")
        #expect(retry.delay(statusCode: 404, retryAfter: nil, using: &random) == nil, "not a server error: the host's backoff")
        #expect(retry.probes == 0)
    }

    /// A registrar that answers 5xx without Retry-After is up but refusing: waits of up to 30 s, doubling
    /// to up to 5 minutes, at random, so a turned-away fleet spreads out (Benchmarks/FleetModel: the
    /// retries after a mass resume peaked at 10.9 × their mean with the host's 1-s backoff, 2.1 × now).
    @Test func aServerErrorWithoutRetryAfterIsRetriedWithinAWideningRandomWait() throws {
        var random = SeededGenerator(seed: 13)
        var first: Set<Int64> = []
        for _ in 0..<100 {
            var retry = RegistrationRetry()
            let delay = try #require(retry.delay(statusCode: 503, retryAfter: nil, using: &random))
            #expect(delay <= .seconds(30))
            first.insert(delay.components.seconds)
        }
        #expect(first.count > 20, "spread over the 30 s: \(first.count) distinct seconds")
        var retry = RegistrationRetry()
        let ceilings: [Duration] = [.seconds(30), .seconds(60), .seconds(120), .seconds(240), .seconds(300), .seconds(300)]
        for ceiling in ceilings {
            let delay = try #require(retry.delay(statusCode: 500, retryAfter: nil, using: &random))
            #expect(delay <= ceiling, "\(delay) within \(ceiling)")
        }
        #expect(retry.refusals == 6)
        retry.registered()
        #expect(retry.refusals == 0)
    }

    /// A fleet refused by an overloaded registrar with the same Retry-After must not come back in the same
    /// second (Benchmarks/FleetModel: waited exactly, 10,000 desks took 49 minutes to register again).
    @Test func aRetryAfterIsSpreadOverAsLongAgainSoAFleetDoesNotReturnAtOnce() throws {
        var random = SeededGenerator(seed: 11)
        var delays: Set<Duration> = []
        for _ in 0..<200 {
            var retry = RegistrationRetry()
            let delay = try #require(retry.delay(statusCode: 503, retryAfter: 60, using: &random))
            #expect(delay >= .seconds(60) && delay <= .seconds(120), "\(delay)")
            delays.insert(.seconds(delay.components.seconds))
        }
        #expect(delays.count > 40, "spread over the minute after the one asked: \(delays.count) distinct seconds")
    }

    /// After a minute of silence the probes slow down to one every 1-2 minutes, so a fleet does not flood a
    /// registrar that is down for long (Benchmarks/FleetModel: 10,000 desks probing every 2-4 s sent 3,361
    /// REGISTERs a second at a registrar that takes 200 once it came back).
    @Test func aRegistrarSilentForLongIsProbedLessOftenUpToTwoMinutesApart() throws {
        var retry = RegistrationRetry()
        var random = SeededGenerator(seed: 12)
        var ceilings: [Double] = []
        for _ in 0..<30 {
            let delay = try #require(retry.delay(statusCode: nil, retryAfter: nil, using: &random))
            ceilings.append(Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
        }
        #expect(ceilings.prefix(16).allSatisfy { $0 <= 4 }, "the first minute's probes: \(ceilings.prefix(16))")
        let later: [ClosedRange<Double>] = [4...8, 8...16, 16...32, 32...64, 60...120, 60...120]
        for (seconds, range) in zip(ceilings.dropFirst(16), later) {
            #expect(range.contains(seconds), "\(seconds) s, expected within \(range)")
        }
        #expect(ceilings.allSatisfy { $0 <= 120 })
        retry.registered()
        #expect(try #require(retry.delay(statusCode: nil, retryAfter: nil, using: &random)) <= .milliseconds(500), "quick again once registered")
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
