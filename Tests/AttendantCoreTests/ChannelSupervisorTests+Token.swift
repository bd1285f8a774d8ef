import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import TestSupport
import Testing

/// The supervisor with a real ``TokenManager``: renewals reach the channel while it keeps listening.
extension ChannelSupervisorTests {
    static func manager(
        _ source: ScriptedTokenSource,
        renewAt: Double = 0.9,
        renewBefore: Duration = .seconds(60)
    ) -> (ManualClock, Logger) -> any TokenKeeper {
        { clock, logger in
            var settings = TokenSettings(source: .command(["/usr/local/bin/scripted"]))
            settings.renewAt = renewAt
            settings.renewBefore = renewBefore
            return TokenManager(
                channelName: "desk",
                settings: settings,
                source: source,
                clock: clock,
                wallClock: { clock.unixTime() },
                logger: logger,
                random: SeededRandom()
            )
        }
    }

    /// The calls as words, tokens by value: `listen`, `token:<value>`, `keepAlive`.
    static func trace(_ calls: some Sequence<ScriptedChannel.Call>) -> [String] {
        calls.map { call in
            switch call {
            case .tokenDidChange(let token): "token:\(token.value)"
            case .listen: "listen"
            case .keepAlive: "keepAlive"
            default: "\(call)"
            }
        }
    }

    static func jwt(_ clock: ManualClock, issued: Double, lifetime: Double) -> String {
        TestJWT.capability(issuedAt: clock.epoch.secondsSince1970 + issued, lifetime: lifetime)
    }

    @Test func theKeepAliveCycleRenewsATokenThatWouldNotOutliveTheNextCycle() async {
        let source = ScriptedTokenSource()
        // The keeper's own schedule (99 % of 15 minutes) comes after the keep-alive: the cycle renews.
        let h = Harness(makeTokens: Self.manager(source, renewAt: 0.99, renewBefore: .zero))
        let first = Self.jwt(h.clock, issued: 0, lifetime: 900)
        let second = Self.jwt(h.clock, issued: 600, lifetime: 900)
        source.script(.token(first), .token(second))
        let run = Task { await h.supervisor.run() }
        await h.clock.waitForSleeper(until: h.at(600))
        await h.channel.waitForCalls(atLeast: 2)
        #expect(Set(Self.trace(h.channel.calls)) == ["listen", "token:\(first)"])
        h.clock.advance(by: .seconds(600))
        await h.channel.waitForCalls(atLeast: 4)
        #expect(Self.trace(h.channel.calls.dropFirst(2)) == ["token:\(second)", "keepAlive"], "renewed first, then kept alive")
        #expect(source.fetches == 2)
        #expect(h.count(.listen) == 1, "no listening gap")
        #expect(!h.states.contains(.recovering))
        #expect(h.host.logRecords.text.contains("the token expires in 300 s, before the next keep-alive cycle ends: renewing it first"))
        #expect(h.host.logRecords.text.contains("token renewed before the keep-alive"))
        h.supervisor.stop()
        await run.value
    }

    @Test func aScheduledRenewalReachesTheListeningChannel() async {
        let source = ScriptedTokenSource()
        let h = Harness(keepAliveInterval: .seconds(7200), makeTokens: Self.manager(source))
        let first = Self.jwt(h.clock, issued: 0, lifetime: 3600)
        let second = Self.jwt(h.clock, issued: 3240, lifetime: 3600)
        source.script(.token(first), .token(second))
        let run = Task { await h.supervisor.run() }
        await h.clock.waitForSleeper(until: h.at(3240))
        await h.channel.waitForCalls(atLeast: 2)
        h.clock.advance(by: .seconds(3240))
        await h.channel.waitForCalls(atLeast: 3)
        #expect(Self.trace(h.channel.calls).last == "token:\(second)")
        #expect(h.count(.listen) == 1 && h.supervisor.status.state == .listening)
        h.supervisor.stop()
        await run.value
    }

    @Test func signInNeededUntilTheSourceGivesATokenAgainThenListening() async {
        let source = ScriptedTokenSource()  // fails until scripted
        let h = Harness(makeTokens: Self.manager(source))
        h.channel.script(listen: [.fail(ChannelError(.authentication, "401 Unauthorized"))])
        let run = Task { await h.supervisor.run() }
        while h.supervisor.status.state != .failed { await Task.yield() }
        #expect(h.supervisor.status.detail == "sign-in needed: token command /usr/local/bin/scripted: script ran out")
        let token = Self.jwt(h.clock, issued: 5, lifetime: 3600)
        source.script(.token(token))
        // The keeper keeps trying on its own, with backoff; the next attempt succeeds.
        while h.supervisor.status.state != .listening {
            await h.clock.waitForSleepers(atLeast: 1)
            h.clock.advanceToNextDeadline()
            await h.supervisor.ping()
        }
        #expect(Self.trace(h.channel.calls.suffix(2)) == ["token:\(token)", "listen"])
        #expect(h.host.logRecords.text.contains("a new token arrived: listening again"))
        h.supervisor.stop()
        await run.value
    }
}
