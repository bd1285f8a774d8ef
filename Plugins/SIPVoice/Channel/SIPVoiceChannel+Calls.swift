import AttendantPluginAPI
import AttendantPluginKit
import SIPCore

/// Incoming calls: an INVITE rings (a contact, then 100 and 180), Accept redirects it, Decline refuses it,
/// and each call's INVITE server transaction decides the rest (CANCEL, ring timeout, ACKs).
extension SIPVoiceChannel {
    // MARK: Accept and decline

    func accept(_ id: String) async throws -> ChannelReply {
        let call = try self.withState { state throws(ChannelError) -> Call in
            guard var call = state.calls[id], call.transaction.state == .proceeding else {
                throw ChannelError(.illegalState, "\(self.prefix): call \(id) is not ringing (any more)")
            }
            guard !call.answering else { throw ChannelError(.illegalState, "\(self.prefix): call \(id) is already being answered") }
            call.answering = true
            state.calls[id] = call
            return call
        }
        let target: SIPNameAddress
        if let command = self.configuration.answerCommand {
            let answer = AnswerCommand(argv: command, timeout: self.configuration.answerTimeout)
            do {
                target = try await answer.run(environment: [
                    "ATTENDANT_CHANNEL": self.host.channelName,
                    "ATTENDANT_CALL_ID": id,
                    "ATTENDANT_CALLER_NAME": call.transaction.caller.displayName ?? "",
                    "ATTENDANT_CALLER_URI": call.transaction.caller.uri.description,
                    "ATTENDANT_CALLEE_URI": call.transaction.callee.uri.description,
                ])
            } catch {
                self.withState { $0.calls[id]?.answering = false }
                throw ChannelError(.server, "\(self.prefix): the call keeps ringing: \(error)")
            }
        } else if let contact = self.configuration.softphoneContact {
            target = contact
        } else {
            self.withState { $0.calls[id]?.answering = false }
            throw ChannelError(.configuration, "\(self.prefix): there is nowhere to send an accepted call; set softphone-contact or answer-command in [channel.sip-voice]")
        }
        try self.finish(id, verb: "accept") { $0.accept(redirectingTo: target) }
        return .done
    }

    func finish(_ id: String, verb: String, _ decide: (inout InviteServerTransaction) -> [InviteServerTransaction.Action]) throws {
        try self.step { state, effects throws(ChannelError) in
            guard var call = state.calls[id], call.transaction.state == .proceeding else {
                throw ChannelError(.illegalState, "\(self.prefix): cannot \(verb) call \(id): it is not ringing (the caller may have hung up)")
            }
            let actions = decide(&call.transaction)
            call.answering = false
            state.calls[id] = call
            self.applyCall(id, actions, &state, &effects)
        }
    }

    /// A new INVITE: the contact is raised first (the user sees it as soon as possible), then 100 and 180
    /// go out.
    func ring(_ invite: SIPRequest, transport: SIPTransport, origin: SIPTransport.Origin, _ state: inout State, _ effects: inout [Effect]) {
        guard state.listening else {
            effects.append(.send(transport, .response(.answering(invite, statusCode: 480, toTag: state.identifiers.tag())), to: origin))
            return
        }
        var configuration = InviteServerTransaction.Configuration(
            reliable: transport.kind.isReliable,
            ringTimeout: self.configuration.ringTimeout,
            localContact: SIPNameAddress(uri: self.contactURI(transport))
        )
        configuration.timers = self.configuration.timers
        var transaction: InviteServerTransaction
        do {
            transaction = try InviteServerTransaction(invite: invite, localTag: state.identifiers.tag(), configuration: configuration)
        } catch {
            effects.append(.log(.warning, "\(self.prefix): refused an INVITE that lacks what a call needs: \(error)"))
            if (try? invite.headers.topVia) != nil {
                effects.append(.send(transport, .response(.answering(invite, statusCode: 400, reasonPhrase: "Bad Request")), to: origin))
            }
            return
        }
        let id = transaction.dialog.callID
        guard state.calls[id] == nil else {
            // A second INVITE for a call already here (a forked or looped copy): this phone is busy with it.
            effects.append(.send(transport, .response(.answering(invite, statusCode: 482, toTag: state.identifiers.tag())), to: origin))
            return
        }
        let caller = transaction.caller
        let contact = Contact(
            id: id,
            kind: .call,
            from: Party(displayName: caller.displayName ?? "", address: caller.uri.description),
            summary: "Call to \(transaction.callee.uri)",
            receivedAt: self.host.now(),
            actions: self.configuration.canAccept ? [.accept, .decline] : [.decline]
        )
        let actions = transaction.start()
        state.calls[id] = Call(transaction: transaction, contact: contact, origin: origin)
        // The caller hears ringing first: the answers go out on this thread before the event wakes the
        // daemon's own (on two cores its work would otherwise compete with the sends).
        self.applyCall(id, actions, &state, &effects)
        effects.append(.emit(.incomingContact(contact)))
    }

    /// Ends every ringing call with `statusCode` (the channel is going away) and forgets all calls.
    func endCalls(_ state: inout State, _ effects: inout [Effect], statusCode: Int?, reason: String) {
        for id in state.calls.keys {
            guard var call = state.calls[id] else { continue }
            if call.transaction.state == .proceeding {
                if let statusCode, state.transport != nil {
                    let actions = call.transaction.respond(statusCode: statusCode, reasonPhrase: reason)
                    state.calls[id] = call
                    self.applyCall(id, actions, &state, &effects)
                } else {
                    effects.append(.emit(.contactEnded(contactID: id, outcome: .missed)))
                }
            }
        }
        // Once for every call: a scan of the timers per call would make ending many calls quadratic.
        self.timers.cancelAll { if case .call = $0 { true } else { false } }
        state.calls = [:]
    }

    func applyCall(_ id: String, _ actions: [InviteServerTransaction.Action], _ state: inout State, _ effects: inout [Effect]) {
        for action in actions {
            switch action {
            case .send(let response):
                if let transport = state.transport { effects.append(.send(transport, .response(response), to: state.calls[id]?.origin)) }
            case .setTimer(let timer, let delay):
                self.arm(.call(id, timer), after: delay)
            case .cancelTimer(let timer):
                self.timers.cancel(.call(id, timer))
            case .ended(let outcome):
                let (result, how) = Self.describe(outcome)
                effects.append(.emit(.contactEnded(contactID: id, outcome: result)))
                effects.append(.log(.info, "\(self.prefix): call \(id) \(how)"))
            case .terminated:
                state.calls[id] = nil
            }
        }
    }

    static func describe(_ outcome: InviteServerTransaction.Outcome) -> (ContactOutcome, String) {
        switch outcome {
        case .redirected(let target): (.answered, "accepted: redirected to \(target.uri) (302)")
        case .declined: (.declined, "declined (603)")
        case .busy: (.declined, "refused as busy (486)")
        case .notAnswered: (.missed, "not answered within the ring timeout (480)")
        case .cancelled: (.missed, "cancelled by the caller (487)")
        case .rejected(let status): (.missed, "ended with \(status)")
        }
    }
}
