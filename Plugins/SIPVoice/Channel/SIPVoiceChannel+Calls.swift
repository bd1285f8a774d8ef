import AttendantPluginAPI
import AttendantPluginKit
import SIPCore

/// Incoming calls: SIPCore's ``SIPCallTable`` decides; accepting runs the answer command (or takes the
/// softphone's address) first.
extension SIPVoiceChannel {
    typealias Calls = Agent.Calls

    func accept(_ id: String) async throws -> ChannelReply {
        let call = try self.driver.withState { state throws(ChannelError) in try state.agent.calls.beginAnswering(id) }
        let target: SIPNameAddress
        do {
            target = try await self.redirectTarget(for: call)
        } catch {
            self.driver.withState { $0.agent.calls.answeringFailed(id) }
            throw error
        }
        try self.driver.run { agent throws(ChannelError) in try agent.accept(id, redirectingTo: target) }
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
            localContact: SIPNameAddress(uri: transport.address(scheme: self.configuration.contactScheme).contact(user: self.configuration.addressOfRecord.user)),
            timers: self.configuration.timers,
            canAccept: self.configuration.canAccept
        )
    }
}
