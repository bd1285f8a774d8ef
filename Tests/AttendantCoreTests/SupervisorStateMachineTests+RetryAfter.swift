import AttendantCore
import AttendantPluginAPI
import TestSupport
import Testing

/// A channel's own retry delay (a server's Retry-After, its probing of a silent server) decides when
/// `listen()` runs again, instead of the backoff; probation still slows a channel that keeps dropping.
@Suite struct SupervisorRetryAfterTests {
    typealias Machine = SupervisorStateMachine<SeededRandom>

    @Test func aRetryAfterIsWaitedExactlyAtEveryAttempt() {
        var m = Machine(configuration: .init(), random: SeededRandom())
        _ = m.start()
        var now = Duration.zero
        let busy = ChannelError(.transient, "503 Service Unavailable", retryAfter: .seconds(20))
        for _ in 0..<6 {
            #expect(m.listenFailed(busy, now: now) == .wakeUp(at: now + .seconds(20)), "never sooner, and no backoff on top")
            now += .seconds(20)
            #expect(m.timerFired(now: now) == .listen)
        }
        // A probe delay the channel asks for after attempts that grew the backoff past it.
        let silent = ChannelError(.transient, "nothing answers", retryAfter: .seconds(3))
        #expect(m.listenFailed(silent, now: now) == .wakeUp(at: now + .seconds(3)))
    }

    @Test func aRetryAfterOfNothingOrOfDaysIsKeptInItsRange() {
        var m = Machine(configuration: .init(), random: SeededRandom())
        _ = m.start()
        #expect(m.listenFailed(ChannelError(.transient, "503", retryAfter: .zero), now: .zero) == .wakeUp(at: .milliseconds(250)), "no tight loop")
        #expect(m.timerFired(now: .milliseconds(250)) == .listen)
        #expect(m.listenFailed(ChannelError(.transient, "503", retryAfter: .seconds(4_294_967_295)), now: .seconds(1)) == .wakeUp(at: .seconds(3601)))
    }

    @Test func onProbationTheSlowerBackoffStillApplies() {
        var m = Machine(configuration: .init(), random: SeededRandom())
        _ = m.start()
        var now = Duration.zero
        let quick = ChannelError(.transient, "dropped", retryAfter: .seconds(1))
        for _ in 1...3 {
            _ = m.listenSucceeded(now: now)
            now += .seconds(5)
            guard case .wakeUp(let until) = m.stoppedListening(quick, now: now) else {
                Issue.record("expected a retry")
                return
            }
            now = until
            _ = m.timerFired(now: now)
        }
        #expect(m.onProbation)
        _ = m.listenSucceeded(now: now)
        guard case .wakeUp(let until) = m.stoppedListening(ChannelError(.transient, "dropped", retryAfter: .seconds(40)), now: now + .seconds(1))
        else {
            Issue.record("expected a retry")
            return
        }
        #expect(until - (now + .seconds(1)) >= .seconds(40), "at least what the channel asked")
    }
}
