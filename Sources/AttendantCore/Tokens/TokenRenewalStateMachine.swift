package import AttendantPluginAPI
package import AttendantPluginKit

/// When to get a channel's next token, as a pure state machine: it takes fetch results and timer events
/// with the wall-clock time and returns what to do. It does no I/O and reads no clock, so tests walk
/// through days of renewals in microseconds.
///
/// ```
/// idle ─start─▶ fetching ─ok─▶ holding(renewAt) ─timer at renewAt─▶ fetching …
///                  │  ▲ fail                 │ lifetime unknown: renewAt nil, only on demand
///                  ▼  │ timer
///               retrying(at)   (full-jitter backoff; while a token is held, at most half its time left)
/// ```
///
/// The renewal point of a token with an expiry is `renew-at` of its lifetime (from `iat`, or from when
/// it was fetched, to `exp`) and at least `renew-before` before `exp`; never after `exp`. A token too
/// short-lived for that is renewed at `renew-at` of the time it has left, and never sooner than
/// ``Configuration/minimumInterval`` after it arrived. When the source gives the same token again (a
/// file nobody updated yet), it is asked again with backoff, still never after `exp`.
package struct TokenRenewalStateMachine<Random: RandomNumberGenerator> {
    package struct Configuration: Sendable, Equatable {
        /// Renew at this fraction of the lifetime.
        package var renewAt: Double = 0.9
        /// … and at least this long before expiry.
        package var renewBefore: Duration = .seconds(60)
        /// Retries after failures (full jitter, like the channel supervisor's).
        package var backoff = Backoff(base: .seconds(1), factor: 2, cap: .seconds(300))
        /// The shortest time between getting a new token and asking for the next one.
        package var minimumInterval: Duration = .seconds(1)

        package init() {}

        package init(_ settings: TokenSettings) {
            self.renewAt = settings.renewAt
            self.renewBefore = settings.renewBefore
        }
    }

    package enum State: Equatable, Sendable {
        /// Nothing asked for yet.
        case idle
        /// The source is being asked.
        case fetching
        /// A token is held; it is renewed at `renewAt`, or only on demand when that is nil (its lifetime
        /// is unknown).
        case holding(renewAt: UnixTime?)
        /// The last attempt failed; the next one is at `at`.
        case retrying(at: UnixTime)
    }

    /// What the driver does next.
    package enum Action: Equatable, Sendable {
        /// Nothing until the running fetch reports.
        case none
        /// Ask the source now.
        case fetch
        /// Ask again at this time (the driver sleeps, then reports ``timerFired(now:)``).
        case wait(until: UnixTime)
        /// The lifetime is unknown: renew only when asked to (``renewRequested(now:)``).
        case waitForDemand
    }

    package private(set) var state: State = .idle
    package let configuration: Configuration
    /// Attempts that failed in a row.
    package private(set) var consecutiveFailures = 0
    /// The held token's expiry and the start of its lifetime.
    private var held: (expiresAt: UnixTime?, start: UnixTime)?
    /// Fetches in a row that gave the token already held.
    private var unchangedFetches = 0
    private var random: Random

    package init(configuration: Configuration, random: Random) {
        self.configuration = configuration
        self.random = random
    }

    /// When the held token expires, if it says.
    package var expiresAt: UnixTime? { self.held?.expiresAt }

    // MARK: Events

    /// The first fetch, when the driver starts.
    package mutating func start(now: UnixTime) -> Action {
        guard case .idle = self.state else { return .none }
        self.state = .fetching
        return .fetch
    }

    /// Someone needs a new token now (the server refused the old one, a keep-alive cycle would outlive
    /// it, the user asked). A fetch already running answers them too.
    package mutating func renewRequested(now: UnixTime) -> Action {
        if case .fetching = self.state { return .none }
        self.state = .fetching
        return .fetch
    }

    /// The source gave a usable token; `changed` is false when it is the one already held.
    package mutating func fetchSucceeded(expiresAt: UnixTime?, issuedAt: UnixTime?, changed: Bool, now: UnixTime) -> Action {
        self.consecutiveFailures = 0
        if changed || self.held == nil {
            self.unchangedFetches = 0
            self.held = (expiresAt, min(issuedAt ?? now, now))
        } else {
            self.unchangedFetches += 1
            self.held?.expiresAt = expiresAt
        }
        guard let expiresAt, let start = self.held?.start else {
            self.state = .holding(renewAt: nil)
            return .waitForDemand
        }
        var at = self.renewalPoint(expiresAt: expiresAt, start: start)
        if self.unchangedFetches > 0, at <= now {
            // The same token again, already due: back off rather than ask in a tight loop.
            at = min(now + self.configuration.backoff.delay(attempt: self.unchangedFetches - 1, using: &self.random), expiresAt)
        } else if at <= now {
            // Too short-lived (or issued long ago) for the margin: use most of what is left.
            at = now + .milliseconds(Int64(((expiresAt - now).seconds * self.configuration.renewAt * 1000).rounded(.down)))
        }
        if self.unchangedFetches == 0 { at = max(at, now + self.configuration.minimumInterval) }
        at = min(at, expiresAt)
        self.state = .holding(renewAt: at)
        return .wait(until: at)
    }

    /// The source failed (or gave something unusable); any held token is kept.
    package mutating func fetchFailed(now: UnixTime) -> Action {
        self.consecutiveFailures += 1
        var delay = self.configuration.backoff.delay(attempt: self.consecutiveFailures - 1, using: &self.random)
        if let expiresAt = self.held?.expiresAt, expiresAt > now {
            // Leave room for more attempts before the held token runs out.
            delay = min(delay, max((expiresAt - now) / 2, self.configuration.minimumInterval))
        }
        let at = now + delay
        self.state = .retrying(at: at)
        return .wait(until: at)
    }

    /// The timer set by ``Action/wait(until:)`` fired (or the driver woke early, when the wall clock
    /// was set back: then it waits again).
    package mutating func timerFired(now: UnixTime) -> Action {
        switch self.state {
        case .idle:
            self.state = .fetching
            return .fetch
        case .fetching:
            return .none
        case .holding(nil):
            return .waitForDemand
        case .holding(let at?), .retrying(let at):
            guard now >= at else { return .wait(until: at) }
            self.state = .fetching
            return .fetch
        }
    }

    // MARK: Private

    /// `renew-at` of the lifetime and at least `renew-before` before expiry.
    private func renewalPoint(expiresAt: UnixTime, start: UnixTime) -> UnixTime {
        let lifetime = (expiresAt - start).seconds
        let byFraction = start + .milliseconds(Int64((lifetime * self.configuration.renewAt * 1000).rounded(.down)))
        let byMargin = expiresAt - self.configuration.renewBefore
        return min(byFraction, byMargin)
    }
}

extension UnixTime {
    static func - (lhs: Self, rhs: Duration) -> Self {
        UnixTime(secondsSince1970: lhs.secondsSince1970 - rhs.seconds)
    }
}
