import AttendantPluginAPI
import AttendantPluginKit
import SIPCore

/// A SIP user agent that stays registered and turns incoming INVITEs into contacts.
///
/// Everything protocol-shaped is decided by SIPCore's pure machines (``RegistrationStateMachine`` and one
/// ``InviteServerTransaction`` per call); this class is their driver. It keeps their state under one lock,
/// feeds them what arrives on the flow, what the host asks and the timers that fire, and carries out what
/// they return: it sends on the flow, arms timers on the host's clock (the kit's ``ChannelTimers``, so
/// tests compress hours into milliseconds) and reports to the host. Each of these is a step of the kit's
/// ``ChannelDriver``: work that must not happen under the lock (sending, emitting, resuming a waiting
/// `listen()`) is listed as ``Effect``s and done after it is released, on the caller's thread (an INVITE's
/// 180 goes out without a hop).
///
/// Registration follows the host's cycle: `listen()` registers with `Expires` equal to the cycle
/// (`register-expires`, 600 s); the machine refreshes at 90 % of what the registrar granted, so a binding
/// never lapses between cycles; `keepAlive()` re-registers when the binding has lived half its time or
/// more (normally: the refresh timer already renewed it, and the keep-alive only confirms it is fresh);
/// a renewed token re-registers at once, the old binding staying valid until the new one is in place.
final class SIPVoiceChannel: Channel, ChannelDriver {
    let configuration: SIPVoiceConfiguration
    let host: any ChannelHost
    let driverState = DriverState(State())
    let timers: ChannelTimers<TimerKey>

    init(configuration: SIPVoiceConfiguration, host: any ChannelHost) {
        self.configuration = configuration
        self.host = host
        self.timers = ChannelTimers(clock: host.clock)
    }

    // MARK: State

    enum TimerKey: Hashable, Sendable {
        case registration(RegistrationStateMachine.TimerID)
        case call(String, InviteServerTransaction.TimerID)
        /// Send the next RFC 5626 CRLFCRLF ping.
        case ping
        /// The pong is overdue: the flow is dead.
        case pongTimeout
        /// Stop waiting for the unregistering REGISTER's answer.
        case stopDeadline
    }

    struct State: Sendable {
        var machine: RegistrationStateMachine?
        var transport: SIPTransport?
        /// Which flow is current; arrivals from an older one are ignored.
        var flow = Generation()
        var listening = false
        var listenWaiter: CheckedContinuation<Void, any Error>?
        var refreshWaiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var nextWaiter: UInt64 = 0
        var stopWaiter: CheckedContinuation<Void, Never>?
        /// Ringing and recently ended calls, by Call-ID (the contact's id).
        var calls = Calls()
        var grant: RegistrationGrant?
        var registeredAt: UnixTime?
        var ephemeralExpiry: Int64?
        var identifiers = SIPIdentifiers()
        var random = SystemRandomNumberGenerator()
        var registrations = 0
        /// `listen()` calls under way (getting the token, connecting, registering).
        var pendingListens = 0
        /// When to try the registrar again after a failure.
        var retry = RegistrationRetry()
    }

    /// Work done after the state lock is released.
    enum Effect: Sendable {
        /// Sends on the flow, or (a response) to where its request came from.
        case send(SIPTransport, SIPMessage, to: SIPTransport.Origin? = nil)
        case ping(SIPTransport)
        case emit(ChannelEvent)
        case resume(CheckedContinuation<Void, any Error>, ChannelError?)
        case resumeStop(CheckedContinuation<Void, Never>)
        case close(SIPTransport)
        case log(Logger.Level, String)
    }

    var prefix: String { "sip-voice" }

    // MARK: Channel

    func listen() async throws {
        self.withState { $0.pendingListens += 1 }
        defer { self.withState { $0.pendingListens -= 1 } }
        let credentials = try await self.credentials(for: await self.host.tokenState())
        let instanceID = try await self.instanceID()

        let (flow, previous) = self.withState { state -> (Generation, SIPTransport?) in
            defer { state.transport = nil }
            return (state.flow.advance(), state.transport)
        }
        await previous?.close()

        let transport: SIPTransport
        do {
            transport = try await SIPTransport.open(
                self.configuration.transport,
                host: self.configuration.registrarHost,
                port: self.configuration.registrarPort,
                network: self.host.network
            ) { [weak self] arrival in self?.arrived(arrival, flow: flow) }
        } catch {
            let delay = self.withState { $0.retry.delay(statusCode: nil, retryAfter: nil, using: &$0.random) }
            throw ChannelError(.transient, "\(self.prefix): \(error)", retryAfter: delay)
        }

        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                self.step { state, effects in
                    guard state.flow == flow, !Task.isCancelled else {
                        effects += [.close(transport), .resume(continuation, ChannelError(.transient, "\(self.prefix): listening was cancelled"))]
                        return
                    }
                    state.transport = transport
                    let registration = self.registrationConfiguration(transport: transport, instanceID: instanceID)
                    if var machine = state.machine, machine.reconfigure(registration) {
                        _ = machine.credentialsChanged(credentials)
                        state.machine = machine
                    } else {
                        state.machine = RegistrationStateMachine(configuration: registration, credentials: credentials, hashing: self.host.hashing, identifiers: state.identifiers)
                    }
                    state.listenWaiter = continuation
                    self.drive(&state, &effects) { $0.start() }
                }
            }
        } onCancel: {
            self.abandonListening(flow: flow)
        }
    }

    func stopListening() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            self.step { state, effects in
                state.listening = false
                self.endCalls(&state, &effects, statusCode: 480, reason: "Temporarily Unavailable")
                guard let phase = state.machine?.phase, phase == .registered || phase == .registering else {
                    effects.append(.resumeStop(continuation))
                    return
                }
                state.stopWaiter = continuation
                self.arm(.stopDeadline, after: .seconds(2))
                self.drive(&state, &effects) { $0.stop() }
            }
        }
        let transport = self.withState { state -> SIPTransport? in
            state.flow.advance()
            state.listening = false
            state.grant = nil
            self.timers.cancelAll()
            state.machine = nil
            defer { state.transport = nil }
            return state.transport
        }
        await transport?.close()
    }

    func keepAlive() async throws {
        let token = self.configuration.authentication == .ephemeral ? await self.host.currentToken() : nil
        let waiter = self.withState { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                self.step { state, effects in
                    guard state.listening, state.machine?.phase == .registered, let grant = state.grant else {
                        effects.append(.resume(continuation, ChannelError(.transient, "\(self.prefix): not registered at \(self.configuration.registrarDescription)")))
                        return
                    }
                    let decision = RegistrationKeepAlive.decide(
                        now: self.host.now(), registeredAt: state.registeredAt, grantedExpires: grant.expires,
                        credentialsExpiry: token == nil ? nil : state.ephemeralExpiry, cycle: self.configuration.registerExpires
                    )
                    var renewed: RegistrationCredentials?
                    switch decision {
                    case .fresh:
                        effects.append(.resume(continuation, nil))
                        return
                    case .renewCredentials:
                        renewed = token.map { self.ephemeral(secret: $0.value, state: &state) }
                    case .refresh:
                        break
                    }
                    state.refreshWaiters[waiter] = continuation
                    self.drive(&state, &effects) { machine in renewed.map { machine.credentialsChanged($0) } ?? machine.refresh() }
                }
            }
        } onCancel: {
            let continuation = self.withState { $0.refreshWaiters.removeValue(forKey: waiter) }
            continuation?.resume(throwing: ChannelError(.transient, "\(self.prefix): the keep-alive was cancelled"))
        }
    }

    func tokenDidChange(_ token: ChannelToken) async {
        let credentials: RegistrationCredentials
        do {
            credentials = try await self.credentials(for: .available(token))
        } catch {
            self.host.logger.warning("\(self.prefix): the renewed token cannot be used: \(error)")
            return
        }
        self.step { state, effects in
            self.drive(&state, &effects) { $0.credentialsChanged(credentials) }
        }
    }

    func applicationStateDidChange(_ applicationState: ApplicationState) async {
        guard applicationState == .foreground else { return }
        // Back from sleep or lock: a flow may have died meanwhile. One REGISTER tells at once.
        self.step { state, effects in
            guard state.listening else { return }
            self.drive(&state, &effects) { $0.refresh() }
        }
    }

    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        switch request {
        case .accept(let id):
            return try await self.accept(id)
        case .decline(let id):
            try self.step { state, effects throws(ChannelError) in self.apply(try state.calls.decline(id), &state, &effects) }
            return .done
        case .custom("registration", _):
            return .fields(self.registrationReport())
        default:
            throw ChannelError(.unsupported, "\(self.prefix): no \(request.name) requests here; it knows accept, decline and registration")
        }
    }

    // MARK: Driving the machines

    /// Feeds the registration machine one event and carries out what it answers.
    func drive(
        _ state: inout State,
        _ effects: inout [Effect],
        _ event: (inout RegistrationStateMachine) -> [RegistrationStateMachine.Action]
    ) {
        guard var machine = state.machine else { return }
        let actions = event(&machine)
        state.machine = machine
        self.apply(actions, &state, &effects)
    }

    /// Carries out the registration machine's actions.
    func apply(_ actions: [RegistrationStateMachine.Action], _ state: inout State, _ effects: inout [Effect]) {
        for action in actions {
            switch action {
            case .send(let request):
                if let transport = state.transport { effects.append(.send(transport, .request(request))) }
            case .setTimer(let id, let delay):
                self.arm(.registration(id), after: delay)
            case .cancelTimer(let id):
                self.timers.cancel(.registration(id))
            case .registered(let grant):
                self.registered(grant, &state, &effects)
            case .unregistered:
                self.timers.cancel(.stopDeadline)
                if let waiter = state.stopWaiter {
                    state.stopWaiter = nil
                    effects.append(.resumeStop(waiter))
                }
            case .failed(let error):
                self.failed(error, &state, &effects)
            }
        }
    }

    func registered(_ grant: RegistrationGrant, _ state: inout State, _ effects: inout [Effect]) {
        let first = state.grant == nil
        state.grant = grant
        state.registeredAt = self.host.now()
        state.registrations += 1
        state.retry.registered()
        if let waiter = state.listenWaiter {
            state.listenWaiter = nil
            state.listening = true
            effects.append(.resume(waiter, nil))
        }
        for waiter in state.refreshWaiters.values { effects.append(.resume(waiter, nil)) }
        state.refreshWaiters = [:]
        let outbound = grant.outbound ? ", RFC 5626 outbound" + (grant.flowTimer.map { " with flow timer \($0) s" } ?? "") : ""
        effects.append(.log(first ? .info : .debug, "\(self.prefix): registered \(self.configuration.addressOfRecord) at \(self.configuration.registrarDescription) for \(grant.expires) s\(outbound)"))
        if grant.outbound, state.transport?.kind == .tcp, !self.timers.isArmed(.ping), !self.timers.isArmed(.pongTimeout) {
            self.armPing(&state)
        }
    }

    // MARK: Timers

    func arm(_ key: TimerKey, after delay: Duration) {
        self.timers.arm(key, after: delay) { [weak self] id in self?.timerFired(id) }
    }

    func armPing(_ state: inout State) {
        let interval = SIPOutbound.keepAliveInterval(flowTimer: state.grant?.flowTimer, using: &state.random)
        self.arm(.ping, after: interval)
    }

    func timerFired(_ id: TimerID<TimerKey>) {
        self.step { state, effects in
            guard self.timers.consume(id) else { return }
            switch id.kind {
            case .registration(let id):
                self.drive(&state, &effects) { $0.timerFired(id) }
            case .call(let id, let timer):
                self.apply(state.calls.timerFired(callID: id, timer), &state, &effects)
            case .ping:
                guard let transport = state.transport else { return }
                effects.append(.ping(transport))
                self.arm(.pongTimeout, after: SIPOutbound.pongTimeout)
            case .pongTimeout:
                let seconds = SIPOutbound.pongTimeout.components.seconds
                self.drive(&state, &effects) { $0.transportFailed("no answer to an RFC 5626 keep-alive within \(seconds) s") }
            case .stopDeadline:
                if let waiter = state.stopWaiter {
                    state.stopWaiter = nil
                    effects.append(.resumeStop(waiter))
                    effects.append(.log(.notice, "\(self.prefix): the registrar did not confirm the unregistration; leaving anyway"))
                }
            }
        }
    }

    // MARK: Effects

    func perform(_ effect: Effect) {
        switch effect {
        case .send(let transport, let message, let origin): transport.send(message, to: origin)
        case .ping(let transport): transport.ping()
        case .emit(let event): self.host.emit(event)
        case .resume(let waiter, nil): waiter.resume()
        case .resume(let waiter, let error?): waiter.resume(throwing: error)
        case .resumeStop(let waiter): waiter.resume()
        case .close(let transport): transport.closeNow()
        case .log(let level, let message): self.host.logger.log(level: level, "\(message)")
        }
    }

    func abandonListening(flow: Generation) {
        let (waiter, transport) = self.withState { state -> (CheckedContinuation<Void, any Error>?, SIPTransport?) in
            guard state.flow == flow else { return (nil, nil) }
            state.flow.advance()
            state.machine = nil
            self.timers.cancelAll()
            defer {
                state.listenWaiter = nil
                state.transport = nil
            }
            return (state.listenWaiter, state.transport)
        }
        transport?.closeNow()
        waiter?.resume(throwing: ChannelError(.transient, "\(self.prefix): listening was cancelled"))
    }

}
