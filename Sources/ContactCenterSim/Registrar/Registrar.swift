import Synchronization

/// What the transport does with a REGISTER.
enum RegistrarAnswer: Sendable {
    case respond(SimSIPMessage)
    /// Send these bytes, which are not a SIP message.
    case raw([UInt8])
    /// Say nothing.
    case silence
}

/// The registrar: checks Bearer tokens, stores bindings, and misbehaves on request.
final class Registrar: Sendable {
    /// The longest and shortest registrations granted.
    static let maximumExpires: UInt32 = 3600
    static let minimumExpires: UInt32 = 60
    /// The `Flow-Timer` sent to RFC 5626 clients on TCP.
    static let flowTimer: UInt32 = 30

    private struct State {
        var bindings: [SimulatedBinding] = []
        var faults: [(fault: RegistrarFault, remaining: Int?)] = []
        var registerCount = 0
    }

    private let domain: String
    private let signingKey: [UInt8]
    private let now: @Sendable () -> Double
    private let state = Mutex(State())

    init(configuration: SimulatorConfiguration) {
        self.domain = configuration.domain
        self.signingKey = configuration.signingKey
        self.now = configuration.now
    }

    var registerCount: Int { self.state.withLock { $0.registerCount } }

    func bindings(of user: String) -> [SimulatedBinding] {
        let now = self.now()
        return self.state.withLock { state in state.bindings.filter { $0.user == user && $0.expiresAt > now } }
    }

    func inject(_ fault: RegistrarFault, times: Int?) {
        self.state.withLock { $0.faults.append((fault, times)) }
    }

    func clearFaults() { self.state.withLock { $0.faults.removeAll() } }

    func dropBindings() { self.state.withLock { $0.bindings.removeAll() } }

    // MARK: REGISTER

    func handle(_ request: SimSIPMessage, flow: SIPFlow) -> RegistrarAnswer {
        self.state.withLock { $0.registerCount += 1 }
        let to: SimSIPAddress
        let contacts: [SimSIPAddress]
        let headerExpires: UInt32?
        do {
            to = try request.address("To")
            contacts = try request.contacts()
            headerExpires = try request.expires()
            _ = try request.callID()
            _ = try request.cseq()
        } catch {
            return .respond(.answering(request, 400, reason: "Bad Request (\(error))"))
        }
        guard let user = to.uri.user else {
            return .respond(.answering(request, 404, reason: "Not Found (To has no user)"))
        }
        let requested = contacts.map { $0.expires ?? headerExpires ?? Self.maximumExpires }

        if let answer = self.takeFault(before: true, request: request, requested: requested) { return answer }

        // RFC 8898: Bearer only.
        guard let bearer = request.credentials.first(where: { $0.isScheme("Bearer") }), let token = bearer.bearerToken else {
            return .respond(self.challenge(request, error: nil))
        }
        let claims: SimulatorTokenClaims
        do {
            claims = try SimulatorToken.verify(token, key: self.signingKey, now: self.now())
        } catch {
            return .respond(self.challenge(request, error: "invalid_token", description: "\(error)"))
        }
        guard claims.grants.identity == user else {
            return .respond(self.challenge(request, error: "invalid_token", description: "the token is for another identity"))
        }
        guard claims.allowsIncoming else {
            return .respond(.answering(request, 403, reason: "Forbidden (token grants no incoming calls)"))
        }

        if let answer = self.takeFault(before: false, request: request, requested: requested) { return answer }
        if let shortest = requested.filter({ $0 > 0 }).min(), shortest < Self.minimumExpires {
            return .respond(.answering(request, 423, extra: [SimSIPField("Min-Expires", String(Self.minimumExpires))]))
        }
        return .respond(self.update(request, user: user, contacts: contacts, requested: requested, flow: flow, scheme: bearer.scheme))
    }

    /// The first injected fault that applies, consumed once. `before` picks the faults that act before the
    /// token check (all but ``RegistrarFault/intervalTooBrief(minExpires:)``).
    private func takeFault(before: Bool, request: SimSIPMessage, requested: [UInt32]) -> RegistrarAnswer? {
        let fault: RegistrarFault? = self.state.withLock { state in
            for index in state.faults.indices {
                let fault = state.faults[index].fault
                let applies: Bool
                if case .intervalTooBrief(let minimum) = fault {
                    applies = !before && requested.contains { $0 > 0 && $0 < minimum }
                } else {
                    applies = before
                }
                guard applies else { continue }
                if let remaining = state.faults[index].remaining {
                    if remaining <= 1 { state.faults.remove(at: index) } else { state.faults[index].remaining = remaining - 1 }
                }
                return fault
            }
            return nil
        }
        guard let fault else { return nil }
        switch fault {
        case .intervalTooBrief(let minimum):
            return .respond(.answering(request, 423, extra: [SimSIPField("Min-Expires", String(minimum))]))
        case .challengeLoop:
            let refused = request.credentials.contains { $0.isScheme("Bearer") }
            return .respond(self.challenge(request, error: refused ? "invalid_token" : nil, description: refused ? "the token was revoked" : nil))
        case .serviceUnavailable(let retryAfter):
            let extra = retryAfter.map { [SimSIPField("Retry-After", String($0))] } ?? []
            return .respond(.answering(request, 503, extra: extra))
        case .silence:
            return .silence
        case .malformed:
            return .raw(Array("SIP/2.0 two hundred OK\r\nthis is not a header\r\n\r\n".utf8))
        case .forbidden:
            return .respond(.answering(request, 403))
        }
    }

    /// `401` with `WWW-Authenticate: Bearer realm="…"` (RFC 8898 section 2.1), plus `error` and
    /// `error_description` (RFC 6750 section 3).
    private func challenge(_ request: SimSIPMessage, error: String?, description: String? = nil) -> SimSIPMessage {
        var parameters = ["realm=" + SimSIPText.quoted(self.domain)]
        if let error { parameters.append("error=" + SimSIPText.quoted(error)) }
        if let description { parameters.append("error_description=" + SimSIPText.quoted(description)) }
        let challenge = "Bearer " + parameters.joined(separator: ", ")
        return .answering(request, 401, toTag: SimSIPMessage.newTag(), extra: [SimSIPField("WWW-Authenticate", challenge)])
    }

    private func update(
        _ request: SimSIPMessage,
        user: String,
        contacts: [SimSIPAddress],
        requested: [UInt32],
        flow: SIPFlow,
        scheme: String
    ) -> SimSIPMessage {
        let now = self.now()
        let wildcard = request.isWildcardContact
        let current: [SimulatedBinding] = self.state.withLock { state in
            state.bindings.removeAll { $0.expiresAt <= now }
            if wildcard {
                state.bindings.removeAll { $0.user == user }
            }
            for (contact, expires) in zip(contacts, requested) {
                state.bindings.removeAll { $0.user == user && $0.isReplaced(by: contact) }
                guard expires > 0 else { continue }
                var stored = contact
                stored.parameters.remove("expires")
                state.bindings.append(
                    SimulatedBinding(
                        user: user,
                        contact: stored,
                        transport: flow.transport,
                        sourceAddress: flow.peer,
                        expiresAt: now + Double(min(expires, Self.maximumExpires)),
                        instanceID: contact.instanceID,
                        registrationID: contact.registrationID,
                        authorizationScheme: scheme,
                        flow: flow
                    )
                )
            }
            return state.bindings.filter { $0.user == user }
        }
        var extra: [SimSIPField] = []
        for binding in current {
            var contact = binding.contact
            contact.parameters.set("expires", String(max(0, Int((binding.expiresAt - now).rounded()))))
            extra.append(SimSIPField("Contact", contact.description))
        }
        let outbound = request.announces("outbound") && contacts.contains { $0.registrationID != nil }
        if outbound, case .tcp = flow {
            extra.append(SimSIPField("Require", "outbound"))
            extra.append(SimSIPField("Flow-Timer", String(Self.flowTimer)))
        }
        return .answering(request, 200, toTag: SimSIPMessage.newTag(), extra: extra)
    }
}
