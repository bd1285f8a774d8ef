import Synchronization

/// An INVITE the simulator placed, as a UAC INVITE client transaction (RFC 3261 section 17.1.1): it
/// retransmits on UDP until a response arrives, ACKs every non-2xx final response (retransmissions too,
/// with the INVITE's branch) and can be cancelled.
package final class SimulatedCall: Sendable {
    /// RFC 3261 timer T1, and timer B (64·T1): how long an INVITE waits for any response.
    static let t1: Duration = .milliseconds(500)
    static let timerB: Duration = .seconds(32)

    /// What happened to a call, for the control API and the demo's log.
    package struct Summary: Sendable, Hashable {
        /// 1 for the simulator's first call, and so on.
        package var number: Int
        package var callID: String
        package var user: String
        /// `calling`, `ringing`, `completed`, `failed`.
        package var status: String
        package var finalCode: Int?
        package var finalReason: String?
        /// The Contact of a 3xx answer.
        package var redirectTo: String?
        /// Whether the caller sent CANCEL.
        package var cancelled: Bool
        /// Why the call failed without a final response.
        package var failure: String?
    }

    private struct State {
        var provisionals: [SimSIPMessage] = []
        var final: SimSIPMessage?
        var cancelResponse: SimSIPMessage?
        var cancelled = false
        var failure: SimulatorError?
        var timers: Task<Void, Never>?
    }

    package let callID: String
    /// The INVITE as sent.
    package let invite: SimSIPMessage
    let number: Int
    let user: String
    let branch: String
    private let flow: SIPFlow
    private let transport: SimSIPSockets
    private let state = Mutex(State())

    init(number: Int, user: String, invite: SimSIPMessage, branch: String, flow: SIPFlow, transport: SimSIPSockets) {
        self.number = number
        self.user = user
        self.invite = invite
        self.callID = invite.field("Call-ID") ?? ""
        self.branch = branch
        self.flow = flow
        self.transport = transport
    }

    /// Sends the INVITE and starts timers A (UDP only) and B.
    func send() throws {
        try self.transport.send(self.invite.serialized, on: self.flow)
        let reliable = if case .tcp = self.flow { true } else { false }
        let task = Task { [self] in
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: Self.timerB)
            var interval = Self.t1
            while clock.now < deadline {
                try? await Task.sleep(for: reliable ? .milliseconds(100) : interval)
                if Task.isCancelled || self.hasResponse { return }
                if !reliable {
                    try? self.transport.send(self.invite.serialized, on: self.flow)
                    interval = interval * 2
                }
            }
            self.fail(SimulatorError(.timeout, "no response to the INVITE within timer B (\(Self.timerB))"))
        }
        self.state.withLock { $0.timers = task }
    }

    private var hasResponse: Bool { self.state.withLock { !$0.provisionals.isEmpty || $0.final != nil } }

    private func fail(_ error: SimulatorError) {
        self.state.withLock { state in
            if state.final == nil { state.failure = error }
        }
    }

    /// Waits for a provisional response with this status (180 Ringing by default).
    @discardableResult
    package func waitForProvisional(_ status: Int = 180, timeout: Duration) async throws -> SimSIPMessage {
        try await poll(timeout: timeout, failure: .timeout("no \(status) for call \(self.callID)", timeout)) {
            try self.state.withLock { state in
                if let response = state.provisionals.first(where: { $0.statusCode == status }) { return response }
                if let failure = state.failure { throw failure }
                if let final = state.final {
                    throw SimulatorError(.callState, "call \(self.callID) ended with \(final.statusCode ?? 0) before a \(status)")
                }
                return nil
            }
        }
    }

    /// Waits for the INVITE's final response (ACKed already when it is not a 2xx).
    @discardableResult
    package func waitForFinal(timeout: Duration) async throws -> SimSIPMessage {
        try await poll(timeout: timeout, failure: .timeout("no final response for call \(self.callID)", timeout)) {
            try self.state.withLock { state in
                if let final = state.final { return final }
                if let failure = state.failure { throw failure }
                return nil
            }
        }
    }

    /// Sends CANCEL (same branch as the INVITE) and waits for its 200 and the INVITE's 487, each for up to
    /// `timeout`: by default timer F's 64·T1 = 32 s, as long as RFC 3261 gives a non-INVITE transaction
    /// (a busy user agent answers late, not never).
    package func cancel(timeout: Duration = .seconds(32)) async throws {
        try self.state.withLock { state throws(SimulatorError) in
            if let final = state.final {
                throw SimulatorError(.callState, "cannot cancel call \(self.callID): it already ended with \(final.statusCode ?? 0)")
            }
            state.cancelled = true
        }
        // RFC 3261 section 9.1: the INVITE's Request-URI, Call-ID, From, To, CSeq number and top Via.
        var cancel = SimSIPMessage.request("CANCEL", self.invite.requestURI ?? "")
        for name in ["Via", "From", "To", "Call-ID"] {
            if let value = self.invite.field(name) { cancel.add(name, value) }
        }
        cancel.add("Max-Forwards", "70")
        cancel.add("CSeq", SimSIPCSeq((try? self.invite.cseq().number) ?? 1, "CANCEL").description)
        try self.transport.send(cancel.serialized, on: self.flow)
        _ = try await poll(timeout: timeout, failure: .timeout("no 200 to CANCEL of call \(self.callID)", timeout)) {
            self.state.withLock { $0.cancelResponse }
        }
        let final = try await self.waitForFinal(timeout: timeout)
        guard final.statusCode == 487 else {
            throw SimulatorError(.callState, "call \(self.callID) answered CANCEL, but the INVITE ended with \(final.statusCode ?? 0), not 487")
        }
    }

    /// The call's state, for the control API.
    package var summary: Summary {
        self.state.withLock { state in
            let status: String
            if state.final != nil {
                status = "completed"
            } else if state.failure != nil {
                status = "failed"
            } else if !state.provisionals.isEmpty {
                status = "ringing"
            } else {
                status = "calling"
            }
            let redirect = state.final.flatMap { final in
                (300..<400).contains(final.statusCode ?? 0) ? (try? final.contacts().first)?.uri.description : nil
            }
            return Summary(
                number: self.number,
                callID: self.callID,
                user: self.user,
                status: status,
                finalCode: state.final?.statusCode,
                finalReason: state.final?.reasonPhrase,
                redirectTo: redirect,
                cancelled: state.cancelled,
                failure: state.failure?.message
            )
        }
    }

    /// Stops the timers (the simulator is stopping).
    func stopTimers() {
        self.state.withLock { $0.timers }?.cancel()
    }

    // MARK: Responses

    /// A response whose top Via carries this call's branch.
    func receive(_ response: SimSIPMessage) {
        guard let cseq = try? response.cseq() else { return }
        if cseq.method == "CANCEL" {
            self.state.withLock { $0.cancelResponse = $0.cancelResponse ?? response }
            return
        }
        guard cseq.method == "INVITE" else { return }
        if response.isProvisional {
            self.state.withLock { state in
                if state.final == nil { state.provisionals.append(response) }
            }
            return
        }
        self.state.withLock { state in
            if state.final == nil { state.final = response }
        }
        // Every final, retransmissions too, gets an ACK.
        try? self.transport.send(self.acknowledgement(of: response).serialized, on: self.flow)
    }

    /// The ACK for a final response: for non-2xx in the INVITE's transaction (RFC 3261 section 17.1.1.3),
    /// for 2xx a new transaction to the Contact (section 13.2.2.4).
    private func acknowledgement(of response: SimSIPMessage) -> SimSIPMessage {
        var fields: [SimSIPField] = []
        var uri = self.invite.requestURI ?? ""
        if response.isSuccess {
            if var via = try? self.invite.topVia() {
                via.parameters.set("branch", SimSIPMessage.newBranch())
                fields.append(SimSIPField("Via", via.description))
            }
            if let contact = try? response.contacts().first { uri = contact.uri.description }
        } else if let via = self.invite.field("Via") {
            fields.append(SimSIPField("Via", via))
        }
        fields.append(SimSIPField("Max-Forwards", "70"))
        if let from = self.invite.field("From") { fields.append(SimSIPField("From", from)) }
        if let to = response.field("To") { fields.append(SimSIPField("To", to)) }
        fields.append(SimSIPField("Call-ID", self.callID))
        fields.append(SimSIPField("CSeq", SimSIPCSeq((try? self.invite.cseq().number) ?? 1, "ACK").description))
        return .request("ACK", uri, fields: fields)
    }
}
