import AttendantCore
import AttendantPluginAPI
import AttendantPluginKit
import TestSupport
import Testing

@Suite struct SupervisorStateMachineTests {
    typealias Machine = SupervisorStateMachine<SeededRandom>
    let transient = ChannelError(.transient, "connection refused")
    let refused = ChannelError(.authentication, "401 Unauthorized")

    func machine() -> Machine {
        var configuration = Machine.Configuration()
        configuration.keepAliveInterval = .seconds(600)
        return Machine(configuration: configuration, random: SeededRandom())
    }

    @Test func startListenThenKeepAliveEveryCycle() {
        var m = self.machine()
        #expect(m.start() == .listen)
        #expect(m.listenSucceeded(now: .seconds(1)) == .wakeUp(at: .seconds(601)))
        #expect(m.timerFired(now: .seconds(300)) == .none, "an early timer is ignored")
        #expect(m.timerFired(now: .seconds(601)) == .keepAlive)
        #expect(m.keepAliveSucceeded(now: .seconds(602)) == .wakeUp(at: .seconds(1202)))
        #expect(m.state == .listening(since: .seconds(1), keepAliveAt: .seconds(1202)))
    }

    @Test func aKeepAliveMayRunUpTo15PercentEarlyAndARetryNever() {
        var m = self.machine()
        _ = m.start()
        #expect(m.wakeUpTolerance == nil, "no timer while starting")
        #expect(m.listenSucceeded(now: .seconds(1)) == .wakeUp(at: .seconds(601)))
        #expect(m.wakeUpTolerance == .seconds(90))
        #expect(m.timerFired(now: .seconds(510)) == .none, "earlier than the tolerance")
        // The daemon was awake at 540 s for the channel's own refresh: the keep-alive shares that wake-up.
        #expect(m.timerFired(now: .seconds(540)) == .keepAlive)
        #expect(m.keepAliveSucceeded(now: .seconds(541)) == .wakeUp(at: .seconds(1141)))

        guard case .wakeUp = m.stoppedListening(self.transient, now: .seconds(700)) else {
            Issue.record("a lost channel waits to retry")
            return
        }
        #expect(m.wakeUpTolerance == nil, "a retry keeps its delay")
    }

    @Test func transientFailuresBackOffWithFullJitterUnderTheCeiling() {
        var m = self.machine()
        _ = m.start()
        var now = Duration.zero
        var previousCeiling = Duration.zero
        for attempt in 0..<12 {
            guard case .wakeUp(let until) = m.listenFailed(self.transient, now: now) else {
                Issue.record("expected a retry timer")
                return
            }
            let ceiling = m.configuration.backoff.ceiling(attempt: attempt)
            #expect(until - now <= ceiling)
            #expect(ceiling >= previousCeiling)
            previousCeiling = ceiling
            now = until
            #expect(m.timerFired(now: now) == .listen)
        }
        #expect(previousCeiling == .seconds(300), "the ceiling is capped at 5 minutes")
    }

    @Test func stoppedListeningWhileTokenValidRetriesListening() {
        var m = self.machine()
        _ = m.start()
        _ = m.listenSucceeded(now: .zero)
        guard case .wakeUp(let until) = m.stoppedListening(self.transient, now: .seconds(700)) else {
            Issue.record("expected a retry timer")
            return
        }
        #expect(until <= .seconds(701))
        #expect(m.timerFired(now: until) == .listen)
        #expect(m.listenSucceeded(now: until) == .wakeUp(at: until + .seconds(600)))
    }

    @Test func authenticationErrorRenewsTheTokenOnceThenAsksToSignIn() {
        var m = self.machine()
        _ = m.start()
        _ = m.listenSucceeded(now: .zero)
        #expect(m.stoppedListening(self.refused, now: .seconds(700)) == .renewToken)
        #expect(m.tokenRenewed(now: .seconds(701)) == .listen)
        let action = m.listenFailed(self.refused, now: .seconds(702))
        #expect(action == .giveUp(.init(reason: .signInNeeded, error: self.refused)))
        guard case .failed = m.state else {
            Issue.record("expected failed, got \(m.state)")
            return
        }
    }

    @Test func failedRenewalAsksToSignIn() {
        var m = self.machine()
        _ = m.start()
        #expect(m.listenFailed(self.refused, now: .zero) == .renewToken)
        let noToken = ChannelError(.authentication, "token command exited 1")
        #expect(m.tokenRenewalFailed(noToken, now: .seconds(1)) == .giveUp(.init(reason: .signInNeeded, error: noToken)))
    }

    @Test func renewalIsAllowedAgainAfterListeningSucceeded() {
        var m = self.machine()
        _ = m.start()
        #expect(m.listenFailed(self.refused, now: .zero) == .renewToken)
        #expect(m.tokenRenewed(now: .seconds(1)) == .listen)
        _ = m.listenSucceeded(now: .seconds(2))
        #expect(m.stoppedListening(self.refused, now: .seconds(4000)) == .renewToken)
    }

    @Test func configurationErrorsStopWithoutRetrying() {
        var m = self.machine()
        _ = m.start()
        let bad = ChannelError(.configuration, "token has no incoming capability")
        #expect(m.listenFailed(bad, now: .zero) == .giveUp(.init(reason: .configuration, error: bad)))
        #expect(m.timerFired(now: .seconds(10_000)) == .none)
        #expect(m.start() == .listen, "a restart (reload, user action) tries again")
    }

    @Test func quickDropsPutTheChannelOnProbationWithSlowerRetries() {
        var m = self.machine()
        _ = m.start()
        var now = Duration.zero
        for drop in 1...3 {
            _ = m.listenSucceeded(now: now)
            now += .seconds(5)
            guard case .wakeUp(let until) = m.stoppedListening(self.transient, now: now) else {
                Issue.record("expected a retry")
                return
            }
            #expect(m.onProbation == (drop >= 3))
            if drop == 3 {
                #expect(until - now <= .seconds(30))
            }
            now = until
            #expect(m.timerFired(now: now) == .listen)
        }
        // Listening longer than the probation window ends probation at the next drop.
        _ = m.listenSucceeded(now: now)
        now += .seconds(3600)
        _ = m.stoppedListening(self.transient, now: now)
        #expect(!m.onProbation)
    }

    @Test func resumeRetriesAtOnceInsteadOfWaitingForTheBackoff() {
        var m = self.machine()
        _ = m.start()
        for _ in 0..<8 {
            _ = m.listenFailed(self.transient, now: .zero)
            _ = m.resumed(now: .zero)
        }
        _ = m.listenFailed(self.transient, now: .seconds(1))
        #expect(m.resumed(now: .seconds(2)) == .listen)
        #expect(m.resumed(now: .seconds(2)) == .none, "only a waiting channel is hurried")
    }

    @Test func aNetworkChangeRetriesAWaitingChannelAndChecksAListeningOne() {
        var m = self.machine()
        _ = m.start()
        #expect(m.networkChanged(now: .zero) == .none, "a listen in progress is left to finish")
        _ = m.listenFailed(self.transient, now: .zero)
        #expect(m.networkChanged(now: .seconds(1)) == .listen, "the backoff is not waited out")
        #expect(m.listenSucceeded(now: .seconds(2)) == .wakeUp(at: .seconds(602)))
        #expect(m.networkChanged(now: .seconds(3)) == .keepAlive, "a listening channel checks its connection now")
        #expect(m.state == .keepingAlive(since: .seconds(2)))
        #expect(m.timerFired(now: .seconds(602)) == .none, "the cycle's timer does not start a second keep-alive")
        #expect(m.keepAliveSucceeded(now: .seconds(4)) == .wakeUp(at: .seconds(604)))
        #expect(m.state == .listening(since: .seconds(2), keepAliveAt: .seconds(604)))
    }

    /// A drop within seconds of a network change is retried at once: the connection did not survive the
    /// change and the network is up (DESIGN.md: retry immediately on resume or network change). The
    /// campaign's drops had voice wait up to the backoff's second first. A server's Retry-After still holds.
    @Test func aDropRightAfterANetworkChangeIsRetriedAtOnce() {
        var m = self.machine()
        _ = m.start()
        _ = m.listenSucceeded(now: .zero)
        #expect(m.networkChanged(now: .seconds(100)) == .keepAlive)
        _ = m.keepAliveSucceeded(now: .seconds(100))
        #expect(m.stoppedListening(self.transient, now: .milliseconds(100_004)) == .wakeUp(at: .milliseconds(100_004)))
        #expect(m.timerFired(now: .milliseconds(100_004)) == .listen)
        _ = m.listenSucceeded(now: .seconds(101))

        let busy = ChannelError(.transient, "503 Service Unavailable", retryAfter: .seconds(20))
        #expect(m.stoppedListening(busy, now: .seconds(102)) == .wakeUp(at: .seconds(122)), "the server's delay holds")
    }

    /// A channel's own delay under a second is its jitter for spreading a fleet (SIP's first probe of a
    /// registrar that closed the connection waits 0.25 to 0.5 s), not a server's request: every server delay
    /// here comes in whole seconds. After the desk's own network change no fleet comes back with it, so the
    /// retry comes at once. The full-size campaign's voice waited out that jitter in all 66 retries.
    @Test func aChannelsSubSecondDelayGivesWayToTheRetryAtOnceAfterANetworkChange() {
        var m = self.machine()
        _ = m.start()
        _ = m.listenSucceeded(now: .zero)
        #expect(m.networkChanged(now: .seconds(100)) == .keepAlive)
        let probe = ChannelError(.transient, "the registrar closed the connection", retryAfter: .milliseconds(425))
        #expect(m.keepAliveFailed(probe, now: .milliseconds(100_006)) == .wakeUp(at: .milliseconds(100_006)))
        #expect(m.timerFired(now: .milliseconds(100_006)) == .listen)
        _ = m.listenSucceeded(now: .seconds(101))

        // Away from a network change the channel's delay holds, however short.
        #expect(m.stoppedListening(probe, now: .seconds(200)) == .wakeUp(at: .milliseconds(200_425)))
        _ = m.timerFired(now: .milliseconds(200_425))
        _ = m.listenSucceeded(now: .seconds(201))
        // And a server's delay of a second holds right after one.
        _ = m.networkChanged(now: .seconds(300))
        _ = m.keepAliveSucceeded(now: .seconds(300))
        let server = ChannelError(.transient, "503 Service Unavailable", retryAfter: .seconds(1))
        #expect(m.stoppedListening(server, now: .seconds(301)) == .wakeUp(at: .seconds(302)))
    }

    /// A drop soon after the network changed is the change's doing (a server that forgot the client while
    /// the link was down): it does not put the channel on probation, whose retries would come 30 s and
    /// more apart (issue 34's campaign: 15 to 27 s until voice listened again after such drops).
    @Test func dropsRightAfterNetworkChangesAreNoQuickDrops() {
        var m = self.machine()
        _ = m.start()
        var now = Duration.zero
        for _ in 1...5 {
            _ = m.listenSucceeded(now: now)
            now += .seconds(5)
            #expect(m.networkChanged(now: now) == .keepAlive)
            now += .seconds(1)
            guard case .wakeUp(let until) = m.keepAliveFailed(self.transient, now: now) else {
                Issue.record("expected a retry")
                return
            }
            #expect(!m.onProbation)
            #expect(until - now <= .seconds(1), "the first step of the backoff")
            now = until
            #expect(m.timerFired(now: now) == .listen)
        }
        // Long after the change, quick drops count again.
        for _ in 1...3 {
            _ = m.listenSucceeded(now: now)
            now += .seconds(40)
            guard case .wakeUp(let until) = m.stoppedListening(self.transient, now: now) else { return }
            now = until
            _ = m.timerFired(now: now)
        }
        #expect(m.onProbation)
    }

    @Test func stopFromAnyActiveStateStopsListening() {
        var m = self.machine()
        #expect(m.stop() == .none)
        _ = m.start()
        #expect(m.stop() == .stopListening)
        #expect(m.listenSucceeded(now: .zero) == .none, "a late listen result after stop is ignored")
        m.stopCompleted()
        #expect(m.state == .stopped)
    }

    @Test func staleResultsAreIgnored() {
        var m = self.machine()
        #expect(m.keepAliveSucceeded(now: .zero) == .none)
        #expect(m.tokenRenewed(now: .zero) == .none)
        #expect(m.stoppedListening(self.transient, now: .zero) == .none)
        _ = m.start()
        #expect(m.stoppedListening(self.transient, now: .zero) == .none, "the listen call's result decides")
    }
}
