package import AttendantPluginAPI
package import AttendantPluginKit

/// When to try a registrar again after a failure. The registrar's `Retry-After` (RFC 3261 sections 20.33
/// and 21.5.4) is the earliest next try, and the try comes at a random time up to as long again after it.
/// A registrar that does not answer at all (no response, 408, ICMP unreachable, a refused connection, a
/// binding that lapsed) is probed every 2-4 s for its first minute or so of silence, so that it is used
/// within seconds of coming back from a short outage while costing it one REGISTER (or connection attempt)
/// per probe; after that the probes slow down, doubling to one every 1-2 minutes, so that a fleet of
/// desks does not flood a registrar that is down for long, nor bury it when it comes back
/// (Benchmarks/README.md, "Fleet model"). A registrar that answers with a server error (5xx) and no
/// `Retry-After` is up but refusing: it is tried again after a random wait of up to 30 s, doubling to up to
/// 5 minutes (RFC 5626 section 4.5's base-time for a registration with no working flow, with full jitter,
/// which spreads a turned-away fleet best: the fleet model's retries peaked at 10.9 × their mean with the
/// host's 1-s backoff, 2.1 × with this). Other failures leave the delay to the host's backoff.
package struct RegistrationRetry: Sendable {
    /// The longest wait between the first minute's probes of a registrar that does not answer.
    package static let probeCeiling = 4.0
    /// The probes at most `probeCeiling` apart (about a minute of them), before they slow down.
    package static let quickProbes = 16
    /// The longest wait between later probes.
    package static let slowProbeCeiling = 120.0

    /// Failures in a row of a registrar that does not answer, since the last registration.
    package private(set) var probes = 0
    /// Server errors without `Retry-After` since the last registration.
    package private(set) var refusals = 0
    /// The wait after a server error without `Retry-After`.
    package static let refusalBackoff = Backoff(base: .seconds(30), factor: 2, cap: .seconds(300), jitter: .full)

    package init() {}

    /// The delay to hand the host with a transient failure (``ChannelError/retryAfter``); nil leaves it
    /// to the host's backoff. `statusCode` is nil when nothing answered.
    package mutating func delay(statusCode: Int?, retryAfter: UInt32?, using random: inout some RandomNumberGenerator) -> Duration? {
        if let retryAfter {
            // At least what the registrar asked, and up to as long again: every desk it turned away with the
            // same Retry-After would otherwise come back in the same second, and be turned away again
            // (Benchmarks/FleetModel: 10,000 desks waiting exactly 60 s took 49 minutes to register again,
            // spread they took as long as without Retry-After).
            let seconds = Double(retryAfter) * Double.random(in: 1...2, using: &random)
            return .milliseconds(Int64(seconds * 1000))
        }
        if let statusCode, (500..<600).contains(statusCode) {
            self.refusals += 1
            return Self.refusalBackoff.delay(attempt: self.refusals - 1, using: &random)
        }
        guard statusCode == nil || statusCode == 408 else { return nil }
        self.probes += 1
        // 0.5, 1, 2, 4, 4, … s for the quick probes, then 8, 16, … up to the slow ceiling; each wait is half
        // to all of its ceiling.
        var ceiling = 0.5
        for _ in 1..<min(self.probes, 4) { ceiling *= 2 }
        for _ in Self.quickProbes..<max(self.probes, Self.quickProbes) where ceiling < Self.slowProbeCeiling { ceiling *= 2 }
        let seconds = min(ceiling, self.probes > Self.quickProbes ? Self.slowProbeCeiling : Self.probeCeiling)
        return .milliseconds(Int64(seconds * Double.random(in: 0.5...1, using: &random) * 1000))
    }

    /// The registrar answered and registered: probing starts again from the shortest wait.
    package mutating func registered() {
        self.probes = 0
        self.refusals = 0
    }
}

extension RegistrationError {
    /// What the host does about the failure: ask the user to sign in, wait for a configuration change, or
    /// try again.
    package var channelErrorCode: ChannelError.Code {
        switch self.code {
        case .authentication: .authentication
        case .configuration: .configuration
        default: .transient
        }
    }
}
