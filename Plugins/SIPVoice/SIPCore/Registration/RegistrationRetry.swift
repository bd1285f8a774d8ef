package import AttendantPluginAPI

/// When to try a registrar again after a failure. The registrar's `Retry-After` (RFC 3261 sections 20.33
/// and 21.5.4) is the earliest next try. A registrar that does not answer at all (no response, 408, ICMP
/// unreachable, a refused connection, a binding that lapsed) is probed every 2-4 s, so that it is used
/// within seconds of coming back while costing it one REGISTER (or connection attempt) per probe. Other
/// transient failures (5xx without `Retry-After`) leave the delay to the host's backoff.
package struct RegistrationRetry: Sendable {
    /// The longest wait between probes of a registrar that does not answer.
    package static let probeCeiling = 4.0

    /// Failures in a row of a registrar that does not answer, since the last registration.
    package private(set) var probes = 0

    package init() {}

    /// The delay to hand the host with a transient failure (``ChannelError/retryAfter``); nil leaves it
    /// to the host's backoff. `statusCode` is nil when nothing answered.
    package mutating func delay(statusCode: Int?, retryAfter: UInt32?, using random: inout some RandomNumberGenerator) -> Duration? {
        if let retryAfter { return .seconds(Int64(retryAfter)) }
        guard statusCode == nil || statusCode == 408 else { return nil }
        self.probes += 1
        var ceiling = 0.5
        for _ in 1..<min(self.probes, 8) { ceiling *= 2 }
        let seconds = min(Self.probeCeiling, ceiling) * Double.random(in: 0.5...1, using: &random)
        return .milliseconds(Int64(seconds * 1000))
    }

    /// The registrar answered and registered: probing starts again from the shortest wait.
    package mutating func registered() {
        self.probes = 0
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
