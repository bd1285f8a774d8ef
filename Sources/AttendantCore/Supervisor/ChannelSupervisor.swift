package import AttendantPluginAPI
import Synchronization

/// Drives one channel with a ``SupervisorStateMachine``: calls the channel, keeps the timer, feeds the
/// results back, and publishes the channel's ``ChannelStatus``.
///
/// Its loop never waits on the channel: every channel call runs in a task of its own (with a time
/// limit) and reports back as an input, so a hung plugin cannot stall the loop, and the daemon's
/// watchdog ping (``ping()``) proves the loop is alive.
///
/// Beside the loop runs the token keeper's schedule; each token it renews is handed to the channel
/// (``Channel/tokenDidChange(_:)``, between the channel's other calls) while the channel keeps
/// listening. A token the channel already has (it asked the host for it) is not handed over again.
package final class ChannelSupervisor: Sendable {
    package let name: String
    package let plugin: String
    private let channel: any Channel
    private let tokens: any TokenKeeper
    private let logger: Logger
    private let timekeeper: Timekeeper
    private let configuration: Configuration
    private let onStatus: @Sendable (ChannelStatus) -> Void
    private let metrics: DaemonMetrics
    private let inputs: AsyncStream<Input>
    private let continuation: AsyncStream<Input>.Continuation
    private let latestStatus: Mutex<ChannelStatus>
    /// Serialises the channel's methods (all but `perform`).
    private let gate = SerialGate()
    /// The token the channel has last seen (handed over, or asked the host for).
    private let channelToken = Mutex<ChannelToken?>(nil)
    /// The session's application state as the channel last handled it.
    private let applicationState = Mutex(ApplicationState.foreground)
    /// Channel methods called and not yet returned (``callsInFlight``).
    private let inFlight = Atomic<Int>(0)

    package init(
        name: String,
        plugin: String,
        channel: any Channel,
        tokens: any TokenKeeper,
        clock: any Clock<Duration>,
        logger: Logger,
        configuration: Configuration,
        metrics: DaemonMetrics = DaemonMetrics(),
        onStatus: @escaping @Sendable (ChannelStatus) -> Void
    ) {
        self.name = name
        self.plugin = plugin
        self.channel = channel
        self.tokens = tokens
        self.logger = logger
        self.timekeeper = Timekeeper(clock)
        self.configuration = configuration
        self.onStatus = onStatus
        self.metrics = metrics
        (self.inputs, self.continuation) = AsyncStream.makeStream()
        self.latestStatus = Mutex(ChannelStatus(name: name, plugin: plugin, state: .starting))
    }

    /// The channel's current status.
    package var status: ChannelStatus { self.latestStatus.withLock { $0 } }

    /// How many of the supervisor's `listen()` and `keepAlive()` calls are under way, from the moment the
    /// loop starts one, including its wait for the channel's other calls.
    /// A test on a manual clock must not move the clock while one is: the call's time limit would pass
    /// before the call has even reached the channel.
    package var callsInFlight: Int { self.inFlight.load(ordering: .acquiring) }

    // MARK: Inputs from outside the loop

    /// The channel reported that it stopped listening.
    package func channelStoppedListening(_ error: ChannelError) {
        self.continuation.yield(.stoppedListening(error))
    }

    /// Retry now rather than after the backoff (resume from sleep, network back).
    package func resume() { self.continuation.yield(.resume) }

    /// The network came back or changed: retry now, or check the connection now.
    package func networkChanged() { self.continuation.yield(.networkChanged) }

    /// Tells the channel that the session went to the background or came back; returns once the
    /// channel has handled it (after any channel method in progress) and the status says so.
    package func setApplicationState(_ state: ApplicationState) async {
        await self.gate.run { [channel] in await channel.applicationStateDidChange(state) }
        self.applicationState.withLock { $0 = state }
        self.continuation.yield(.applicationStateChanged)
        await self.ping()
    }

    /// Carries out a user request on the channel (it may run alongside the supervisor's calls).
    package func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        try await self.channel.perform(request)
    }

    /// Renews the channel's token now and hands it to the channel; a channel that gave up because it
    /// needed a sign-in tries again.
    package func renewToken() async throws {
        let token = try await self.tokens.renew()
        await self.handOver(token)
        self.continuation.yield(.tokenChanged)
    }

    /// The channel got `token` from its host (``ChannelHost/currentToken()`` or
    /// ``ChannelHost/renewToken()``), so handing it over again is not needed.
    package func channelHasToken(_ token: ChannelToken) {
        self.channelToken.withLock { $0 = token }
    }

    /// The channel's token health, when it has a token source.
    package func tokenHealth() async -> TokenHealth? { await self.tokens.health() }

    /// Stops the channel gracefully; ``run()`` returns once it stopped.
    package func stop() { self.continuation.yield(.stop) }

    /// Returns when the supervisor's loop has handled everything queued before it: proof of life.
    package func ping() async {
        await withCheckedContinuation { continuation in
            if case .terminated = self.continuation.yield(.ping(continuation)) { continuation.resume() }
        }
    }

    // MARK: The loop

    /// Runs the channel until ``stop()`` or cancellation, with the channel's own background work
    /// (``Channel/run()``) and the token keeper's schedule beside it.
    package func run() async {
        // Not a child task: a plugin's run() that does not end when cancelled would hold this supervisor,
        // the fleet and the daemon's shutdown with it. It gets the grace a timed-out call gets.
        let background = Task { [channel] in await channel.run() }
        await withDiscardingTaskGroup { group in
            group.addTask {
                await self.tokens.run { [weak self] token in
                    guard let self else { return }
                    await self.handOver(token)
                    self.continuation.yield(.tokenChanged)
                }
            }
            await self.loop()
            group.cancelAll()
        }
        background.cancel()
        if await !Timekeeper.awaitEnd(of: background) {
            self.logger.warning(
                "its plugin's background work did not end within \(Timekeeper.abandonGrace.seconds.formatted) s of being cancelled; leaving it behind"
            )
        }
    }

    private func loop() async {
        var machine = SupervisorStateMachine(configuration: self.configuration.machine, random: SystemRandomNumberGenerator())
        var work = Work()
        // A listen that works after one already had is a reconnect (attendant_reconnects_total).
        var hasListened = false
        defer {
            work.cancelAll()
            self.continuation.finish()
        }
        self.perform(machine.start(), tolerance: machine.wakeUpTolerance, on: &work)
        self.publish(machine)

        for await input in self.inputs {
            let now = self.timekeeper.elapsed
            let action: SupervisorStateMachine<SystemRandomNumberGenerator>.Action
            switch input {
            case .ping(let continuation):
                continuation.resume()
                continue
            case .stoppedListening(let error):
                self.logger.warning("stopped listening: \(error.message)", metadata: ["error-class": "\(error.code)"])
                action = machine.stoppedListening(error, now: now)
                self.logRetry(action, now: now)
            case .listenFinished(nil):
                self.logger.info("listening")
                if hasListened { self.metrics.reconnected(channel: self.name) }
                hasListened = true
                action = machine.listenSucceeded(now: now)
            case .listenFinished(let error?):
                self.logger.warning("could not listen: \(error.message)", metadata: ["error-class": "\(error.code)"])
                self.metrics.listenFailed(channel: self.name, errorClass: error.code.rawValue)
                action = machine.listenFailed(error, now: now)
                self.logRetry(action, now: now)
            case .keepAliveFinished(nil):
                self.logger.debug("keep-alive done")
                action = machine.keepAliveSucceeded(now: now)
            case .keepAliveFinished(let error?):
                self.logger.warning("keep-alive failed: \(error.message)", metadata: ["error-class": "\(error.code)"])
                action = machine.keepAliveFailed(error, now: now)
            case .tokenFinished(let error):
                let beforeKeepAlive = if case .renewingBeforeKeepAlive = machine.state { true } else { false }
                switch (error, beforeKeepAlive) {
                case (nil, true):
                    self.logger.info("token renewed before the keep-alive")
                    action = machine.tokenRenewed(now: now)
                case (nil, false):
                    self.logger.info("token renewed after the server refused the old one")
                    action = machine.tokenRenewed(now: now)
                case (let error?, true):
                    self.logger.warning("could not renew the token before the keep-alive; keeping alive with the current one: \(error.message)")
                    action = machine.tokenRenewalFailed(error, now: now)
                case (let error?, false):
                    action = machine.tokenRenewalFailed(error, now: now)
                }
            case .tokenChanged:
                action = machine.tokenChanged(now: now)
                if action == .listen { self.logger.info("a new token arrived: listening again") }
            case .timer(let generation, let tokenLifetime):
                guard generation == work.timerGeneration else { continue }
                action = machine.timerFired(now: now, tokenLifetime: tokenLifetime)
                if action == .renewToken, let tokenLifetime {
                    let left = tokenLifetime > .zero ? "expires in \(tokenLifetime.seconds.formatted) s" : "has expired"
                    self.logger.info("the token \(left), before the next keep-alive cycle ends: renewing it first")
                }
            case .resume:
                action = machine.resumed(now: now)
            case .networkChanged:
                action = machine.networkChanged(now: now)
                switch action {
                case .listen: self.logger.info("the network changed: retrying now")
                case .keepAlive: self.logger.info("the network changed: checking the connection now")
                default: break
                }
            case .applicationStateChanged:
                self.publish(machine)
                continue
            case .stop:
                work.cancelCall()
                action = machine.stop()
                if action == .none {
                    self.publish(machine)
                    return
                }
            case .stopFinished:
                machine.stopCompleted()
                self.publish(machine)
                self.logger.info("stopped")
                return
            }
            self.perform(action, tolerance: machine.wakeUpTolerance, on: &work)
            self.publish(machine)
        }
    }

    /// Carries out the machine's action; `tolerance` is how early a timer it sets may fire.
    private func perform(_ action: SupervisorStateMachine<SystemRandomNumberGenerator>.Action, tolerance: Duration?, on work: inout Work) {
        switch action {
        case .none:
            return
        case .listen:
            self.metrics.listenAttempted(channel: self.name)
            work.call = self.call({ [channel, gate] in try await gate.run { try await channel.listen() } }, report: { .listenFinished($0) })
        case .keepAlive:
            work.call = self.call({ [channel, gate] in try await gate.run { try await channel.keepAlive() } }, report: { .keepAliveFinished($0) })
        case .renewToken:
            work.call = Task {
                do {
                    let token = try await self.tokens.renew()
                    await self.handOver(token)
                    self.continuation.yield(.tokenFinished(nil))
                } catch {
                    self.continuation.yield(.tokenFinished(ChannelError(error)))
                }
            }
        case .wakeUp(let deadline):
            work.timer?.cancel()
            work.timerGeneration += 1
            let generation = work.timerGeneration
            work.timer = Task {
                do {
                    try await self.timekeeper.sleep(untilElapsed: deadline, tolerance: tolerance)
                    let lifetime = await self.tokens.remainingLifetime()
                    self.continuation.yield(.timer(generation: generation, tokenLifetime: lifetime))
                } catch {}
            }
        case .giveUp(let failure):
            work.timer?.cancel()
            switch failure.reason {
            case .signInNeeded:
                self.logger.error("sign-in needed: \(failure.error.message)")
            case .configuration:
                self.logger.error("stopped trying: \(failure.error.message)")
            }
        case .stopListening:
            work.timer?.cancel()
            let limit = self.configuration.stopTimeout
            work.stopping = Task {
                do {
                    try await self.timekeeper.withTimeout(limit) { [channel, gate] in await gate.run { await channel.stopListening() } }
                } catch {
                    self.logger.warning("did not stop within \(limit.seconds.formatted) s; dropping it anyway")
                }
                self.continuation.yield(.stopFinished)
            }
        }
    }

    /// When the channel is to listen again after a failure (the backoff's wait, a server's Retry-After,
    /// or at once after a network change), for the log.
    private func logRetry(_ action: SupervisorStateMachine<SystemRandomNumberGenerator>.Action, now: Duration) {
        guard case .wakeUp(let at) = action else { return }
        let wait = at - now
        self.logger.info(wait > .zero ? "listening again in \(wait.seconds.formatted) s" : "listening again at once")
    }

    /// Hands a token to the channel, between its other calls, unless it already has it.
    private func handOver(_ token: ChannelToken) async {
        await self.gate.run { [channel] in
            let known = self.channelToken.withLock { known in
                defer { known = token }
                return known == token
            }
            if !known { await channel.tokenDidChange(token) }
        }
    }

    /// Runs one channel method in its own task, with a time limit, and reports the outcome as an input.
    private func call(
        _ operation: @escaping @Sendable () async throws -> Void,
        report: @escaping @Sendable (ChannelError?) -> Input
    ) -> Task<Void, Never> {
        let timeout = self.configuration.callTimeout
        self.inFlight.add(1, ordering: .releasing)
        return Task {
            defer { self.inFlight.subtract(1, ordering: .releasing) }
            do {
                try await self.timekeeper.withTimeout(timeout, operation)
                self.continuation.yield(report(nil))
            } catch is CancellationError {
                return
            } catch let error as ChannelError {
                self.continuation.yield(report(error))
            } catch {
                self.continuation.yield(report(ChannelError(.transient, "\(error)")))
            }
        }
    }

    private func publish(_ machine: SupervisorStateMachine<SystemRandomNumberGenerator>) {
        var status = ChannelStatus(name: self.name, plugin: self.plugin, state: .init(machine.state))
        switch machine.state {
        case .waitingToRetry(_, _, let error), .renewingToken(_, let error):
            status.detail = error.message
        case .failed(let failure):
            status.detail = failure.reason == .signInNeeded ? "sign-in needed: \(failure.error.message)" : failure.error.message
            status.failure = ChannelStatus.FailureReason(failure.reason)
        default:
            status.detail = nil
        }
        status.onProbation = machine.onProbation
        if status.state == .listening, self.configuration.disconnectsInBackground, self.applicationState.withLock({ $0 }) == .background {
            status.state = .background
        }
        let changed = self.latestStatus.withLock { latest in
            // While a retry is under way the state stays "recovering": keep saying why.
            if status.state == .recovering, status.detail == nil, latest.state == .recovering {
                status.detail = latest.detail
            }
            defer { latest = status }
            return latest != status
        }
        if changed {
            self.metrics.channelState(self.name, plugin: self.plugin, status.state)
            self.onStatus(status)
        }
    }

    /// The tasks the loop started.
    private struct Work {
        var call: Task<Void, Never>?
        var timer: Task<Void, Never>?
        var stopping: Task<Void, Never>?
        var timerGeneration = 0

        mutating func cancelCall() {
            self.call?.cancel()
            self.call = nil
        }

        mutating func cancelAll() {
            self.call?.cancel()
            self.timer?.cancel()
            self.stopping?.cancel()
        }
    }
}
