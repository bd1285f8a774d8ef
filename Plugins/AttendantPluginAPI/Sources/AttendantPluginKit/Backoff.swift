/// How long to wait before retry number n: geometric growth up to a cap, with jitter.
///
/// - ``Jitter/full``: a random time between zero and the ceiling (AWS's "full jitter", which spreads
///   reconnecting clients best); the host's supervisor and token manager use it.
/// - ``Jitter/upperHalf``: between half the ceiling and the ceiling, as RFC 5626 section 4.5 asks for flow
///   recovery (``rfc5626(someFlowsWork:)``).
/// - ``Jitter/none``: the ceiling itself.
@frozen
public struct Backoff: Sendable, Hashable {
    @frozen
    public enum Jitter: Sendable, Hashable {
        case full
        case upperHalf
        case none
    }

    public var base: Duration
    public var factor: Double
    public var cap: Duration
    public var jitter: Jitter

    @inlinable
    public init(base: Duration = .seconds(1), factor: Double = 2, cap: Duration = .seconds(300), jitter: Jitter = .full) {
        self.base = base
        self.factor = factor
        self.cap = cap
        self.jitter = jitter
    }

    /// RFC 5626 section 4.5: after `n` failed attempts to recover a flow, wait between 50 % and 100 % of
    /// `min(max-time, base-time · 2^n)`, with base-time 30 s when no flow works and 90 s when some do, and
    /// max-time 1800 s.
    @inlinable
    public static func rfc5626(someFlowsWork: Bool) -> Backoff {
        Backoff(base: .seconds(someFlowsWork ? 90 : 30), factor: 2, cap: .seconds(1800), jitter: .upperHalf)
    }

    /// The upper bound of the wait before retry number `attempt` (0 for the first retry).
    public func ceiling(attempt: Int) -> Duration {
        var grown = Double(self.base.components.seconds) + Double(self.base.components.attoseconds) / 1e18
        let cap = Double(self.cap.components.seconds) + Double(self.cap.components.attoseconds) / 1e18
        // Multiplied step by step, stopping at the cap, so a large attempt number cannot overflow.
        var step = 0
        while step < attempt, grown < cap {
            grown *= self.factor
            step += 1
        }
        return .milliseconds(Int64(min(grown, cap) * 1000))
    }

    /// A random wait before retry number `attempt`.
    public func delay(attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let ceiling = self.ceiling(attempt: attempt)
        switch self.jitter {
        case .full:
            return ceiling * Double.random(in: 0...1, using: &generator)
        case .upperHalf:
            return ceiling * Double.random(in: 0.5...1, using: &generator)
        case .none:
            return ceiling
        }
    }
}
