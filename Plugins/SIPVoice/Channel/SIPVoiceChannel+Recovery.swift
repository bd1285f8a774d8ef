import AttendantPluginAPI
import AttendantPluginKit
import SIPCore

/// A failed registration: the host hears it (with SIPCore's ``RegistrationRetry`` deciding when to try
/// again), and the flow, the calls and whoever waits are let go.
extension SIPVoiceChannel {
    func failed(_ error: RegistrationError, _ state: inout State, _ effects: inout [Effect]) {
        let code = error.channelErrorCode
        let retryAfter = code == .transient ? state.retry.delay(statusCode: error.statusCode, retryAfter: error.retryAfter, using: &state.random) : nil
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
