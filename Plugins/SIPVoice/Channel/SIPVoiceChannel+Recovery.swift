import AttendantPluginAPI
import AttendantPluginKit
import SIPCore

/// Failures, and when to try again: the registrar's `Retry-After` (RFC 3261 sections 20.33 and 21.5.4) is
/// the earliest next try; a registrar that does not answer at all (no response, ICMP unreachable, a
/// refused connection, a binding that lapsed) is probed every 2-4 s, so that it is used within seconds of
/// coming back while costing it one REGISTER (or connection attempt) per probe; other transient failures
/// (5xx without `Retry-After`) leave the delay to the host's backoff.
extension SIPVoiceChannel {
    /// The longest wait between probes of a registrar that does not answer.
    static let probeCeiling = 4.0

    /// The delay to hand the host with a transient failure (``ChannelError/retryAfter``), nil for its backoff.
    func retryDelay(statusCode: Int?, retryAfter: UInt32?, _ state: inout State) -> Duration? {
        if let retryAfter { return .seconds(Int64(retryAfter)) }
        guard statusCode == nil || statusCode == 408 else { return nil }
        state.probes += 1
        var ceiling = 0.5
        for _ in 1..<min(state.probes, 8) { ceiling *= 2 }
        let seconds = min(Self.probeCeiling, ceiling) * Double.random(in: 0.5...1, using: &state.random)
        return .milliseconds(Int64(seconds * 1000))
    }

    func failed(_ error: RegistrationError, _ state: inout State, _ effects: inout [Effect]) {
        let code: ChannelError.Code =
            switch error.code {
            case .authentication: .authentication
            case .configuration: .configuration
            default: .transient
            }
        let retryAfter = code == .transient ? self.retryDelay(statusCode: error.statusCode, retryAfter: error.retryAfter, &state) : nil
        let failure = ChannelError(
            code, "\(self.prefix): registering \(self.configuration.addressOfRecord) at \(self.configuration.registrarDescription) failed: \(error.message)",
            retryAfter: retryAfter
        )
        let wasListening = state.listening
        state.listening = false
        state.grant = nil
        state.registeredAt = nil
        self.timers.cancel(.ping)
        self.timers.cancel(.pongTimeout)
        self.endCalls(&state, &effects, statusCode: nil, reason: "")
        if let transport = state.transport {
            state.transport = nil
            state.flow.advance()
            effects.append(.close(transport))
        }
        if let waiter = state.listenWaiter {
            state.listenWaiter = nil
            effects.append(.resume(waiter, failure))
        } else if !state.refreshWaiters.isEmpty {
            for waiter in state.refreshWaiters.values { effects.append(.resume(waiter, failure)) }
            state.refreshWaiters = [:]
        } else if wasListening {
            effects.append(.emit(.stoppedListening(failure)))
        }
        if let waiter = state.stopWaiter {
            state.stopWaiter = nil
            effects.append(.resumeStop(waiter))
        }
    }
}
