import AttendantPluginAPI

/// Exponential backoff with full jitter: the n-th retry waits a random time between zero and
/// `min(cap, base · factor^n)` (AWS's "full jitter", which spreads reconnecting clients best).
package struct Backoff: Sendable, Equatable {
    package var base: Duration = .seconds(1)
    package var factor: Double = 2
    package var cap: Duration = .seconds(300)

    package init(base: Duration = .seconds(1), factor: Double = 2, cap: Duration = .seconds(300)) {
        self.base = base
        self.factor = factor
        self.cap = cap
    }

    /// The upper bound of the wait before retry number `attempt` (0 for the first retry).
    package func ceiling(attempt: Int) -> Duration {
        let grown = self.base.seconds * Double.pow(self.factor, Double(min(attempt, 64)))
        return .milliseconds(Int64(min(grown, self.cap.seconds) * 1000))
    }

    /// A random wait before retry number `attempt`.
    package func delay(attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let ceiling = self.ceiling(attempt: attempt).seconds
        let fraction = Double.random(in: 0...1, using: &generator)
        return .milliseconds(Int64(ceiling * fraction * 1000))
    }
}

extension Double {
    static func pow(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        var remaining = Int(exponent)
        var factor = base
        while remaining > 0 {
            if remaining & 1 == 1 { result *= factor }
            factor *= factor
            remaining >>= 1
        }
        return result
    }
}
