package import AttendantPluginKit

/// An incoming call's INVITE server transaction (RFC 3261 section 17.2.1) with the few answers the
/// SIPVoice channel gives: it rings (`180 Ringing` with a To tag, after `100 Trying` if configured), and ends with `302 Moved
/// Temporarily` to a softphone (accept), `603 Decline`, `486 Busy Here`, `480 Temporarily Unavailable`
/// when the ring timeout passes, or `487 Request Terminated` when the caller sends CANCEL (which itself
/// gets `200 OK`). Every final response is a non-2xx, so the caller's ACK belongs to this transaction
/// (hop-by-hop, same branch): until it arrives the final response is retransmitted over UDP (timer G, up
/// to timer H); after it, timer I absorbs ACK copies. Pure: the driver sends what it is told and runs the
/// timers it is given.
package struct InviteServerTransaction: Sendable {
    package struct Configuration: Sendable, Hashable {
        /// TCP or TLS: no retransmissions, no linger after the ACK.
        package var reliable: Bool
        package var timers: SIPTimers = SIPTimers()
        /// Answer `480` if nobody accepts or declines within this time; nil leaves it to the caller.
        package var ringTimeout: Duration?
        /// This user agent's address, sent as Contact in `180 Ringing` (it creates an early dialog).
        package var localContact: SIPNameAddress?
        /// Send `100 Trying` before `180 Ringing`. Off by default: RFC 3261 section 17.2.1 lets a server
        /// transaction leave it out when its user agent answers within 200 ms, and this one rings at once
        /// (a proxy sends its own 100 hop by hop). One datagram less before the 180 the caller waits for.
        package var sendsTrying: Bool = false

        package init(reliable: Bool, ringTimeout: Duration? = nil, localContact: SIPNameAddress? = nil) {
            self.reliable = reliable
            self.ringTimeout = ringTimeout
            self.localContact = localContact
        }
    }

    package enum Timer: Sendable, Hashable {
        /// Nobody answered: send 480.
        case ringTimeout
        /// RFC 3261 timer G: retransmit the final response (UDP).
        case retransmitFinal
        /// RFC 3261 timer H: give up waiting for the ACK.
        case ackTimeout
        /// RFC 3261 timer I: absorb ACK retransmissions, then end.
        case linger
    }

    package typealias TimerID = AttendantPluginKit.TimerID<Timer>

    package enum State: Sendable, Hashable {
        case proceeding, completed, confirmed, terminated
    }

    /// How the call ended for the person it was for.
    package enum Outcome: Sendable, Hashable {
        /// Accepted: redirected to the softphone with 302.
        case redirected(SIPNameAddress)
        /// Declined with 603.
        case declined
        /// Refused as busy with 486.
        case busy
        /// Rang out: 480.
        case notAnswered
        /// The caller hung up first (CANCEL): a missed call.
        case cancelled
        /// Another branch of the forked call answered: the proxy cancelled this one with `Reason:
        /// SIP;cause=200` (RFC 3326 section 2, "Call completed elsewhere"; RFC 3261 sections 9.1 and 16.7).
        case answeredElsewhere
        /// Another branch declined the call with a 6xx, so the proxy cancelled this one with `Reason:
        /// SIP;cause=6xx` (RFC 3261 section 16.7 step 5, RFC 3326): declined, not missed.
        case declinedElsewhere(cause: Int)
        /// Another final response chosen by the caller of ``respond(statusCode:reasonPhrase:)``.
        case rejected(Int)
    }

    package enum Action: Sendable, Hashable {
        case send(SIPResponse)
        case setTimer(TimerID, after: Duration)
        case cancelTimer(TimerID)
        /// The call is over for the user; show it as answered, declined or missed.
        case ended(Outcome)
        /// The transaction is finished; forget it.
        case terminated
    }

    package let invite: SIPRequest
    /// The dialog the 180 established, from the callee's side.
    package let dialog: SIPDialogID
    /// Who calls (the INVITE's From) and whom (its To).
    package let caller: SIPNameAddress
    package let callee: SIPNameAddress
    /// The caller's Contact, if it sent one.
    package let remoteTarget: SIPURI?
    package private(set) var state: State = .proceeding
    package private(set) var outcome: Outcome?

    private let configuration: Configuration
    private let topVia: SIPVia
    private let sequence: UInt32
    private var lastProvisional: SIPResponse?
    private var finalResponse: SIPResponse?
    private var interval: Duration
    private var timers = TimerTable<Timer>()

    /// Takes an INVITE; throws if it lacks what a response needs (Via, From, To, Call-ID, CSeq INVITE).
    package init(invite: SIPRequest, localTag: String, configuration: Configuration) throws(SIPParseError) {
        guard invite.method == .invite else {
            throw SIPParseError(.startLine, "expected an INVITE, got \(invite.method)")
        }
        let cseq = try invite.headers.cseq
        guard cseq.method == .invite else {
            throw SIPParseError(.headerValue, "CSeq method \(cseq.method) does not match INVITE", at: .init(header: "CSeq"))
        }
        self.invite = invite
        self.topVia = try invite.headers.topVia
        self.sequence = cseq.number
        self.caller = try invite.headers.from
        self.callee = try invite.headers.to
        self.remoteTarget = try invite.headers.contacts.first?.uri
        self.dialog = SIPDialogID(callID: try invite.headers.callID, localTag: self.callee.tag ?? localTag, remoteTag: self.caller.tag)
        self.configuration = configuration
        self.interval = configuration.timers.t1
    }

    /// Rings: 100 Trying (if configured) and 180 Ringing, and the ring timeout.
    package mutating func start() -> [Action] {
        guard self.state == .proceeding, self.lastProvisional == nil else { return [] }
        var actions: [Action] = []
        if self.configuration.sendsTrying {
            actions.append(.send(SIPResponse.answering(self.invite, statusCode: 100)))
        }
        let ringing = self.response(180, contact: self.configuration.localContact)
        self.lastProvisional = ringing
        actions.append(.send(ringing))
        if let timeout = self.configuration.ringTimeout {
            actions.append(.setTimer(self.timers.arm(.ringTimeout), after: timeout))
        }
        return actions
    }

    /// Accept: `302 Moved Temporarily` with the softphone's address as Contact.
    package mutating func accept(redirectingTo contact: SIPNameAddress) -> [Action] {
        self.finish(self.response(302, contact: contact), outcome: .redirected(contact))
    }

    /// Decline: `603 Decline`.
    package mutating func decline() -> [Action] {
        self.finish(self.response(603), outcome: .declined)
    }

    /// Busy: `486 Busy Here`.
    package mutating func busy() -> [Action] {
        self.finish(self.response(486), outcome: .busy)
    }

    /// Any other final non-2xx response (300 to 699).
    package mutating func respond(statusCode: Int, reasonPhrase: String? = nil) -> [Action] {
        guard (300...699).contains(statusCode) else { return [] }
        return self.finish(self.response(statusCode, reasonPhrase: reasonPhrase), outcome: .rejected(statusCode))
    }

    /// Whether `request` belongs to this transaction: a retransmitted INVITE, the ACK for the final
    /// response, or a CANCEL for the INVITE (RFC 3261 sections 17.2.3 and 9.2).
    package func matches(_ request: SIPRequest) -> Bool {
        guard let via = try? request.headers.topVia else { return false }
        guard request.method == .invite || request.method == .ack || request.method == .cancel else { return false }
        if self.topVia.hasRFC3261Branch {
            return via.branch == self.topVia.branch && SIPSyntax.equalsIgnoringCase(via.sentBy, self.topVia.sentBy)
        }
        // RFC 2543 peers: compare the identifying headers instead.
        guard let callID = try? request.headers.callID, callID == self.dialog.callID,
            let from = try? request.headers.from, from.tag == self.caller.tag,
            let cseq = try? request.headers.cseq, cseq.number == self.sequence,
            via == self.topVia
        else { return false }
        if request.method == .ack {
            return (try? request.headers.to)?.tag == self.dialog.localTag
        }
        return request.uri.isEquivalent(to: self.invite.uri)
    }

    /// A request that ``matches(_:)`` arrived: a retransmitted INVITE gets the last response again, CANCEL
    /// ends a ringing call with 487 (answered elsewhere when its Reason says SIP cause 200, declined
    /// elsewhere when it says a 6xx), ACK confirms
    /// the final response. Others are ignored.
    package mutating func receive(_ request: SIPRequest) -> [Action] {
        guard self.matches(request) else { return [] }
        switch request.method {
        case .invite:
            switch self.state {
            case .proceeding: return self.lastProvisional.map { [.send($0)] } ?? []
            case .completed: return self.finalResponse.map { [.send($0)] } ?? []
            case .confirmed, .terminated: return []
            }
        case .cancel:
            let ok = SIPResponse.answering(request, statusCode: 200, toTag: self.dialog.localTag)
            guard self.state == .proceeding else { return [.send(ok)] }
            // RFC 3326: the CANCEL's Reason says why; an unreadable one is no reason.
            let reasons = (try? request.headers.reasons) ?? []
            let outcome: Outcome =
                if reasons.contains(where: { $0.isSIP(200) }) {
                    .answeredElsewhere
                } else if let declined = reasons.first(where: \.isSIPGlobalFailure), let cause = declined.cause {
                    .declinedElsewhere(cause: cause)
                } else {
                    .cancelled
                }
            return [.send(ok)] + self.finish(self.response(487), outcome: outcome)
        case .ack:
            guard self.state == .completed else { return [] }
            var actions = self.cancel(.retransmitFinal) + self.cancel(.ackTimeout)
            if self.configuration.reliable {
                self.state = .terminated
                actions.append(.terminated)
            } else {
                self.state = .confirmed
                actions.append(.setTimer(self.timers.arm(.linger), after: self.configuration.timers.t4))
            }
            return actions
        default:
            return []
        }
    }

    package mutating func timerFired(_ id: TimerID) -> [Action] {
        guard self.timers.fire(id) else { return [] }
        switch (id.kind, self.state) {
        case (.ringTimeout, .proceeding):
            return self.finish(self.response(480), outcome: .notAnswered)
        case (.retransmitFinal, .completed):
            guard let finalResponse = self.finalResponse else { return [] }
            self.interval = min(self.interval * 2, self.configuration.timers.t2)
            return [.send(finalResponse), .setTimer(self.timers.arm(.retransmitFinal), after: self.interval)]
        case (.ackTimeout, .completed):
            self.state = .terminated
            return self.cancel(.retransmitFinal) + [.terminated]
        case (.linger, .confirmed):
            self.state = .terminated
            return [.terminated]
        default:
            return []
        }
    }

    private func response(_ statusCode: Int, reasonPhrase: String? = nil, contact: SIPNameAddress? = nil) -> SIPResponse {
        SIPResponse.answering(self.invite, statusCode: statusCode, reasonPhrase: reasonPhrase, toTag: self.dialog.localTag, contact: contact)
    }

    private mutating func finish(_ response: SIPResponse, outcome: Outcome) -> [Action] {
        guard self.state == .proceeding else { return [] }
        self.state = .completed
        self.finalResponse = response
        self.outcome = outcome
        var actions = self.cancel(.ringTimeout)
        actions.append(.send(response))
        actions.append(.ended(outcome))
        if !self.configuration.reliable {
            actions.append(.setTimer(self.timers.arm(.retransmitFinal), after: self.interval))
        }
        actions.append(.setTimer(self.timers.arm(.ackTimeout), after: self.configuration.timers.transactionTimeout))
        return actions
    }

    private mutating func cancel(_ kind: Timer) -> [Action] {
        self.timers.disarm(kind).map { [.cancelTimer($0)] } ?? []
    }
}

/// A dialog's identity (RFC 3261 section 12): Call-ID and both tags, from this side's point of view.
package struct SIPDialogID: Sendable, Hashable, CustomStringConvertible {
    package var callID: String
    package var localTag: String
    /// Nil for an RFC 2543 peer that sent no From tag.
    package var remoteTag: String?

    package init(callID: String, localTag: String, remoteTag: String?) {
        self.callID = callID
        self.localTag = localTag
        self.remoteTag = remoteTag
    }

    package var description: String { "\(self.callID);local=\(self.localTag);remote=\(self.remoteTag ?? "-")" }
}

/// The key that routes incoming requests to server transactions (RFC 3261 section 17.2.3): the top Via's
/// branch and sent-by, and the method, with ACK filed under INVITE. CANCEL has its own key; find the
/// INVITE it cancels with ``forCancelledInvite``.
package struct SIPServerTransactionKey: Sendable, Hashable {
    package var branch: String
    package var sentBy: String
    package var method: SIPMethod

    /// Nil for requests whose top Via lacks an RFC 3261 branch (match those with
    /// ``InviteServerTransaction/matches(_:)``).
    package init?(_ request: SIPRequest) {
        guard let via = try? request.headers.topVia, via.hasRFC3261Branch, let branch = via.branch else { return nil }
        self.branch = branch
        self.sentBy = SIPSyntax.lowercased(via.sentBy)
        self.method = request.method == .ack ? .invite : request.method
    }

    /// The key of the INVITE transaction a CANCEL with this key cancels.
    package var forCancelledInvite: SIPServerTransactionKey {
        var key = self
        key.method = .invite
        return key
    }
}
