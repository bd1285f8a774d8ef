package import AttendantPluginAPI
import AttendantPluginKit

/// A user agent's incoming calls, by Call-ID: one INVITE server transaction each with the contact the user
/// sees, and what the agent answers to requests that belong to no call. An INVITE rings (its 180 first,
/// then the contact), accepting redirects it, declining refuses it, and each call's transaction decides the
/// rest (CANCEL, the ring timeout, ACKs).
///
/// Pure, like the transactions: the driver hands it what arrives, the user's answers and the timers that
/// fire, and carries out the ``Action``s it returns, so the whole of call handling is tested without a
/// network. A request's ``SIPOrigin`` is where its responses go back.
package struct SIPCallTable: Sendable {
    package typealias Origin = SIPOrigin

    package struct Call: Sendable {
        package var transaction: InviteServerTransaction
        package var contact: Contact
        /// Where the INVITE came from: its responses go there.
        package var origin: Origin
        /// An answer is being prepared for it (an answer command runs).
        package var answering = false
        /// The softphone ringing beside this fork was told to answer it (`accept = "softphone"`).
        package var handedToSoftphone = false
    }

    /// How a new call is set up on the current flow.
    package struct Settings: Sendable {
        package var reliable: Bool
        package var ringTimeout: Duration?
        package var localContact: SIPNameAddress
        package var timers: SIPTimers
        /// Whether the user can accept calls here (there is somewhere to redirect them), or only decline.
        package var canAccept: Bool

        package init(reliable: Bool, ringTimeout: Duration?, localContact: SIPNameAddress, timers: SIPTimers, canAccept: Bool) {
            self.reliable = reliable
            self.ringTimeout = ringTimeout
            self.localContact = localContact
            self.timers = timers
            self.canAccept = canAccept
        }
    }

    package enum Action: Sendable {
        /// Send `response` to `origin` (nil: the flow's peer).
        case send(SIPResponse, to: Origin?)
        case setTimer(callID: String, InviteServerTransaction.TimerID, after: Duration)
        case cancelTimer(callID: String, InviteServerTransaction.TimerID)
        case emit(ChannelEvent)
        /// A line for the log (the driver names the channel).
        case log(Logger.Level, String)
    }

    /// Ringing and recently ended calls, by Call-ID (the contact's id).
    package private(set) var calls: [String: Call] = [:]

    /// The methods the agent allows.
    package static var allowed: String { "INVITE, ACK, CANCEL, OPTIONS, BYE" }

    package init() {}

    /// How many calls ring now.
    package var ringingCount: Int { self.calls.values.count { $0.transaction.state == .proceeding } }

    // MARK: Requests

    /// A request from `origin`. A new INVITE rings when the agent is `listening` (it is refused with 480
    /// otherwise); `settings` is asked for only then. `identifiers` makes the tags of the answers.
    package mutating func receive(
        _ request: SIPRequest,
        from origin: Origin,
        listening: Bool,
        identifiers: inout SIPIdentifiers,
        now: UnixTime,
        settings: () -> Settings
    ) -> [Action] {
        switch request.method {
        case .invite, .ack, .cancel:
            // Calls are kept by Call-ID, which every request of a transaction repeats: look the call up by it
            // and let the transaction confirm the match, instead of asking every call (each `matches` parses
            // the request's Via, and finished UDP calls linger for T4, so a scan cost grows with recent calls).
            if let id = try? request.headers.callID, var transaction = self.calls[id]?.transaction, transaction.matches(request) {
                let actions = transaction.receive(request)
                self.calls[id]?.transaction = transaction
                return self.apply(id, actions)
            } else if request.method == .invite {
                guard listening else { return [.send(.answering(request, statusCode: 480, toTag: identifiers.tag()), to: origin)] }
                return self.ring(request, from: origin, identifiers: &identifiers, now: now, settings: settings())
            } else if request.method == .cancel {
                return [.send(.answering(request, statusCode: 481), to: origin)]
            }
            return []
        case .options:
            var headers = SIPHeaders()
            headers.add(.allow, Self.allowed)
            return [.send(.answering(request, statusCode: 200, toTag: identifiers.tag(), extraHeaders: headers), to: origin)]
        case .bye:
            return [.send(.answering(request, statusCode: 481), to: origin)]
        default:
            var headers = SIPHeaders()
            headers.add(.allow, Self.allowed)
            return [.send(.answering(request, statusCode: 405, extraHeaders: headers), to: origin)]
        }
    }

    /// A new INVITE: the 180 goes out first (the caller hears ringing before the daemon's own threads wake
    /// for the contact), then the contact is raised.
    mutating func ring(_ invite: SIPRequest, from origin: Origin, identifiers: inout SIPIdentifiers, now: UnixTime, settings: Settings) -> [Action] {
        var configuration = InviteServerTransaction.Configuration(
            reliable: settings.reliable,
            ringTimeout: settings.ringTimeout,
            localContact: settings.localContact
        )
        configuration.timers = settings.timers
        var transaction: InviteServerTransaction
        do {
            transaction = try InviteServerTransaction(invite: invite, localTag: identifiers.tag(), configuration: configuration)
        } catch {
            var actions: [Action] = [.log(.warning, "refused an INVITE that lacks what a call needs: \(error)")]
            if (try? invite.headers.topVia) != nil {
                actions.append(.send(.answering(invite, statusCode: 400, reasonPhrase: "Bad Request"), to: origin))
            }
            return actions
        }
        let id = transaction.dialog.callID
        guard self.calls[id] == nil else {
            // A second INVITE for a call already here (a forked or looped copy): this phone is busy with it.
            return [.send(.answering(invite, statusCode: 482, toTag: identifiers.tag()), to: origin)]
        }
        let caller = SIPCaller(invite: invite, trustingAssertedIdentity: origin.isRegistrarFlow)
        var contact = Contact(
            id: id,
            kind: .call,
            from: caller.party,
            summary: "Call to \(transaction.callee.uri)",
            receivedAt: now,
            actions: settings.canAccept ? [.accept, .decline] : [.decline]
        )
        contact.fromAsserted = caller.asserted
        contact.diversion = caller.diversion
        let actions = transaction.start()
        self.calls[id] = Call(transaction: transaction, contact: contact, origin: origin)
        return self.apply(id, actions) + [.emit(.incomingContact(contact))]
    }

    // MARK: The user's answers

    /// Marks ringing call `id` as being answered (its answer command runs) and returns it.
    package mutating func beginAnswering(_ id: String) throws(ChannelError) -> Call {
        guard var call = self.calls[id], call.transaction.state == .proceeding else {
            throw ChannelError(.illegalState, "sip-voice: call \(id) is not ringing (any more)")
        }
        guard !call.answering else { throw ChannelError(.illegalState, "sip-voice: call \(id) is already being answered") }
        guard !call.handedToSoftphone else {
            throw ChannelError(.illegalState, "sip-voice: call \(id) was already handed to the softphone, which should be answering it")
        }
        call.answering = true
        self.calls[id] = call
        return call
    }

    /// The answer for call `id` could not be prepared: it keeps ringing and can be answered again.
    package mutating func answeringFailed(_ id: String) {
        self.calls[id]?.answering = false
    }

    /// Redirects ringing call `id` to `target` (302).
    package mutating func accept(_ id: String, redirectingTo target: SIPNameAddress) throws(ChannelError) -> [Action] {
        try self.finish(id, verb: "accept") { $0.accept(redirectingTo: target) }
    }

    /// The softphone registered beside this user agent was told to answer ringing call `id`. No final
    /// response goes out on this fork: the forking proxy CANCELs it once the softphone's 200 arrives (RFC
    /// 3261 section 16.7 step 10), with `Reason: SIP;cause=200` (RFC 3326), which ends it as answered
    /// elsewhere; a 2xx or 3xx from here would race the softphone's answer, and Twilio refuses a 3xx from a
    /// registered endpoint (error 32219).
    package mutating func handedToSoftphone(_ id: String) -> [Action] {
        guard var call = self.calls[id], call.transaction.state == .proceeding else {
            // The softphone answered before its command returned, and the proxy's CANCEL already ended this
            // fork (answered elsewhere), or the caller hung up meanwhile: either way, nothing is left to do.
            return [.log(.info, "call \(id): the softphone was told to answer; this fork had already ended")]
        }
        call.answering = false
        call.handedToSoftphone = true
        self.calls[id] = call
        return [.log(.info, "call \(id): the softphone was told to answer; this fork rings on until the proxy cancels it")]
    }

    /// Refuses ringing call `id` (603).
    package mutating func decline(_ id: String) throws(ChannelError) -> [Action] {
        try self.finish(id, verb: "decline") { $0.decline() }
    }

    mutating func finish(
        _ id: String,
        verb: String,
        _ decide: (inout InviteServerTransaction) -> [InviteServerTransaction.Action]
    ) throws(ChannelError) -> [Action] {
        guard var call = self.calls[id], call.transaction.state == .proceeding else {
            throw ChannelError(.illegalState, "sip-voice: cannot \(verb) call \(id): it is not ringing (the caller may have hung up)")
        }
        let actions = decide(&call.transaction)
        call.answering = false
        self.calls[id] = call
        return self.apply(id, actions)
    }

    // MARK: Timers and the end

    package mutating func timerFired(callID id: String, _ timer: InviteServerTransaction.TimerID) -> [Action] {
        guard var call = self.calls[id] else { return [] }
        let actions = call.transaction.timerFired(timer)
        self.calls[id] = call
        return self.apply(id, actions)
    }

    /// Ends every ringing call (the agent is going away): with `statusCode` when the flow can still carry
    /// it, else as missed; then forgets all calls. The driver cancels every call's timers afterwards.
    package mutating func endAll(respondingWith statusCode: Int?, reason: String) -> [Action] {
        var actions: [Action] = []
        for id in self.calls.keys {
            guard var call = self.calls[id], call.transaction.state == .proceeding else { continue }
            if let statusCode {
                let answer = call.transaction.respond(statusCode: statusCode, reasonPhrase: reason)
                self.calls[id] = call
                actions += self.apply(id, answer)
            } else {
                actions.append(.emit(.contactEnded(contactID: id, outcome: .missed)))
            }
        }
        self.calls = [:]
        return actions
    }

    /// A transaction's actions as the table's.
    mutating func apply(_ id: String, _ actions: [InviteServerTransaction.Action]) -> [Action] {
        var result: [Action] = []
        result.reserveCapacity(actions.count + 1)
        for action in actions {
            switch action {
            case .send(let response):
                result.append(.send(response, to: self.calls[id]?.origin))
            case .setTimer(let timer, let delay):
                result.append(.setTimer(callID: id, timer, after: delay))
            case .cancelTimer(let timer):
                result.append(.cancelTimer(callID: id, timer))
            case .ended(let outcome):
                let (ended, how) = Self.describe(outcome)
                result.append(.emit(.contactEnded(contactID: id, outcome: ended)))
                result.append(.log(.info, "call \(id) \(how)"))
            case .terminated:
                self.calls[id] = nil
            }
        }
        return result
    }

    /// What became of a call, for the host and the log.
    package static func describe(_ outcome: InviteServerTransaction.Outcome) -> (ContactOutcome, String) {
        switch outcome {
        case .redirected(let target): (.answered, "accepted: redirected to \(target.uri) (302)")
        case .declined: (.declined, "declined (603)")
        case .busy: (.declined, "refused as busy (486)")
        case .notAnswered: (.missed, "not answered within the ring timeout (480)")
        case .cancelled: (.missed, "cancelled by the caller (487)")
        case .answeredElsewhere: (.answeredElsewhere, "answered elsewhere: cancelled with Reason SIP cause 200 (487)")
        case .declinedElsewhere(let cause): (.declined, "declined elsewhere: cancelled with Reason SIP cause \(cause) (487)")
        case .rejected(let status): (.missed, "ended with \(status)")
        }
    }
}
