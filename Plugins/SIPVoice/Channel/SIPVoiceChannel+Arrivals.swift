import AttendantPluginAPI
import AttendantPluginKit
import SIPCore

/// What arrives from the transport: responses for the registration machine, requests (calls and the
/// rest) answered where they came from, and the transport's own news (pongs, garbage, ICMP errors, a
/// closed flow).
extension SIPVoiceChannel {
    func arrived(_ arrival: SIPTransport.Arrival, flow: Generation) {
        // What arrives is answered before a timer it arms wakes another thread (an INVITE's 180).
        self.timers.startingAfter { self.arrivedStep(arrival, flow: flow) }
    }

    private func arrivedStep(_ arrival: SIPTransport.Arrival, flow: Generation) {
        self.step { state, effects in
            guard state.flow == flow else { return }
            switch arrival {
            case .message(.response(let response), _):
                self.drive(&state, &effects) { $0.receive(response) }
            case .message(.request(let request), let origin):
                self.received(request, from: origin, &state, &effects)
            case .pong:
                self.timers.cancel(.pongTimeout)
                self.armPing(&state)
            case .garbage(let error, let from, let closed):
                let closing = closed ? "; closed that connection" : ""
                effects.append(.log(.warning, "\(self.prefix): ignored a message from \(from) that is not valid SIP: \(error)\(closing)"))
            case .truncated(let from, let size):
                effects.append(.log(.warning, "\(self.prefix): ignored a datagram from \(from) that filled the whole \(size)-byte receive buffer and may be truncated; send requests that large over TCP"))
            case .unreachable(let reason):
                // Only an answer we wait for makes it news: a REGISTER that cannot arrive fails now rather
                // than after timer F's 32 s.
                guard state.machine?.isAwaitingResponse == true else { return }
                self.drive(&state, &effects) { $0.transportFailed("nothing answers at \(self.configuration.registrarDescription) (\(reason))") }
            case .closed(let reason):
                self.drive(&state, &effects) { $0.transportFailed(reason) }
            }
        }
    }

    func received(_ request: SIPRequest, from origin: SIPTransport.Origin, _ state: inout State, _ effects: inout [Effect]) {
        guard let transport = state.transport else { return }
        let actions = state.calls.receive(request, from: origin, listening: state.listening, identifiers: &state.identifiers, now: self.host.now()) {
            self.callSettings(transport)
        }
        self.apply(actions, &state, &effects)
    }
}
