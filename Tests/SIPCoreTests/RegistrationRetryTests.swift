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
