import AttendantPluginAPI
import AttendantPluginKit
import SIPCore

/// Incoming calls: SIPCore's ``SIPCallTable`` decides; accepting runs the answer command (or takes the
/// softphone's address) first.
extension SIPVoiceChannel {
    typealias Calls = SIPCallTable<SIPTransport.Origin>

    func accept(_ id: String) async throws -> ChannelReply {
        let call = try self.withState { state throws(ChannelError) in try state.calls.beginAnswering(id) }
        let target: SIPNameAddress
        do {
            target = try await self.redirectTarget(for: call)
        } catch {
            self.withState { $0.calls.answeringFailed(id) }
            throw error
        }
        try self.step { state, effects throws(ChannelError) in
            self.apply(try state.calls.accept(id, redirectingTo: target), &state, &effects)
        }
        return .done
    }

    /// Where an accepted call goes: what the answer command prints, or the configured softphone.
    func redirectTarget(for call: Calls.Call) async throws(ChannelError) -> SIPNameAddress {
        if let command = self.configuration.answerCommand {
            do {
                return try await AnswerCommand(argv: command, timeout: self.configuration.answerTimeout).run(environment: [
                    "ATTENDANT_CHANNEL": self.host.channelName,
                    "ATTENDANT_CALL_ID": call.contact.id,
                    "ATTENDANT_CALLER_NAME": call.transaction.caller.displayName ?? "",
                    "ATTENDANT_CALLER_URI": call.transaction.caller.uri.description,
                    "ATTENDANT_CALLEE_URI": call.transaction.callee.uri.description,
                ])
            } catch {
                throw ChannelError(.server, "\(self.prefix): the call keeps ringing: \(error)")
            }
        }
        guard let contact = self.configuration.softphoneContact else {
            throw ChannelError(.configuration, "\(self.prefix): there is nowhere to send an accepted call; set softphone-contact or answer-command in [channel.sip-voice]")
        }
        return contact
    }

    /// How a new call is set up on `transport`.
    func callSettings(_ transport: SIPTransport) -> Calls.Settings {
        Calls.Settings(
            reliable: transport.kind.isReliable,
            ringTimeout: self.configuration.ringTimeout,
            localContact: SIPNameAddress(uri: self.contactURI(transport)),
            timers: self.configuration.timers,
            canAccept: self.configuration.canAccept
        )
    }

    /// Ends every ringing call with `statusCode` (the channel is going away) and forgets all calls.
    func endCalls(_ state: inout State, _ effects: inout [Effect], statusCode: Int?, reason: String) {
        self.apply(state.calls.endAll(respondingWith: state.transport == nil ? nil : statusCode, reason: reason), &state, &effects)
        // Once for every call: a scan of the timers per call would make ending many calls quadratic.
        self.timers.cancelAll { if case .call = $0 { true } else { false } }
    }

    /// Carries out the call table's actions.
    func apply(_ actions: [Calls.Action], _ state: inout State, _ effects: inout [Effect]) {
        for action in actions {
            switch action {
            case .send(let response, let origin):
                if let transport = state.transport { effects.append(.send(transport, .response(response), to: origin)) }
            case .setTimer(let id, let timer, let delay):
                self.arm(.call(id, timer), after: delay)
            case .cancelTimer(let id, let timer):
                self.timers.cancel(.call(id, timer))
            case .emit(let event):
                effects.append(.emit(event))
            case .log(let level, let message):
                effects.append(.log(level, "\(self.prefix): \(message)"))
            }
        }
    }
}
