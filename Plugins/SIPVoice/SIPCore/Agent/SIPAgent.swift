package import AttendantPluginAPI
import AttendantPluginKit

/// A user agent's whole protocol state: its registration (``RegistrationStateMachine``), its calls
/// (``SIPCallTable``), the RFC 5626 pings on its flow, and who waits for what: a `listen()` for the first
/// registration, keep-alives for a refresh, a stop for the unregistration.
///
/// Pure, like the machines it holds. Its driver owns the flow and the continuations: it hands the agent
/// what arrives, what the host asks and the timers that fire, and carries out the ``Action``s it returns.
/// So what a failure means to the host (which waiter hears it, whether the flow closes, when to try again)
/// is tested without a network or a host.
package struct SIPAgent: ChannelAgent {
    package typealias Calls = SIPCallTable
    package typealias Origin = SIPOrigin

    package let configuration: Configuration
    /// Digest hashes, the host's.
    let hashing: any ChannelHashing
    package private(set) var machine: RegistrationStateMachine?
    /// Ringing and recently ended calls, by Call-ID (the contact's id).
    package var calls = Calls()
    package var identifiers: SIPIdentifiers
    package private(set) var listening = false
    package private(set) var grant: RegistrationGrant?
    package private(set) var registeredAt: UnixTime?
    package private(set) var registrations = 0
    /// When the ephemeral credentials registered with expire (nil: not ephemeral).
    package var credentialsExpiry: Int64?
    private var flow: Flow?
    private var awaitingListen = false
    private var keepAlives: Set<UInt64> = []
    private var stopping = false
    private var pingArmed = false
    private var pongDue = false
    /// When to try the registrar again after a failure.
    private var retry = RegistrationRetry()
    private var random = SystemRandomNumberGenerator()

    package init(configuration: Configuration, hashing: any ChannelHashing, identifiers: SIPIdentifiers = SIPIdentifiers()) {
        self.configuration = configuration
        self.hashing = hashing
        self.identifiers = identifiers
    }

    private var prefix: String { self.configuration.prefix }

    /// Waiting on the network: a REGISTER unanswered, a keep-alive or a stop waiting.
    package var isBusy: Bool { self.machine?.isAwaitingResponse == true || !self.keepAlives.isEmpty || self.stopping }

    // MARK: The host's requests

    /// Registers on a newly opened `flow`; answers ``AgentAction/listened(_:)`` once registered or failed.
    /// A machine from an earlier flow is kept (its Call-ID and sequence) when it can take the new addresses.
    package mutating func listen(
        on flow: Flow,
        registration: RegistrationConfiguration,
        credentials: RegistrationCredentials,
        now: UnixTime
    ) -> [Action] {
        self.flow = flow
        if var machine = self.machine, machine.reconfigure(registration) {
            _ = machine.credentialsChanged(credentials)
            self.machine = machine
        } else {
            self.machine = RegistrationStateMachine(
                configuration: registration,
                credentials: credentials,
                hashing: self.hashing,
                identifiers: self.identifiers
            )
        }
        self.awaitingListen = true
        return self.drive(now: now) { $0.start() }
    }

    /// The flow could not be opened: a transient failure, tried again after the retry policy's delay.
    package mutating func openingFailed(_ reason: String) -> ChannelError {
        ChannelError(.transient, "\(self.prefix): \(reason)", retryAfter: self.retry.delay(statusCode: nil, retryAfter: nil, using: &self.random))
    }

    /// Stops listening: ringing calls end with 480 and the binding is removed; ``AgentAction/stopped`` follows
    /// the registrar's answer or the 2 s deadline (arm on the host's clock).
    package mutating func stop(now: UnixTime) -> [Action] {
        self.listening = false
        var actions = self.endCalls(statusCode: 480, reason: "Temporarily Unavailable")
        guard let phase = self.machine?.phase, phase == .registered || phase == .registering else {
            return actions + [.stopped]
        }
        self.stopping = true
        actions.append(.setTimer(.stopDeadline, after: .seconds(2)))
        return actions + self.drive(now: now) { $0.stop() }
    }

    /// The flow is being replaced: until the next ``listen(on:registration:credentials:now:)``, nothing
    /// is answered on it.
    package mutating func detachLink() {
        self.flow = nil
    }

    /// After a stop (`stopped`), or a `listen()` abandoned: forgets the registration and the flow. The
    /// driver cancels every timer.
    package mutating func reset(stopped: Bool) {
        if stopped {
            self.listening = false
            self.grant = nil
        } else {
            self.awaitingListen = false
        }
        self.machine = nil
        self.flow = nil
        self.pingArmed = false
        self.pongDue = false
    }

    /// The host's keep-alive, as `waiter`: fresh, or a refresh (with `renewal`'s credentials once the ones
    /// registered with are near their expiry); answered by ``AgentAction/keptAlive(_:_:)``.
    package mutating func keepAlive(waiter: UInt64, renewal: Renewal?, now: UnixTime) -> [Action] {
        guard self.listening, self.machine?.phase == .registered, let grant = self.grant else {
            return [.keptAlive([waiter], ChannelError(.transient, "\(self.prefix): not registered at \(self.configuration.registrarDescription)"))]
        }
        let decision = RegistrationKeepAlive.decide(
            now: now,
            registeredAt: self.registeredAt,
            grantedExpires: grant.expires,
            credentialsExpiry: renewal == nil ? nil : self.credentialsExpiry,
            cycle: self.configuration.cycle
        )
        switch decision {
        case .fresh:
            return [.keptAlive([waiter], nil)]
        case .renewCredentials, .refresh:
            self.keepAlives.insert(waiter)
            if decision == .renewCredentials, let renewal {
                self.credentialsExpiry = renewal.expiry
                return self.drive(now: now) { $0.credentialsChanged(renewal.credentials) }
            }
            return self.drive(now: now) { $0.refresh() }
        }
    }

    /// A keep-alive's caller went away.
    package mutating func forgetKeepAlive(_ waiter: UInt64) {
        self.keepAlives.remove(waiter)
    }

    /// Registers again with `credentials` (a renewed token); the old binding stays until the new one is in place.
    package mutating func credentialsChanged(_ credentials: RegistrationCredentials, now: UnixTime) -> [Action] {
        self.drive(now: now) { $0.credentialsChanged(credentials) }
    }

    /// Back from sleep or lock: a flow may have died meanwhile. One REGISTER tells at once.
    package mutating func wake(now: UnixTime) -> [Action] {
        guard self.listening else { return [] }
        return self.drive(now: now) { $0.refresh() }
    }

    package mutating func accept(_ id: String, redirectingTo target: SIPNameAddress) throws(ChannelError) -> [Action] {
        let outcomes = try self.calls.accept(id, redirectingTo: target)
        return self.apply(outcomes)
    }

    /// The softphone was told to answer call `id` (`accept = "softphone"`): this fork keeps ringing.
    package mutating func handedToSoftphone(_ id: String) -> [Action] {
        let outcomes = self.calls.handedToSoftphone(id)
        return self.apply(outcomes)
    }

    package mutating func decline(_ id: String) throws(ChannelError) -> [Action] {
        let outcomes = try self.calls.decline(id)
        return self.apply(outcomes)
    }

    // MARK: What arrives

    package mutating func receive(_ response: SIPResponse, now: UnixTime) -> [Action] {
        self.drive(now: now) { $0.receive(response) }
    }

    /// A request from `origin`; `settings` is asked for only when a new call rings.
    package mutating func receive(_ request: SIPRequest, from origin: Origin, now: UnixTime, settings: () -> Calls.Settings) -> [Action] {
        guard self.flow != nil else { return [] }
        let outcomes = self.calls.receive(
            request,
            from: origin,
            listening: self.listening,
            identifiers: &self.identifiers,
            now: now,
            settings: settings
        )
        return self.apply(outcomes)
    }

    /// The pong to a ping: the flow lives; the next ping is due after a fresh interval.
    package mutating func pong() -> [Action] {
        self.pongDue = false
        return [.cancelTimer(.pongTimeout)] + self.armPing()
    }

    /// ICMP says nothing listens at the registrar. Only an answer the agent waits for makes it news: a
    /// REGISTER that cannot arrive fails now rather than after timer F's 32 s.
    package mutating func unreachable(_ reason: String, now: UnixTime) -> [Action] {
        guard self.machine?.isAwaitingResponse == true else { return [] }
        let failure = "nothing answers at \(self.configuration.registrarDescription) (\(reason))"
        return self.drive(now: now) { $0.transportFailed(failure) }
    }

    /// The flow closed or failed.
    package mutating func flowFailed(_ reason: String, now: UnixTime) -> [Action] {
        self.drive(now: now) { $0.transportFailed(reason) }
    }

    package mutating func timerFired(_ timer: Timer, now: UnixTime) -> [Action] {
        switch timer {
        case .registration(let id):
            return self.drive(now: now) { $0.timerFired(id) }
        case .call(let id, let timer):
            let outcomes = self.calls.timerFired(callID: id, timer)
            return self.apply(outcomes)
        case .ping:
            self.pingArmed = false
            guard self.flow != nil else { return [] }
            self.pongDue = true
            return [.work(.ping), .setTimer(.pongTimeout, after: SIPOutbound.pongTimeout)]
        case .pongTimeout:
            self.pongDue = false
            let seconds = SIPOutbound.pongTimeout.components.seconds
            return self.drive(now: now) { $0.transportFailed("no answer to an RFC 5626 keep-alive within \(seconds) s") }
        case .stopDeadline:
            guard self.stopping else { return [] }
            self.stopping = false
            return [.stopped, .log(.notice, "\(self.prefix): the registrar did not confirm the unregistration; leaving anyway")]
        }
    }

    // MARK: The registration machine's outcomes

    private mutating func drive(now: UnixTime, _ event: (inout RegistrationStateMachine) -> [RegistrationStateMachine.Action]) -> [Action] {
        guard var machine = self.machine else { return [] }
        self.machine = nil  // so that `machine` is the only reference to its storage, and changing it copies nothing
        let outcomes = event(&machine)
        self.machine = machine
        var actions: [Action] = []
        for outcome in outcomes {
            switch outcome {
            case .send(let request):
                actions.append(.work(.send(.request(request), to: nil)))
            case .setTimer(let id, let delay):
                actions.append(.setTimer(.registration(id), after: delay))
            case .cancelTimer(let id):
                actions.append(.cancelTimer(.registration(id)))
            case .registered(let grant):
                actions += self.registered(grant, now: now)
            case .unregistered:
                actions.append(.cancelTimer(.stopDeadline))
                if self.stopping {
                    self.stopping = false
                    actions.append(.stopped)
                }
            case .failed(let error):
                actions += self.failed(error)
            }
        }
        return actions
    }

    private mutating func registered(_ grant: RegistrationGrant, now: UnixTime) -> [Action] {
        let first = self.grant == nil
        self.grant = grant
        self.registeredAt = now
        self.registrations += 1
        self.retry.registered()
        var actions: [Action] = []
        if self.awaitingListen {
            self.awaitingListen = false
            self.listening = true
            actions.append(.listened(nil))
        }
        if !self.keepAlives.isEmpty {
            actions.append(.keptAlive(self.keepAlives.sorted(), nil))
            self.keepAlives = []
        }
        let outbound = grant.outbound ? ", RFC 5626 outbound" + (grant.flowTimer.map { " with flow timer \($0) s" } ?? "") : ""
        actions.append(
            .log(
                first ? .info : .debug,
                "\(self.prefix): registered \(self.configuration.addressOfRecord) at \(self.configuration.registrarDescription) for \(grant.expires) s\(outbound)"
            )
        )
        if grant.outbound, self.flow?.pings == true, !self.pingArmed, !self.pongDue {
            actions += self.armPing()
        }
        return actions
    }

    /// A failed registration: the host hears it (``RegistrationRetry`` deciding when to try again), and
    /// the flow, the calls and whoever waits are let go.
    private mutating func failed(_ error: RegistrationError) -> [Action] {
        let code = error.channelErrorCode
        let retryAfter = code == .transient ? self.retry.delay(statusCode: error.statusCode, retryAfter: error.retryAfter, using: &self.random) : nil
        let failure = ChannelError(
            code,
            "\(self.prefix): registering \(self.configuration.addressOfRecord) at \(self.configuration.registrarDescription) failed: \(error.message)",
            retryAfter: retryAfter
        )
        let wasListening = self.listening
        self.listening = false
        self.grant = nil
        self.registeredAt = nil
        self.pingArmed = false
        self.pongDue = false
        var actions: [Action] = [.cancelTimer(.ping), .cancelTimer(.pongTimeout)]
        actions += self.endCalls(statusCode: nil, reason: "")
        if self.flow != nil {
            self.flow = nil
            actions.append(.closeLink)
        }
        if self.awaitingListen {
            self.awaitingListen = false
            actions.append(.listened(failure))
        } else if !self.keepAlives.isEmpty {
            actions.append(.keptAlive(self.keepAlives.sorted(), failure))
            self.keepAlives = []
        } else if wasListening {
            actions.append(.emit(.stoppedListening(failure)))
        }
        if self.stopping {
            self.stopping = false
            actions.append(.stopped)
        }
        return actions
    }

    // MARK: Calls and pings

    /// Ends every ringing call with `statusCode` (when there is a flow to answer on) and forgets all calls.
    private mutating func endCalls(statusCode: Int?, reason: String) -> [Action] {
        let outcomes = self.calls.endAll(respondingWith: self.flow == nil ? nil : statusCode, reason: reason)
        return self.apply(outcomes) + [.cancelTimers(where: Self.isCallTimer)]
    }

    /// Every call's timers (the calls are gone).
    private static let isCallTimer: @Sendable (Timer) -> Bool = { if case .call = $0 { true } else { false } }

    private mutating func armPing() -> [Action] {
        self.pingArmed = true
        return [.setTimer(.ping, after: SIPOutbound.keepAliveInterval(flowTimer: self.grant?.flowTimer, using: &self.random))]
    }

    /// The call table's actions as the agent's. (Callers hold the outcomes in a local first: `self.apply(self.calls.…)`
    /// would copy `self`, and with it a second reference to the calls, before the table changes, and the
    /// change would then copy every call.)
    private func apply(_ outcomes: [Calls.Action]) -> [Action] {
        outcomes.map { outcome in
            switch outcome {
            case .send(let response, let origin): .work(.send(.response(response), to: origin))
            case .setTimer(let id, let timer, let delay): .setTimer(.call(id, timer), after: delay)
            case .cancelTimer(let id, let timer): .cancelTimer(.call(id, timer))
            case .emit(let event): .emit(event)
            case .log(let level, let message): .log(level, "\(self.prefix): \(message)")
            }
        }
    }

    // MARK: Report

    /// The `registration` request's fields (the driver adds `busy` for its own pending work).
    package func report(busy: Bool) -> [String: String] {
        var fields: [String: String] = [
            "listening": self.listening ? "yes" : "no",
            "phase": self.machine.map { "\($0.phase)" } ?? "idle",
            "registrations": String(self.registrations),
            "ringing": String(self.calls.ringingCount),
            "busy": busy || self.isBusy ? "yes" : "no",
        ]
        if let grant = self.grant {
            fields["expires"] = String(grant.expires)
            fields["outbound"] = grant.outbound ? "yes" : "no"
            if let flowTimer = grant.flowTimer { fields["flow-timer"] = String(flowTimer) }
        }
        if let registeredAt = self.registeredAt { fields["registered-at"] = registeredAt.description }
        if let flow = self.flow { fields["local-address"] = flow.localAddress }
        return fields
    }
}
