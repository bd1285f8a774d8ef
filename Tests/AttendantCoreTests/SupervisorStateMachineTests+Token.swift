import AttendantCore
import AttendantPluginAPI
import Testing

/// The keep-alive cycle's token check (issue 4, item 2) and what new tokens do to a channel.
extension SupervisorStateMachineTests {
    @Test func keepAliveRenewsFirstWhenTheTokenWouldNotOutliveTheNextCycle() {
        var m = self.machine()
        _ = m.start()
        _ = m.listenSucceeded(now: .zero)
        // Plenty of time left: keep alive at once.
        #expect(m.timerFired(now: .seconds(600), tokenLifetime: .seconds(3000)) == .keepAlive)
        #expect(m.keepAliveSucceeded(now: .seconds(601)) == .wakeUp(at: .seconds(1201)))
        // Exactly one cycle left is not enough: the token must outlive the next cycle.
        #expect(m.timerFired(now: .seconds(1201), tokenLifetime: .seconds(600)) == .renewToken)
        #expect(m.state == .renewingBeforeKeepAlive(since: .zero))
        #expect(m.tokenRenewed(now: .seconds(1202)) == .keepAlive)
        #expect(m.state == .keepingAlive(since: .zero), "no listen again: no gap")
        #expect(m.keepAliveSucceeded(now: .seconds(1203)) == .wakeUp(at: .seconds(1803)))
    }

    @Test func aFailedRenewalBeforeTheKeepAliveStillKeepsAlive() {
        var m = self.machine()
        _ = m.start()
        _ = m.listenSucceeded(now: .zero)
        #expect(m.timerFired(now: .seconds(600), tokenLifetime: .seconds(200)) == .renewToken)
        let down = ChannelError(.authentication, "token URL https://tokens.example/desk: Connection refused")
        #expect(m.tokenRenewalFailed(down, now: .seconds(601)) == .keepAlive, "the token held is still valid: the server judges")
        #expect(m.state == .keepingAlive(since: .zero))
    }

    @Test func anExpiredTokenIsRenewedBeforeTheKeepAliveAndWithoutALifetimeNothingIsChecked() {
        var m = self.machine()
        _ = m.start()
        _ = m.listenSucceeded(now: .zero)
        #expect(m.timerFired(now: .seconds(600), tokenLifetime: .seconds(-30)) == .renewToken)
        _ = m.tokenRenewed(now: .seconds(601))
        _ = m.keepAliveSucceeded(now: .seconds(602))
        #expect(m.timerFired(now: .seconds(1202), tokenLifetime: nil) == .keepAlive, "opaque token or no token source")
    }

    @Test func aNewTokenBringsBackAChannelThatNeededASignIn() {
        var m = self.machine()
        _ = m.start()
        #expect(m.listenFailed(self.refused, now: .zero) == .renewToken)
        let none = ChannelError(.authentication, "token command /usr/bin/get-token exited with status 1: not signed in")
        #expect(m.tokenRenewalFailed(none, now: .seconds(1)) == .giveUp(.init(reason: .signInNeeded, error: none)))
        #expect(m.tokenChanged(now: .seconds(900)) == .listen)
        #expect(m.state == .starting(attempt: 0))
        // Refused again with the fresh token: sign-in needed at once, no renewal loop.
        #expect(m.listenFailed(self.refused, now: .seconds(901)) == .giveUp(.init(reason: .signInNeeded, error: self.refused)))
        #expect(m.tokenChanged(now: .seconds(950)) == .listen)
        _ = m.listenSucceeded(now: .seconds(951))
        #expect(m.tokenChanged(now: .seconds(960)) == .none, "a listening channel just uses the new token")
    }

    @Test func aTokenWithoutIncomingCapabilityIsAConfigurationFailure() {
        var m = self.machine()
        _ = m.start()
        #expect(m.listenFailed(self.refused, now: .zero) == .renewToken)
        let capability = ChannelError(.configuration, "the token from token command /usr/bin/get-token has no incoming capability: …")
        #expect(m.tokenRenewalFailed(capability, now: .seconds(1)) == .giveUp(.init(reason: .configuration, error: capability)))
        #expect(m.tokenChanged(now: .seconds(2)) == .none, "only a sign-in failure waits for a token")
    }
}
