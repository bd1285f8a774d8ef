import AttendantCore
import AttendantPluginAPI
import AttendantPluginKit
import AttendantPluginTestKit
import Synchronization
import Testing

/// The supervisor's loop driven through the real plugin SPI with a scripted channel and a manual clock:
/// hours of cycles, timeouts and backoffs without sleeping.
@Suite struct ChannelSupervisorTests {
    final class Harness: Sendable {
        let clock = ManualClock()
        let host: InMemoryChannelHost
        let channel: ScriptedChannel
        let supervisor: ChannelSupervisor
        let statuses = StatusLog()

        init(
            tokens: (any TokenKeeper)? = nil,
            keepAliveInterval: Duration = .seconds(600),
            disconnectsInBackground: Bool = false,
            makeTokens: ((ManualClock, Logger) -> any TokenKeeper)? = nil
        ) {
            self.host = InMemoryChannelHost(channelName: "desk", clock: self.clock)
            self.channel = ScriptedChannel(host: self.host)
            var configuration = ChannelSupervisor.Configuration()
            configuration.callTimeout = .seconds(30)
            configuration.machine.keepAliveInterval = keepAliveInterval
            configuration.disconnectsInBackground = disconnectsInBackground
            let statuses = self.statuses
            self.supervisor = ChannelSupervisor(
                name: "desk",
                plugin: "scripted",
                channel: self.channel,
                tokens: tokens ?? makeTokens?(self.clock, self.host.logger) ?? NoTokenKeeper(channelName: "desk"),
                clock: self.clock,
                logger: self.host.logger,
                configuration: configuration,
                onStatus: { status in statuses.append(status) }
            )
        }

        func at(_ seconds: Int64) -> ManualClock.Instant { .init(offset: .seconds(seconds)) }

        var states: [ChannelStatus.State] { self.statuses.all.map(\.state) }

        func count(_ call: ScriptedChannel.Call) -> Int { self.channel.count { $0 == call } }
    }

    @Test func keepsAliveEvery600SecondsFor24SimulatedHours() async {
        let h = Harness()
        let run = Task { await h.supervisor.run() }
        for cycle in Int64(1)...144 {
            await h.clock.waitForSleeper(until: h.at(600 * cycle))
            h.clock.advance(by: .seconds(600))
            await h.channel.waitForCalls(atLeast: 1 + Int(cycle))
        }
        #expect(h.count(.keepAlive) == 144)
        #expect(h.count(.listen) == 1, "no listening gap: never had to listen again")
        h.supervisor.stop()
        await run.value
        #expect(h.channel.calls.last == .stopListening)
        #expect(h.supervisor.status.state == .stopped)
    }

    /// The channel's background work runs from the start for the channel's life and is cancelled when the
    /// supervisor stops.
    @Test func theChannelsOwnRunLastsAsLongAsTheChannel() async {
        let h = Harness()
        #expect(h.channel.runState == .notStarted)
        let run = Task { await h.supervisor.run() }
        await h.channel.waitForCalls(atLeast: 1)
        for _ in 0..<10_000 where h.channel.runState == .notStarted { await Task.yield() }
        #expect(h.channel.runState == .running)
        h.supervisor.stop()
        await run.value
        #expect(h.channel.runState == .ended)
    }

    /// A plugin whose background work does not end when cancelled is left behind after a grace, so it
    /// cannot hold the daemon's shutdown (a GMS chat's operation once waited for a reply that never came).
    @Test func aRunThatIgnoresCancellationDoesNotHoldTheStop() async {
        let h = Harness()
        let stubborn = StubbornChannel(h.channel)
        let supervisor = ChannelSupervisor(
            name: "desk",
            plugin: "scripted",
            channel: stubborn,
            tokens: NoTokenKeeper(channelName: "desk"),
            clock: h.clock,
            logger: h.host.logger,
            configuration: .init(),
            onStatus: { _ in }
        )
        let returned = Atomic(false)
        let run = Task {
            await supervisor.run()
            returned.store(true, ordering: .sequentiallyConsistent)
        }
        await h.channel.waitForCalls(atLeast: 1)
        supervisor.stop()
        // Only the test releases the channel's run(), after this: a supervisor that waited for it would
        // not return at all. The bound is generous; it keeps such a failure from hanging the suite.
        for _ in 0..<1200 where !returned.load(ordering: .sequentiallyConsistent) {
            try? await Task.sleep(for: .milliseconds(100))
        }
        let supervisorReturned = returned.load(ordering: .sequentiallyConsistent)
        stubborn.release.open()
        await run.value
        #expect(supervisorReturned, "the supervisor waited for its channel's run()")
        #expect(h.host.logRecords.text.contains("background work did not end within 1 s of being cancelled; leaving it behind"))
    }

    @Test func dropIsFollowedByListeningAgainAfterBackoff() async {
        let h = Harness()
        let run = Task { await h.supervisor.run() }
        await h.clock.waitForSleeper(until: h.at(600))
        h.supervisor.channelStoppedListening(ChannelError(.transient, "connection reset by peer"))
        await h.clock.waitForSleepers { $0.contains { $0.offset <= .seconds(1) } }
        #expect(h.supervisor.status.state == .recovering)
        #expect(h.supervisor.status.detail == "connection reset by peer")
        h.clock.advanceToNextDeadline()
        await h.channel.waitForCalls(atLeast: 2)
        #expect(h.count(.listen) == 2)
        h.supervisor.stop()
        await run.value
    }

    @Test func resumeRetriesWithoutWaitingForTheBackoff() async {
        let h = Harness()
        h.channel.script(listen: [.fail(ChannelError(.transient, "network unreachable"))])
        let run = Task { await h.supervisor.run() }
        await h.clock.waitForSleepers { $0.contains { $0.offset <= .seconds(1) } }  // the retry timer
        #expect(h.count(.listen) == 1)
        h.supervisor.resume()
        await h.channel.waitForCalls(atLeast: 2)
        #expect(h.count(.listen) == 2)
        h.supervisor.stop()
        await run.value
    }

    @Test func hungListenCountsAsATransientFailureAfterTheCallTimeout() async {
        let h = Harness()
        h.channel.script(listen: [.hang])
        let run = Task { await h.supervisor.run() }
        await h.clock.waitForSleeper(until: h.at(30))
        h.clock.advance(by: .seconds(30))
        await h.clock.waitForSleepers { deadlines in deadlines.contains { $0.offset <= .seconds(31) } && deadlines.count == 1 }
        #expect(h.supervisor.status.state == .recovering)
        #expect(h.supervisor.status.detail == "did not finish within 30 s")
        h.clock.advanceToNextDeadline()
        await h.channel.waitForCalls(atLeast: 2)
        await h.clock.waitForSleepers { $0.contains { $0.offset >= .seconds(630) } }
        #expect(h.supervisor.status.state == .listening)
        h.supervisor.stop()
        await run.value
    }

    @Test func refusedCredentialsRenewTheTokenAndListenAgain() async {
        let keeper = FixedTokenKeeper(token: ChannelToken(value: "fresh-token-value"))
        let h = Harness(tokens: keeper)
        h.channel.script(listen: [.fail(ChannelError(.authentication, "401 Unauthorized"))])
        let run = Task { await h.supervisor.run() }
        await h.clock.waitForSleeper(until: h.at(600))
        #expect(h.channel.calls == [.listen, .tokenDidChange(ChannelToken(value: "fresh-token-value")), .listen])
        #expect(h.supervisor.status.state == .listening)
        h.supervisor.stop()
        await run.value
    }

    @Test func withoutATokenSourceRefusedCredentialsMeanSignInNeeded() async {
        let h = Harness()
        h.channel.script(listen: [.fail(ChannelError(.authentication, "401 Unauthorized"))])
        let run = Task { await h.supervisor.run() }
        while h.supervisor.status.state != .failed { await Task.yield() }
        #expect(
            h.supervisor.status.detail
                == "sign-in needed: channel \"desk\" has no token source configured, so no new token can be had"
        )
        #expect(h.clock.sleeperCount == 0, "a failed channel sets no timers")
        await h.supervisor.ping()
        h.supervisor.stop()
        await run.value
    }

    @Test func statusGoesStartingListeningStoppingStopped() async {
        let h = Harness()
        let run = Task { await h.supervisor.run() }
        await h.clock.waitForSleeper(until: h.at(600))
        h.supervisor.stop()
        await run.value
        #expect(h.states == [.listening, .stopping, .stopped])
    }

    /// A chat closes its connection in the background: listening, it shows `background` there and
    /// `listening` again in the foreground. A channel that stays connected (voice) keeps `listening`.
    @Test(arguments: [true, false])
    func inTheBackgroundAChannelThatDisconnectsShowsBackground(disconnects: Bool) async {
        let h = Harness(disconnectsInBackground: disconnects)
        let run = Task { await h.supervisor.run() }
        await h.clock.waitForSleeper(until: h.at(600))
        await h.supervisor.setApplicationState(.background)
        await h.supervisor.ping()
        #expect(h.supervisor.status.state == (disconnects ? .background : .listening))
        await h.supervisor.setApplicationState(.foreground)
        await h.supervisor.ping()
        #expect(h.supervisor.status.state == .listening)
        h.supervisor.stop()
        await run.value
        #expect(h.states == (disconnects ? [.listening, .background, .listening, .stopping, .stopped] : [.listening, .stopping, .stopped]))
    }
}

struct FixedTokenKeeper: TokenKeeper {
    let token: ChannelToken
    func current() async -> ChannelToken? { self.token }
    func renew() async throws -> ChannelToken { self.token }
}

final class StatusLog: Sendable {
    private let entries = Mutex<[ChannelStatus]>([])
    func append(_ status: ChannelStatus) { self.entries.withLock { $0.append(status) } }
    var all: [ChannelStatus] { self.entries.withLock { $0 } }
}

/// A channel whose `run()` waits for its latch whether cancelled or not.
final class StubbornChannel: Channel {
    let wrapped: ScriptedChannel
    let release = Latch()

    init(_ wrapped: ScriptedChannel) { self.wrapped = wrapped }

    func run() async { await self.release.wait() }

    func listen() async throws { try await self.wrapped.listen() }
    func stopListening() async { await self.wrapped.stopListening() }
    func keepAlive() async throws { try await self.wrapped.keepAlive() }
}
