/// RFC 5626 timing for a registered flow: when to send the next CRLFCRLF ping, how long to wait for the
/// pong, and how long to wait before recovering a failed flow. The random parts come from the caller's
/// generator, so tests can fix them.
package enum SIPOutbound {
    /// How long a pong may take before the flow counts as failed (RFC 5626 section 4.4.1).
    package static let pongTimeout: Duration = .seconds(10)

    /// The delay before the next keep-alive: a random 80 to 100 % of the registrar's `Flow-Timer`, or 95 to
    /// 120 s without one (RFC 5626 section 4.4.1, connection-oriented transports).
    package static func keepAliveInterval(flowTimer: UInt32?, using generator: inout some RandomNumberGenerator) -> Duration {
        let milliseconds: Int64
        if let flowTimer, flowTimer > 0 {
            let upper = Int64(flowTimer) * 1000
            milliseconds = Int64.random(in: (upper * 8 / 10)...upper, using: &generator)
        } else {
            milliseconds = Int64.random(in: 95_000...120_000, using: &generator)
        }
        return .milliseconds(milliseconds)
    }

    /// The wait before trying to register a failed flow again (RFC 5626 section 4.5):
    /// `min(1800, base · 2^failures)` seconds, base 30 when every flow failed and 90 otherwise, times a
    /// random 50 to 100 %.
    package static func recoveryDelay(
        consecutiveFailures: Int,
        allFlowsFailed: Bool = true,
        using generator: inout some RandomNumberGenerator
    ) -> Duration {
        let base: Int64 = allFlowsFailed ? 30 : 90
        let exponent = min(max(0, consecutiveFailures), 16)
        let wait = min(1800, base << Int64(exponent)) * 1000
        return .milliseconds(Int64.random(in: (wait / 2)...wait, using: &generator))
    }
}
