import AttendantPluginKit

// Sending a REGISTER as its own transaction (see RegistrationStateMachine's rules).
extension RegistrationStateMachine {
    mutating func refreshNow() -> [Action] {
        var actions = self.timers.disarm(.refresh).map { [Action.cancelTimer($0)] } ?? []
        actions += self.sendRegister(purpose: .register)
        return actions
    }

    /// Sends a REGISTER as a new transaction; `probing` replaces the one in flight (see the rules), whose
    /// timer F then stays the attempt's.
    mutating func sendRegister(purpose: Purpose, probing: Bool = false) -> [Action] {
        let credentials: [(SIPHeaderName, SIPCredentials)]
        switch self.authorizations() {
        case .success(let answers): credentials = answers
        case .failure(let error): return self.failOrFinish(error)
        }
        self.sequence += 1
        let branch = self.identifiers.branch()
        let request = self.configuration.builder.request(
            callID: self.callID,
            fromTag: self.fromTag,
            sequence: self.sequence,
            branch: branch,
            expires: purpose == .unregister ? 0 : self.requestedExpires,
            credentials: credentials
        )
        var transaction = NonInviteClientTransaction(
            request: request,
            branch: branch,
            reliable: self.configuration.reliableTransport,
            timers: self.configuration.timers
        )
        var started = transaction.start()
        if probing { started.removeAll { if case .setTimer(.timeout, _) = $0 { true } else { false } } }
        self.transaction = transaction
        self.purpose = purpose
        var actions = self.map(started)
        if purpose == .register, self.configuration.reliableTransport {
            actions.append(.setTimer(self.timers.arm(.probe), after: self.configuration.timers.t2))
        }
        return actions
    }

    mutating func map(_ actions: [NonInviteClientTransaction.Action]) -> [Action] {
        actions.compactMap { action in
            switch action {
            case .send(let request):
                return .send(request)
            case .setTimer(let timer, let after):
                return .setTimer(self.timers.arm(timer == .retransmit ? .retransmit : .transactionTimeout), after: after)
            case .cancelTimer(let timer):
                return self.timers.disarm(timer == .retransmit ? .retransmit : .transactionTimeout).map(Action.cancelTimer)
            case .timedOut:
                return nil
            }
        }
    }
}
