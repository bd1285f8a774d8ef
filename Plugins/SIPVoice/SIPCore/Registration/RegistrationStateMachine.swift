package import AttendantPluginAPI
package import AttendantPluginKit

/// Keeps one SIP binding registered (RFC 3261 section 10.2, RFC 5626), without I/O or a clock of its own.
///
/// The driver feeds events (``start()``, ``receive(_:)``, ``timerFired(_:)``, ``transportFailed(_:)``,
/// ``credentialsChanged(_:)``, ``refresh()``, ``stop()``) and carries out the returned ``Action``s: send a
/// request, arm or cancel a timer (relative durations; the driver owns the clock), report
/// ``Action/registered(_:)``, ``Action/unregistered`` or ``Action/failed(_:)``.
///
/// Rules:
/// - REGISTER asks for ``RegistrationConfiguration/expires``; a `423` raises it to `Min-Expires` (once per
///   value, up to ``RegistrationConfiguration/maximumExpires``).
/// - A 401/407 is answered with the topmost challenge the credentials fit (Bearer for a token, Digest
///   MD5/SHA-256 for a password). Answered challenges are cached and answered again in every later request
///   (a refresh costs one round trip, with the Digest nonce count going up). A challenge that comes back
///   for credentials computed from a fresh challenge is an authentication failure, unless it says
///   `stale=true` with a new nonce; no nonce is answered twice.
/// - 2xx: registered for the lifetime the registrar granted to our Contact (matched by `+sip.instance`, else
///   by URI), else its `Expires`; the machine refreshes at ``RegistrationConfiguration/refreshFraction`` of
///   it, or at once when ``refresh()`` is called or the credentials change. A binding whose lifetime ends
///   before a refresh succeeded (a refresh still unanswered, a short grant) has lapsed: a transient failure
///   then, not when the refresh's own transaction gives up, so nobody is told it is registered meanwhile.
/// - 403 is an authentication failure (the registrar refuses these credentials or this token for the
///   address of record: a renewed token may be accepted); 404 is a configuration failure (the address of
///   record is unknown there, and no token changes that); 408, 480, 5xx, a timeout, a broken transport
///   and malformed answers are transient; any other final response is a configuration failure.
/// - Over UDP the request is retransmitted on RFC 3261's timer E; every transaction gives up after 64·T1.
/// - Over TCP nothing retransmits (RFC 3261 section 17.1.2.2: the transport is reliable), yet a registrar
///   can read a REGISTER and drop it (overloaded, its SIP layer restarting, a fault) and answer the next
///   one: waiting for timer F would leave a registrar that answers again unused for up to 32 s. So a
///   REGISTER unanswered after T2 (4 s, the interval timer E settles on over UDP) is followed by a fresh
///   one on the same flow, every T2: a new transaction for the same binding (new branch, next CSeq; same
///   Call-ID, Contact and Expires, as a refresh in section 10.2.4). That is no "new registration" of
///   section 10.2, which means new Contact values; the registrar orders the requests by CSeq (section
///   10.3, step 7), and one flow keeps them in order. A final answer to any of them ends the attempt (a
///   slow registrar is not a deaf one), a provisional one stops the probes, and timer F still runs from
///   the attempt's first REGISTER, so a silent registrar fails after 32 s as before.
/// - ``stop()`` removes the binding with `Expires: 0` (after an in-flight transaction finishes, as section
///   10.2 asks) and reports ``Action/unregistered``.
/// - After ``Action/failed(_:)`` the machine is idle: ``start()`` tries again (the supervisor's backoff
///   decides when).
package struct RegistrationStateMachine: Sendable {
    package enum Timer: Sendable, Hashable {
        /// RFC 3261 timer E.
        case retransmit
        /// RFC 3261 timer F.
        case transactionTimeout
        /// Over a reliable transport: a fresh REGISTER while the last one is unanswered (see the rules).
        case probe
        /// Refresh the binding before it expires.
        case refresh
        /// The binding's granted lifetime is over: without a successful refresh by then, it has lapsed.
        case expiry
    }

    package typealias TimerID = AttendantPluginKit.TimerID<Timer>

    package enum Action: Sendable, Hashable {
        case send(SIPRequest)
        case setTimer(TimerID, after: Duration)
        case cancelTimer(TimerID)
        case registered(RegistrationGrant)
        case unregistered
        case failed(RegistrationError)
    }

    package enum Phase: Sendable, Hashable {
        case idle, registering, registered, unregistering, failed
    }

    enum Purpose: Sendable { case register, unregister }
    enum Pending: Sendable { case refresh, unregister }

    package private(set) var phase: Phase = .idle
    /// The current binding, while registered.
    package private(set) var grant: RegistrationGrant?
    package let callID: String
    package let fromTag: String
    package private(set) var credentials: RegistrationCredentials

    package private(set) var configuration: RegistrationConfiguration
    /// A REGISTER is out and its final response has not arrived.
    package var isAwaitingResponse: Bool { self.transaction != nil }
    var identifiers: SIPIdentifiers
    /// Digest hashes, the host's (``ChannelHost/hashing``).
    let hashing: any ChannelHashing
    var sequence: UInt32 = 0
    var requestedExpires: UInt32
    var transaction: NonInviteClientTransaction?
    /// Over a reliable transport, the unanswered REGISTERs of this attempt that a probe replaced: a final
    /// answer to one of them is as good as one to ``transaction``.
    var superseded: [NonInviteClientTransaction] = []
    var purpose: Purpose = .register
    var pending: Pending?
    var timers = TimerTable<Timer>()

    // Authentication: challenges answered in every request, per header (Authorization and
    // Proxy-Authorization); the nonce counts; what this attempt answered.
    var challenges: [SIPHeaderName: SIPAuthChallenge] = [:]
    var nonceCounts: [String: UInt32] = [:]
    var answered: Set<String> = []
    var answeredFresh: Set<SIPHeaderName> = []

    package init(
        configuration: RegistrationConfiguration,
        credentials: RegistrationCredentials,
        hashing: any ChannelHashing,
        identifiers: SIPIdentifiers = SIPIdentifiers()
    ) {
        self.configuration = configuration
        self.credentials = credentials
        self.hashing = hashing
        self.identifiers = identifiers
        self.callID = self.identifiers.callID()
        self.fromTag = self.identifiers.tag()
        self.requestedExpires = configuration.expires
    }

    // MARK: Events

    /// Registers. Ignored unless idle or failed.
    ///
    /// Starting again after a failure forgets the Digest challenges answered so far: the registrar may have
    /// restarted (its nonces are then unknown to it, and some registrars answer them with 403, not a new
    /// challenge), so the first REGISTER gets a fresh nonce. Bearer challenges hold no server state and
    /// are answered at once again.
    package mutating func start() -> [Action] {
        guard self.phase == .idle || self.phase == .failed else { return [] }
        self.requestedExpires = self.configuration.expires
        if self.phase == .failed {
            self.challenges = self.challenges.filter { !$0.value.isDigest }
            self.nonceCounts = [:]
        }
        self.resetAttempt()
        self.pending = nil
        self.phase = .registering
        return self.sendRegister(purpose: .register)
    }

    /// A response arrived; ones that are neither for the current transaction nor for a REGISTER of this
    /// attempt that a probe replaced are ignored.
    package mutating func receive(_ response: SIPResponse) -> [Action] {
        var actions: [Action]
        if var transaction = self.transaction, transaction.matches(response) {
            actions = self.map(transaction.receive(response))
            self.transaction = transaction
        } else if self.superseded.contains(where: { $0.matches(response) }) {
            // The registrar answers an earlier REGISTER of this attempt: the one in flight ends with it.
            actions = response.isFinal ? [Timer.retransmit, .transactionTimeout].compactMap { self.timers.disarm($0).map(Action.cancelTimer) } : []
        } else {
            return []
        }
        // Any answer shows the registrar has the request: no fresh one follows.
        actions += self.timers.disarm(.probe).map { [Action.cancelTimer($0)] } ?? []
        guard response.isFinal else { return actions }
        self.transaction = nil
        self.superseded = []
        actions += self.handleFinal(response)
        return actions
    }

    package mutating func timerFired(_ id: TimerID) -> [Action] {
        guard self.timers.fire(id) else { return [] }
        switch id.kind {
        case .retransmit:
            guard var transaction = self.transaction else { return [] }
            let actions = self.map(transaction.timerFired(.retransmit))
            self.transaction = transaction
            return actions
        case .transactionTimeout:
            guard var transaction = self.transaction else { return [] }
            var actions = self.map(transaction.timerFired(.timeout))
            self.transaction = nil
            self.superseded = []
            if self.purpose == .unregister { return actions + self.finishUnregistering() }
            let seconds = self.configuration.timers.transactionTimeout.components.seconds
            actions += self.fail(RegistrationError(.transient, "the registrar did not answer REGISTER within \(seconds) s", statusCode: 408))
            return actions
        case .probe:
            guard let transaction = self.transaction, transaction.state == .trying, self.purpose == .register, self.pending != .unregister else {
                return []
            }
            self.superseded.append(transaction)
            return self.sendRegister(purpose: .register, probing: true)
        case .refresh:
            guard self.phase == .registered, self.transaction == nil else { return [] }
            return self.sendRegister(purpose: .register)
        case .expiry:
            guard self.phase == .registered, let grant = self.grant else { return [] }
            let waiting = self.transaction != nil ? " (the refresh is still unanswered)" : ""
            return self.fail(RegistrationError(.transient, "the binding lapsed after its \(grant.expires) s without a successful refresh\(waiting)"))
        }
    }

    /// The connection to the registrar broke (or, over UDP, an ICMP error came back).
    package mutating func transportFailed(_ reason: String) -> [Action] {
        switch self.phase {
        case .idle, .failed: return []
        case .unregistering: return self.finishUnregistering()
        case .registering, .registered: return self.fail(RegistrationError(.transient, "the connection to the registrar failed: \(reason)"))
        }
    }

    /// New credentials (a renewed token): registered bindings are refreshed with them at once.
    package mutating func credentialsChanged(_ credentials: RegistrationCredentials) -> [Action] {
        guard credentials != self.credentials else { return [] }
        self.credentials = credentials
        self.resetAttempt()
        switch self.phase {
        case .registered where self.transaction == nil:
            return self.refreshNow()
        case .registered, .registering:
            if self.pending == nil { self.pending = .refresh }
            return []
        case .idle, .failed, .unregistering:
            return []
        }
    }

    /// Refresh now (the keep-alive cycle asks). Ignored unless registered with nothing in flight.
    package mutating func refresh() -> [Action] {
        guard self.phase == .registered, self.transaction == nil else { return [] }
        return self.refreshNow()
    }

    /// Replaces the configuration (a new local address after the transport reconnected, say) while idle
    /// or failed; the next ``start()`` uses it, with the same Call-ID and From tag. Returns false, changing
    /// nothing, in any other phase.
    package mutating func reconfigure(_ configuration: RegistrationConfiguration) -> Bool {
        guard self.phase == .idle || self.phase == .failed else { return false }
        self.configuration = configuration
        return true
    }

    /// Removes the binding (`Expires: 0`) and reports ``Action/unregistered``.
    package mutating func stop() -> [Action] {
        switch self.phase {
        case .idle, .failed, .unregistering:
            return []
        case .registering, .registered:
            self.phase = .unregistering
            if self.transaction != nil {
                self.pending = .unregister
                return []
            }
            var actions = [Timer.refresh, .expiry].compactMap { self.timers.disarm($0).map(Action.cancelTimer) }
            actions += self.sendRegister(purpose: .unregister)
            return actions
        }
    }

    // MARK: Responses

    private mutating func handleFinal(_ response: SIPResponse) -> [Action] {
        let purpose = self.purpose
        switch response.statusCode {
        case 200..<300:
            self.resetAttempt()
            if purpose == .unregister { return self.finishUnregistering() }
            if self.pending == .unregister {
                self.pending = nil
                return self.sendRegister(purpose: .unregister)
            }
            return self.registered(response)
        case 401, 407:
            return self.answerChallenge(response)
        case 423 where purpose == .register:
            guard self.pending != .unregister else { return self.finishUnregistering() }
            let minimum = (try? response.headers.minExpires) ?? nil
            guard let minimum, minimum > self.requestedExpires, minimum <= self.configuration.maximumExpires else {
                let asked = minimum.map { "Min-Expires \($0)" } ?? "no usable Min-Expires"
                return self.fail(
                    RegistrationError(
                        .configuration,
                        "the registrar finds \(self.requestedExpires) s too brief (423, \(asked); the maximum configured is \(self.configuration.maximumExpires) s)",
                        statusCode: 423
                    )
                )
            }
            self.requestedExpires = minimum
            return self.sendRegister(purpose: .register)
        default:
            if purpose == .unregister { return self.finishUnregistering() }
            return self.fail(self.classify(response))
        }
    }

    private mutating func registered(_ response: SIPResponse) -> [Action] {
        let builder = self.configuration.builder
        let contacts = (try? response.headers.contacts) ?? []
        let mine = contacts.first { contact in
            if let instance = builder.instanceID, let theirs = contact.instanceID {
                return SIPSyntax.equalsIgnoringCase(instance, theirs)
            }
            return contact.uri.isEquivalent(to: builder.contact)
        }
        let expires = mine?.expires ?? ((try? response.headers.expires) ?? nil) ?? self.requestedExpires
        guard expires > 0 else {
            return self.fail(
                RegistrationError(
                    .transient,
                    "the registrar answered \(response.statusCode) but kept no binding for our Contact",
                    statusCode: response.statusCode
                )
            )
        }
        let milliseconds = (Double(expires) * self.configuration.refreshFraction * 1000).rounded()
        let grant = RegistrationGrant(
            expires: expires,
            refreshAfter: .milliseconds(Int64(max(1000, milliseconds))),
            outbound: builder.outbound && response.headers.announces("outbound"),
            flowTimer: (try? response.headers.flowTimer) ?? nil
        )
        self.grant = grant
        self.phase = .registered
        // Never before the refresh is due, so a refresh on time always gets its chance.
        let lifetime = max(Duration.seconds(Int64(expires)), grant.refreshAfter + .seconds(1))
        var actions = self.timers.disarm(.expiry).map { [Action.cancelTimer($0)] } ?? []
        actions += [.setTimer(self.timers.arm(.expiry), after: lifetime), .registered(grant)]
        if self.pending == .refresh {
            self.pending = nil
            actions += self.sendRegister(purpose: .register)
        } else {
            actions.append(.setTimer(self.timers.arm(.refresh), after: grant.refreshAfter))
        }
        return actions
    }

    private func classify(_ response: SIPResponse) -> RegistrationError {
        let code = response.statusCode
        let status = "\(code) \(response.reasonPhrase)"
        let aor = self.configuration.builder.addressOfRecord
        let retryAfter = (try? response.headers.retryAfter) ?? nil
        switch code {
        case 403:
            return RegistrationError(
                .authentication,
                "the registrar refuses to register \(aor) (\(status)): the credentials or token are not accepted",
                statusCode: code
            )
        case 404:
            return RegistrationError(
                .configuration,
                "the registrar does not know \(aor) (\(status)): check the address of record and domain",
                statusCode: code
            )
        case 408, 480, 500..<600:
            return RegistrationError(.transient, "the registrar is unavailable (\(status))", statusCode: code, retryAfter: retryAfter)
        case 300..<400:
            return RegistrationError(
                .configuration,
                "the registrar redirects REGISTER (\(status)); point the channel at the right registrar",
                statusCode: code
            )
        default:
            return RegistrationError(.configuration, "the registrar refused REGISTER (\(status))", statusCode: code, retryAfter: retryAfter)
        }
    }

    // MARK: Endings

    private mutating func resetAttempt() {
        self.answered = []
        self.answeredFresh = []
    }

    private mutating func cancelAllTimers() -> [Action] {
        let kinds: [Timer] = [.retransmit, .transactionTimeout, .probe, .refresh, .expiry]
        return kinds.compactMap { self.timers.disarm($0).map(Action.cancelTimer) }
    }

    mutating func finishUnregistering() -> [Action] {
        let actions = self.cancelAllTimers()
        self.transaction = nil
        self.superseded = []
        self.pending = nil
        self.grant = nil
        self.phase = .idle
        self.resetAttempt()
        return actions + [.unregistered]
    }

    mutating func fail(_ error: RegistrationError) -> [Action] {
        if self.pending == .unregister || self.phase == .unregistering { return self.finishUnregistering() }
        let actions = self.cancelAllTimers()
        self.transaction = nil
        self.superseded = []
        self.pending = nil
        self.grant = nil
        self.phase = .failed
        return actions + [.failed(error)]
    }

    mutating func failOrFinish(_ error: RegistrationError) -> [Action] {
        self.purpose == .unregister ? self.finishUnregistering() : self.fail(error)
    }
}
