package import AttendantPluginAPI
package import AttendantPluginKit

/// The life of one channel, as a pure state machine: it takes events with the current time and returns
/// what to do. It does no I/O and reads no clock, so tests drive hours of cycles in microseconds.
///
/// ```
/// stopped ─start─▶ starting ─ok─▶ listening ⇄ keeping-alive
///                   ▲  │fail            │ drop / keep-alive failed
///                   │  ▼                ▼
///                   └─ recovering ◀─────┘   (transient: backoff; authentication: renew token once)
///                          │ configuration error, or credentials refused after a renewal
///                          ▼
///                        failed ──a new token (sign-in needed only)──▶ starting
/// ```
///
/// Each keep-alive cycle first makes sure the token outlives the next cycle: when the driver reports
/// (with ``timerFired(now:tokenLifetime:)``) that it expires sooner, the machine renews it first
/// (`renewingBeforeKeepAlive`, still listening), then keeps alive, whether the renewal worked or not:
/// the token held is still valid, and the server is the judge.
///
/// Time is the elapsed time since the supervisor started (a `Duration`), from whatever clock drives it.
package struct SupervisorStateMachine<Random: RandomNumberGenerator> {
    package struct Configuration: Sendable, Equatable {
        package var keepAliveInterval: Duration = .seconds(600)
        /// How early a keep-alive may run when the daemon is awake anyway: 15 % of the interval. A channel
        /// refreshing at 90 % of a binding as long as the cycle (SIPVoice) then has its refresh and the
        /// keep-alive in one wake-up, instead of two cold ones a minute apart (Benchmarks/README.md, "Measured").
        package var keepAliveTolerance: Duration { self.keepAliveInterval * 0.15 }
        package var backoff = Backoff()
        /// A drop sooner than this after listening began counts as a quick drop.
        package var probationWindow: Duration = .seconds(60)
        /// This many quick drops in a row put the channel on probation.
        package var probationDrops = 3
        /// Backoff while on probation (slower retries), as telepathy-mission-control does.
        package var probationBackoff = Backoff(base: .seconds(30), factor: 2, cap: .seconds(1800))
        /// The range a channel's own retry delay (``AttendantPluginAPI/ChannelError/retryAfter``) is kept
        /// in: a server asking for no delay is not retried in a tight loop, nor one asking for days never.
        package var retryAfterRange: ClosedRange<Duration> = .milliseconds(250) ... .seconds(3600)
        /// A drop this soon after the network changed is the change's doing (a connection that did not
        /// survive it, a server that forgot the client meanwhile), not the channel's: it does not count
        /// towards probation.
        package var networkChangeGrace: Duration = .seconds(30)
        /// A drop this soon after the network changed is retried at once, without the backoff's wait: the
        /// connection did not survive the change and the network is up (DESIGN.md: "retry immediately on
        /// resume or network change"). A server's own delay (Retry-After, a second or more) and probation
        /// still apply; a channel's delay under a second (its jitter) does not.
        package var retryAtOnceAfterNetworkChange: Duration = .seconds(5)

        package init() {}
    }

    package enum State: Equatable, Sendable {
        case stopped
        /// `listen()` is running.
        case starting(attempt: Int)
        /// Listening; the next keep-alive is due at `keepAliveAt`.
        case listening(since: Duration, keepAliveAt: Duration)
        /// `keepAlive()` is running.
        case keepingAlive(since: Duration)
        /// The token would expire within the next cycle: renewing it before `keepAlive()`.
        case renewingBeforeKeepAlive(since: Duration)
        /// Waiting to call `listen()` again.
        case waitingToRetry(attempt: Int, until: Duration, after: ChannelError)
        /// Getting a new token before listening again.
        case renewingToken(attempt: Int, after: ChannelError)
        /// Gave up until the user acts (sign in again, fix the settings).
        case failed(Failure)
        /// `stopListening()` is running.
        case stopping
    }

    /// Why the supervisor gave up.
    package struct Failure: Equatable, Sendable {
        package enum Reason: String, Sendable {
            case signInNeeded = "sign-in needed"
            case configuration
        }
        package var reason: Reason
        package var error: ChannelError

        package init(reason: Reason, error: ChannelError) {
            self.reason = reason
            self.error = error
        }
    }

    /// What the driver does next.
    package enum Action: Equatable, Sendable {
        case none
        /// Call `listen()`.
        case listen
        /// Call `keepAlive()`.
        case keepAlive
        /// Get a new token, hand it to the channel, then report back.
        case renewToken
        /// Set the one timer to fire at this time (replacing any earlier one).
        case wakeUp(at: Duration)
        /// Give up and tell the user.
        case giveUp(Failure)
        /// Call `stopListening()`.
        case stopListening
    }

    package private(set) var state: State = .stopped
    package let configuration: Configuration
    private var random: Random
    /// Whether the token was renewed since the channel last listened (authentication errors renew once).
    private var renewedSinceListening = false
    private var quickDrops = 0
    /// When the network last changed (``networkChanged(now:)``).
    private var networkChangedAt: Duration?

    package init(configuration: Configuration, random: Random) {
        self.configuration = configuration
        self.random = random
    }

    /// True while the backoff is the slower probation backoff.
    package var onProbation: Bool { self.quickDrops >= self.configuration.probationDrops }

    // MARK: Events

    package mutating func start() -> Action {
        switch self.state {
        case .stopped, .failed:
            self.renewedSinceListening = false
            self.state = .starting(attempt: 0)
            return .listen
        default:
            return .none
        }
    }

    package mutating func listenSucceeded(now: Duration) -> Action {
        guard case .starting = self.state else { return .none }
        return self.becomeListening(now: now)
    }

    package mutating func listenFailed(_ error: ChannelError, now: Duration) -> Action {
        guard case .starting(let attempt) = self.state else { return .none }
        return self.recover(from: error, attempt: attempt, now: now)
    }

    /// The channel reported it stopped listening.
    package mutating func stoppedListening(_ error: ChannelError, now: Duration) -> Action {
        switch self.state {
        case .listening(let since, _), .keepingAlive(let since), .renewingBeforeKeepAlive(let since):
            if let changed = self.networkChangedAt, now - changed < self.configuration.networkChangeGrace {
                // The network's doing: the count stays as it was.
            } else if now - since < self.configuration.probationWindow {
                self.quickDrops += 1
            } else {
                self.quickDrops = 0
            }
            let atOnce = self.networkChangedAt.map { now - $0 < self.configuration.retryAtOnceAfterNetworkChange } ?? false
            return self.recover(from: error, attempt: 0, now: now, atOnce: atOnce)
        default:
            return .none
        }
    }

    package mutating func keepAliveSucceeded(now: Duration) -> Action {
        guard case .keepingAlive(let since) = self.state else { return .none }
        let next = now + self.configuration.keepAliveInterval
        self.state = .listening(since: since, keepAliveAt: next)
        return .wakeUp(at: next)
    }

    package mutating func keepAliveFailed(_ error: ChannelError, now: Duration) -> Action {
        self.stoppedListening(error, now: now)
    }

    /// The token asked for with ``Action/renewToken`` arrived (and was handed to the channel).
    package mutating func tokenRenewed(now: Duration) -> Action {
        switch self.state {
        case .renewingToken(let attempt, _):
            self.renewedSinceListening = true
            self.state = .starting(attempt: attempt)
            return .listen
        case .renewingBeforeKeepAlive(let since):
            self.state = .keepingAlive(since: since)
            return .keepAlive
        default:
            return .none
        }
    }

    /// No token could be had. After refused credentials that means "sign in" (or, for a token without
    /// the needed capability, a configuration failure); before a keep-alive, the cycle goes on with the
    /// token held.
    package mutating func tokenRenewalFailed(_ error: ChannelError, now: Duration) -> Action {
        switch self.state {
        case .renewingToken:
            return self.giveUp(error.code == .configuration ? .configuration : .signInNeeded, error)
        case .renewingBeforeKeepAlive(let since):
            self.state = .keepingAlive(since: since)
            return .keepAlive
        default:
            return .none
        }
    }

    /// A new token arrived on its own (the token manager's schedule, `attendantctl token renew`): a
    /// channel that gave up for want of one (sign-in needed) tries again.
    package mutating func tokenChanged(now: Duration) -> Action {
        guard case .failed(let failure) = self.state, failure.reason == .signInNeeded else { return .none }
        // A fresh token: if it is refused too, that is final at once.
        self.renewedSinceListening = true
        self.state = .starting(attempt: 0)
        return .listen
    }

    /// How early the timer of the last ``Action/wakeUp(at:)`` may fire, when the daemon is awake anyway:
    /// a keep-alive's tolerance while listening; none for a retry (its delay is the server's or backoff's).
    package var wakeUpTolerance: Duration? {
        if case .listening = self.state { self.configuration.keepAliveTolerance } else { nil }
    }

    /// The timer set by ``Action/wakeUp(at:)`` fired.
    ///
    /// - Parameter tokenLifetime: how long the channel's token stays valid, when known; a keep-alive
    ///   with a token that does not outlive the next cycle renews it first.
    package mutating func timerFired(now: Duration, tokenLifetime: Duration? = nil) -> Action {
        switch self.state {
        case .listening(let since, let due) where now >= due - self.configuration.keepAliveTolerance:
            if let tokenLifetime, tokenLifetime <= self.configuration.keepAliveInterval {
                self.state = .renewingBeforeKeepAlive(since: since)
                return .renewToken
            }
            self.state = .keepingAlive(since: since)
            return .keepAlive
        case .waitingToRetry(let attempt, let until, _) where now >= until:
            self.state = .starting(attempt: attempt)
            return .listen
        default:
            return .none
        }
    }

    /// The machine resumed from sleep or the network came back: retry at once instead of waiting.
    package mutating func resumed(now: Duration) -> Action {
        guard case .waitingToRetry(let attempt, _, _) = self.state else { return .none }
        self.state = .starting(attempt: attempt)
        return .listen
    }

    /// The network came back or changed (a link up, a new address or default route): a channel
    /// waiting to retry retries at once, as after a resume, and a listening one keeps alive now, so a
    /// connection or registration the change broke is found at once rather than at the next cycle (as
    /// baresip re-registers on a network change). DESIGN.md: "retry immediately on resume or network
    /// change". A drop within ``Configuration/networkChangeGrace`` afterwards is no quick drop.
    package mutating func networkChanged(now: Duration) -> Action {
        self.networkChangedAt = now
        switch self.state {
        case .waitingToRetry(let attempt, _, _):
            self.state = .starting(attempt: attempt)
            return .listen
        case .listening(let since, _):
            self.state = .keepingAlive(since: since)
            return .keepAlive
        default:
            return .none
        }
    }

    package mutating func stop() -> Action {
        switch self.state {
        case .stopped, .stopping:
            return .none
        case .failed:
            self.state = .stopped
            return .none
        default:
            self.state = .stopping
            return .stopListening
        }
    }

    package mutating func stopCompleted() {
        self.state = .stopped
    }

    // MARK: Private

    private mutating func becomeListening(now: Duration) -> Action {
        self.renewedSinceListening = false
        let next = now + self.configuration.keepAliveInterval
        self.state = .listening(since: now, keepAliveAt: next)
        return .wakeUp(at: next)
    }

    /// The shortest delay a server asks for: `Retry-After` counts whole seconds (RFC 3261 section 20.33, RFC
    /// 9110 section 10.2.3). A channel's delay under it is the channel's own jitter for spreading a fleet
    /// (SIP's first probe of a registrar that closed the connection waits 0.25 to 0.5 s), which the desk's
    /// own network change makes moot: it retries at once.
    static var serverDelayFloor: Duration { .seconds(1) }

    private mutating func recover(from error: ChannelError, attempt: Int, now: Duration, atOnce: Bool = false) -> Action {
        switch error.code {
        case .transient, .server:
            // The channel's own delay (a server's Retry-After, its probing of a silent server) replaces
            // the backoff, except that probation still slows a channel that keeps dropping.
            let delay: Duration
            if atOnce, !self.onProbation, (error.retryAfter ?? .zero) < Self.serverDelayFloor {
                delay = .zero
            } else if self.onProbation {
                delay = max(self.configuration.probationBackoff.delay(attempt: attempt, using: &self.random), error.retryAfter ?? .zero)
            } else if let asked = error.retryAfter {
                delay = min(max(asked, self.configuration.retryAfterRange.lowerBound), self.configuration.retryAfterRange.upperBound)
            } else {
                delay = self.configuration.backoff.delay(attempt: attempt, using: &self.random)
            }
            let until = now + delay
            self.state = .waitingToRetry(attempt: attempt + 1, until: until, after: error)
            return .wakeUp(at: until)
        case .authentication:
            if self.renewedSinceListening {
                return self.giveUp(.signInNeeded, error)
            }
            self.state = .renewingToken(attempt: attempt + 1, after: error)
            return .renewToken
        default:
            return self.giveUp(.configuration, error)
        }
    }

    private mutating func giveUp(_ reason: Failure.Reason, _ error: ChannelError) -> Action {
        let failure = Failure(reason: reason, error: error)
        self.state = .failed(failure)
        return .giveUp(failure)
    }
}
