import AttendantPluginAPI
import AttendantPluginKit
import SIPCore

/// Incoming calls: SIPCore's ``SIPCallTable`` decides; accepting runs the answer command (or takes the
/// softphone's address) first, and with `accept = "softphone"` only tells the softphone to answer.
extension SIPVoiceChannel {
    typealias Calls = Agent.Calls

    func accept(_ id: String) async throws -> ChannelReply {
        let call = try self.driver.withState { state throws(ChannelError) in try state.agent.calls.beginAnswering(id) }
        if self.configuration.acceptMode == .softphone {
            do {
                try await self.tellSoftphone(about: call)
            } catch {
                self.driver.withState { $0.agent.calls.answeringFailed(id) }
                throw error
            }
            self.driver.run { $0.handedToSoftphone(id) }
            return .done
        }
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

    /// `accept = "softphone"`: runs the answer command, which tells the softphone to answer.
    func tellSoftphone(about call: Calls.Call) async throws(ChannelError) {
        guard let command = self.configuration.answerCommand else {
            throw ChannelError(.configuration, "\(self.prefix): accept = \"softphone\" needs answer-command in [channel.sip-voice]")
        }
        do {
            try await AnswerCommand(argv: command, timeout: self.configuration.answerTimeout).tellSoftphone(
                environment: self.commandEnvironment(call)
            )
        } catch {
            throw ChannelError(
                .server,
                "\(self.prefix): the softphone was not told to answer, and the call rings on (accept again, or answer on the softphone): \(error)"
            )
        }
    }

    /// The call, for the answer command.
    func commandEnvironment(_ call: Calls.Call) -> [String: String] {
        [
            "ATTENDANT_CHANNEL": self.host.channelName,
            "ATTENDANT_CALL_ID": call.contact.id,
            "ATTENDANT_CALLER_NAME": call.transaction.caller.displayName ?? "",
            "ATTENDANT_CALLER_URI": call.transaction.caller.uri.description,
            "ATTENDANT_CALLEE_URI": call.transaction.callee.uri.description,
        ]
    }

    /// Where an accepted call goes: what the answer command prints, or the configured softphone.
    func redirectTarget(for call: Calls.Call) async throws(ChannelError) -> SIPNameAddress {
        if let command = self.configuration.answerCommand {
            do {
                return try await AnswerCommand(argv: command, timeout: self.configuration.answerTimeout).run(
                    environment: self.commandEnvironment(call)
                )
            } catch {
                throw ChannelError(.server, "\(self.prefix): the call keeps ringing: \(error)")
            }
        }
        guard let contact = self.configuration.softphoneContact else {
            throw ChannelError(
                .configuration,
                "\(self.prefix): there is nowhere to send an accepted call; set softphone-contact or answer-command in [channel.sip-voice]"
            )
        }
        return contact
    }

    /// How a new call is set up on `transport`.
    func callSettings(_ transport: SIPTransport) -> Calls.Settings {
        Calls.Settings(
            reliable: transport.kind.isReliable,
            ringTimeout: self.configuration.ringTimeout,
            localContact: SIPNameAddress(
                uri: transport.address(scheme: self.configuration.contactScheme).contact(user: self.configuration.addressOfRecord.user)
            ),
            timers: self.configuration.timers,
            canAccept: self.configuration.canAccept
        )
    }
}
