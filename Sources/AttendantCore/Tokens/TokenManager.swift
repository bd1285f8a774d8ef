package import AttendantPluginAPI
import Synchronization

/// The token keeper of a channel with a token source: gets tokens, reads their lifetime, renews them
/// on a ``TokenRenewalStateMachine`` schedule, retries failures with jittered backoff, and reports its
/// health. Never logs a token's value.
///
/// One fetch runs at a time: whoever asks while one runs (the schedule, the supervisor before a
/// keep-alive, the channel after a refusal, `attendantctl token renew`) gets its result. A failed
/// fetch keeps the token held before, which stays usable until it expires.
///
/// Time: the schedule is wall-clock (token expiry is), the sleeping is on the injected clock, so tests
/// with a manual clock and its wall clock run days of renewals in milliseconds.
package actor TokenManager: TokenKeeper {
    package typealias Machine = TokenRenewalStateMachine<AnyRandomNumberGenerator>

    package nonisolated let channelName: String
    package nonisolated let source: any TokenSource
    private let timeout: Duration
    private let timekeeper: Timekeeper
    private let wallClock: @Sendable () -> UnixTime
    private let logger: Logger
    private let metrics: DaemonMetrics

    private var machine: Machine
    /// What the schedule loop does next; `generation` counts changes so a sleeping loop notices them.
    private var planned: Machine.Action = .none
    private var generation = 0
    private var wakeup: Wakeup?
    private var held: InspectedToken?
    private var record = TokenHealth()
    private var inFlight: Task<Result<InspectedToken, TokenError>, Never>?
    /// New tokens for ``run(onRenewal:)``, newest only: a channel never needs an outdated one.
    private nonisolated let renewals: AsyncStream<ChannelToken>
    private nonisolated let renewalContinuation: AsyncStream<ChannelToken>.Continuation

    package init(
        channelName: String,
        settings: TokenSettings,
        source: any TokenSource,
        clock: any Clock<Duration>,
        wallClock: @escaping @Sendable () -> UnixTime,
        logger: Logger,
        metrics: DaemonMetrics = DaemonMetrics(),
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.channelName = channelName
        self.source = source
        self.timeout = settings.timeout
        self.timekeeper = Timekeeper(clock)
        self.wallClock = wallClock
        self.logger = logger
        self.metrics = metrics
        self.machine = Machine(configuration: .init(settings), random: AnyRandomNumberGenerator(random))
        (self.renewals, self.renewalContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: TokenKeeper

    /// The token held; the first time, waits for the first fetch (starting it if nobody did).
    package func current() async -> ChannelToken? {
        if let held { return held.token }
        if let inFlight {
            _ = await inFlight.value
        } else if case .idle = self.machine.state {
            _ = await self.fetch()
        }
        return self.held?.token
    }

    /// The token held, or why there is none: the last failure of the source, which names the source and
    /// never holds token material.
    package func state() async -> ChannelTokenState {
        if let token = await self.current() { return .available(token) }
        return .unavailable(reason: self.record.lastRenewalError ?? "\(self.source) has not given a token yet")
    }

    /// Gets a new token now (or the result of the fetch already running).
    package func renew() async throws -> ChannelToken {
        switch await self.fetch() {
        case .success(let inspected): return inspected.token
        case .failure(let error): throw error
        }
    }

    package func health() async -> TokenHealth? {
        var record = self.record
        record.renewing = self.inFlight != nil
        return record
    }

    package func remainingLifetime() async -> Duration? {
        self.held?.token.expiresAt.map { $0 - self.wallClock() }
    }

    /// Runs the renewal schedule until cancelled, handing every new token to `onRenewal`, in order.
    package func run(onRenewal: @escaping @Sendable (ChannelToken) async -> Void) async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await token in self.renewals { await onRenewal(token) }
            }
            group.addTask { await self.schedule() }
            group.addTask {
                // A source that can tell when it changed (a token file) is read at once, not at the
                // next retry; changes that come while one is read are read once more.
                let (changes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
                await withDiscardingTaskGroup { watching in
                    watching.addTask {
                        do throws(TokenError) {
                            try await self.source.watchChanges { continuation.yield() }
                        } catch {
                            self.logger.warning("\(self.source): \(error.message)")
                        }
                        continuation.finish()
                    }
                    for await _ in changes { await self.sourceChanged() }
                }
            }
        }
    }

    /// The source says it has changed (a token file was written): read it now.
    private func sourceChanged() async {
        self.logger.debug("\(self.source) changed: reading it")
        _ = await self.fetch()
    }

    // MARK: Fetching

    /// - Parameter stopsWithCaller: cancelling the calling task cancels the fetch (the schedule's own
    ///   fetches: when the keeper stops, a token command must not outlive it).
    private func fetch(stopsWithCaller: Bool = false) async -> Result<InspectedToken, TokenError> {
        if let inFlight { return await Self.result(of: inFlight, stopsWithCaller) }
        _ = self.machine.renewRequested(now: self.wallClock())
        self.replan(.none)
        let source = self.source
        let timeout = self.timeout
        let timekeeper = self.timekeeper
        let wallClock = self.wallClock
        let task = Task {
            let result = await Self.obtain(from: source, timeout: timeout, timekeeper: timekeeper, wallClock: wallClock)
            self.finish(result)
            return result
        }
        self.inFlight = task
        return await Self.result(of: task, stopsWithCaller)
    }

    private static func result(
        of task: Task<Result<InspectedToken, TokenError>, Never>,
        _ stopsWithCaller: Bool
    ) async -> Result<InspectedToken, TokenError> {
        guard stopsWithCaller else { return await task.value }
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }

    private static func obtain(
        from source: any TokenSource,
        timeout: Duration,
        timekeeper: Timekeeper,
        wallClock: @Sendable () -> UnixTime
    ) async -> Result<InspectedToken, TokenError> {
        do {
            let text = try await timekeeper.withTimeout(timeout) { try await source.fetch() }
            return .success(try InspectedToken(text, from: "\(source)", now: wallClock()))
        } catch let error as TokenError {
            return .failure(error)
        } catch is TimeoutError {
            return .failure(TokenError(.timeout, source.timeoutMessage(timeout)))
        } catch is CancellationError {
            return .failure(TokenError(.source, "\(source): stopped before it gave a token (the channel is stopping)"))
        } catch {
            return .failure(TokenError(.source, "\(source): \(error)"))
        }
    }

    private func finish(_ result: Result<InspectedToken, TokenError>) {
        self.inFlight = nil
        // Stopped because the keeper is going away: not a failure of the source.
        if case .failure = result, Task.isCancelled { return }
        let now = self.wallClock()
        self.record.lastRenewal = now
        switch result {
        case .success(let inspected):
            let changed = self.held?.token.value != inspected.token.value
            self.held = inspected
            self.record.expiresAt = inspected.token.expiresAt
            self.record.lastRenewalError = nil
            self.record.consecutiveFailures = 0
            self.metrics.tokenRenewed(channel: self.channelName, expiresAt: inspected.token.expiresAt)
            let next = self.machine.fetchSucceeded(
                expiresAt: inspected.token.expiresAt,
                issuedAt: inspected.issuedAt,
                changed: changed,
                now: now
            )
            self.logSuccess(inspected, changed: changed, next: next, now: now)
            self.replan(next)
            if changed { self.renewalContinuation.yield(inspected.token) }
        case .failure(let error):
            self.record.lastRenewalError = error.message
            let next = self.machine.fetchFailed(now: now)
            self.record.consecutiveFailures = self.machine.consecutiveFailures
            self.metrics.tokenRenewalFailed(channel: self.channelName, errorClass: error.code.rawValue)
            self.logFailure(error, next: next, now: now)
            self.replan(next)
        }
    }

    // MARK: The schedule

    private func schedule() async {
        if case .idle = self.machine.state { self.replan(self.machine.start(now: self.wallClock())) }
        while !Task.isCancelled {
            let seen = self.generation
            switch self.planned {
            case .fetch:
                _ = await self.fetch(stopsWithCaller: true)
            case .wait(let until):
                let delay = until - self.wallClock()
                if delay > .zero { await self.pause(for: delay, unlessChangedSince: seen) }
                // Waits are whole milliseconds (`UnixTime - UnixTime` rounds), so the timer may end up to
                // half a millisecond before `until`: that counts as reached. Asking the machine with the
                // earlier time made it say "wait" again with a zero wait, and the loop spun (for ever on a
                // manual clock, which only tests move). A wall clock set back by more still waits again.
                if self.generation == seen, !Task.isCancelled {
                    let now = self.wallClock()
                    self.replan(self.machine.timerFired(now: until - now <= .zero ? max(now, until) : now))
                }
            case .none, .waitForDemand:
                await self.pause(for: nil, unlessChangedSince: seen)
            }
        }
        // Stop a fetch that someone else started too, and wait for it: its command is killed before the
        // keeper is gone.
        if let inFlight {
            inFlight.cancel()
            _ = await inFlight.value
        }
        self.renewalContinuation.finish()
    }

    private func replan(_ action: Machine.Action) {
        self.planned = action
        self.generation += 1
        self.wakeup?.wake()
    }

    /// Sleeps on the clock for `delay` (forever when nil) or until the plan changes or the task is cancelled.
    private func pause(for delay: Duration?, unlessChangedSince seen: Int) async {
        guard self.generation == seen else { return }
        let wakeup = Wakeup()
        self.wakeup = wakeup
        var timer: Task<Void, Never>?
        if let delay {
            let deadline = self.timekeeper.elapsed + delay
            timer = Task { [timekeeper] in
                do {
                    try await timekeeper.sleep(untilElapsed: deadline)
                    wakeup.wake()
                } catch {}
            }
        }
        await wakeup.wait()
        timer?.cancel()
        if self.wakeup === wakeup { self.wakeup = nil }
    }

    // MARK: Logging (never the token)

    private func logSuccess(_ inspected: InspectedToken, changed: Bool, next: Machine.Action, now: UnixTime) {
        let identity = inspected.identity.map { " for \($0)" } ?? ""
        guard let expiresAt = inspected.token.expiresAt else {
            let why = inspected.isJWT ? "a JWT without \"exp\"" : "not a JWT"
            self.logger.info(
                "got a token\(identity) from \(self.source); its lifetime is unknown (\(why)), so it is renewed only when the server refuses it or on request"
            )
            return
        }
        let expiry = "expires at \(expiresAt) (in \(InspectedToken.span(expiresAt - now)))"
        let at = if case .wait(let at) = next { "\(at)" } else { "expiry" }
        if changed {
            self.logger.info("got a new token\(identity) from \(self.source): \(expiry); next renewal at \(at)")
        } else {
            self.logger.notice("\(self.source) gave the same token as before, which \(expiry); asking again at \(at)")
        }
    }

    private func logFailure(_ error: TokenError, next: Machine.Action, now: UnixTime) {
        let count = self.machine.consecutiveFailures
        let times = count > 1 ? " (\(count) times in a row)" : ""
        let retry = if case .wait(let at) = next { "; trying again at \(at)" } else { "" }
        let left: String
        if let expiresAt = self.held?.token.expiresAt {
            left = expiresAt > now ? "; the current token expires at \(expiresAt)" : "; the current token expired at \(expiresAt)"
        } else {
            left = self.held == nil ? "; there is no token yet" : ""
        }
        self.logger.warning("token renewal failed\(times): \(error.message)\(left)\(retry)", metadata: ["error-class": "\(error.code)"])
    }
}

/// A one-shot wake-up: ``wait()`` returns once ``wake()`` was called (before or after) or the waiting
/// task is cancelled.
final class Wakeup: Sendable {
    private let state = Mutex<(woken: Bool, continuation: CheckedContinuation<Void, Never>?)>((false, nil))

    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = self.state.withLock { state in
                    if state.woken { return true }
                    state.continuation = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            self.wake()
        }
    }

    func wake() {
        let continuation = self.state.withLock { state in
            state.woken = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }
}

/// Any random number generator, so the manager's state machine has one concrete type (tests seed it).
package struct AnyRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var base: any RandomNumberGenerator & Sendable

    package init(_ base: some RandomNumberGenerator & Sendable) { self.base = base }

    package mutating func next() -> UInt64 { self.base.next() }
}
