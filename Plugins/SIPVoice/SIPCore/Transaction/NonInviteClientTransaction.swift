/// The retransmission and timeout rules of a non-INVITE client transaction (RFC 3261 section 17.1.2),
/// without I/O: over UDP the request is resent after T1, 2·T1, 4·T1, … capped at T2 (and every T2 once a
/// provisional response arrived, timer E); on every transport the transaction gives up after 64·T1
/// (timer F). Timer K is left out: once a final response arrives the transaction is over, and late copies
/// of that response no longer match anything the caller waits for.
package struct NonInviteClientTransaction: Sendable {
    package enum State: Sendable, Hashable {
        case trying, proceeding, completed, terminated
    }

    package enum Timer: Sendable, Hashable {
        /// Timer E: retransmit (unreliable transports only).
        case retransmit
        /// Timer F: give up.
        case timeout
    }

    package enum Action: Sendable, Hashable {
        /// Put the request on the wire (first time or a retransmission).
        case send(SIPRequest)
        case setTimer(Timer, after: Duration)
        case cancelTimer(Timer)
        /// The transaction timed out (timer F): treat as a 408 (RFC 3261 section 8.1.3.1).
        case timedOut
    }

    package let request: SIPRequest
    /// The top Via branch: responses that carry it belong to this transaction.
    package let branch: String
    package private(set) var state: State = .trying
    private let reliable: Bool
    private let timers: SIPTimers
    private var interval: Duration

    package init(request: SIPRequest, branch: String, reliable: Bool, timers: SIPTimers = SIPTimers()) {
        self.request = request
        self.branch = branch
        self.reliable = reliable
        self.timers = timers
        self.interval = timers.t1
    }

    package mutating func start() -> [Action] {
        var actions: [Action] = [.send(self.request)]
        if !self.reliable { actions.append(.setTimer(.retransmit, after: self.interval)) }
        actions.append(.setTimer(.timeout, after: self.timers.transactionTimeout))
        return actions
    }

    /// Whether `response` belongs to this transaction: same top Via branch, same CSeq method and number.
    package func matches(_ response: SIPResponse) -> Bool {
        guard let via = try? response.headers.topVia, via.branch == self.branch,
            let cseq = try? response.headers.cseq, let sent = try? self.request.headers.cseq
        else { return false }
        return cseq == sent
    }

    /// A response that ``matches(_:)`` this transaction arrived.
    package mutating func receive(_ response: SIPResponse) -> [Action] {
        switch self.state {
        case .trying, .proceeding:
            if response.isProvisional {
                self.state = .proceeding
                return []
            }
            self.state = .terminated
            return self.reliable ? [.cancelTimer(.timeout)] : [.cancelTimer(.retransmit), .cancelTimer(.timeout)]
        case .completed, .terminated:
            return []
        }
    }

    package mutating func timerFired(_ timer: Timer) -> [Action] {
        switch (timer, self.state) {
        case (.retransmit, .trying):
            self.interval = min(self.interval * 2, self.timers.t2)
            return [.send(self.request), .setTimer(.retransmit, after: self.interval)]
        case (.retransmit, .proceeding):
            return [.send(self.request), .setTimer(.retransmit, after: self.timers.t2)]
        case (.timeout, .trying), (.timeout, .proceeding):
            self.state = .terminated
            return self.reliable ? [.timedOut] : [.cancelTimer(.retransmit), .timedOut]
        default:
            return []
        }
    }
}
