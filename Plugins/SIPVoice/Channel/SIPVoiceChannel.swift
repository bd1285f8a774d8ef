import AttendantPluginAPI
import AttendantPluginKit
import SIPCore

/// A SIP user agent that stays registered and turns incoming INVITEs into contacts.
///
/// Everything protocol-shaped is decided by SIPCore's pure ``SIPAgent`` (the registration machine, the
/// call table, RFC 5626 pings, who waits for what); this class is its driver. It owns the flow and the
/// continuations of the calls waiting on the agent, keeps both with the agent under one lock, feeds it what
/// arrives on the flow, what the host asks and the timers that fire, and carries out what it answers: it
/// sends on the flow, arms timers on the host's clock (the kit's ``ChannelTimers``, so tests compress hours
/// into milliseconds), resumes whoever waits and reports to the host. Each of these is a step of the kit's
/// ``ChannelDriver``: work that must not happen under the lock (sending, emitting, resuming) is listed as
/// ``Effect``s and done after it is released, on the caller's thread (an INVITE's 180 goes out without a hop).
///
/// Registration follows the host's cycle: `listen()` registers with `Expires` equal to the cycle
/// (`register-expires`, 600 s); the agent refreshes at 90 % of what the registrar granted, so a binding
/// never lapses between cycles; `keepAlive()` re-registers when the binding has lived half its time or
/// more (normally: the refresh timer already renewed it, and the keep-alive only confirms it is fresh);
/// a renewed token re-registers at once, the old binding staying valid until the new one is in place.
final class SIPVoiceChannel: Channel, ChannelDriver {
    typealias Agent = SIPAgent

    let configuration: SIPVoiceConfiguration
    let host: any ChannelHost
    let driverState: DriverState<State>
    let timers: ChannelTimers<Agent.Timer>

    init(configuration: SIPVoiceConfiguration, host: any ChannelHost) {
        self.configuration = configuration
        self.host = host
        self.timers = ChannelTimers(clock: host.clock)
        let names = Agent.Configuration(
            prefix: Self.prefix, addressOfRecord: configuration.addressOfRecord.description,
            registrarDescription: configuration.registrarDescription, cycle: configuration.registerExpires
        )
        self.driverState = DriverState(State(agent: Agent(configuration: names, hashing: host.hashing)))
    }

    struct State: Sendable {
        var agent: Agent
        var transport: SIPTransport?
        /// Which flow is current; arrivals from an older one are ignored.
        var flow = Generation()
        var listenWaiter: CheckedContinuation<Void, any Error>?
        var keepAliveWaiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var nextWaiter: UInt64 = 0
        var stopWaiter: CheckedContinuation<Void, Never>?
        /// `listen()` calls under way (getting the token, connecting, registering).
        var pendingListens = 0
    }

    /// Work done after the state lock is released.
    enum Effect: Sendable {
        /// Sends on the flow, or (a response) to where its request came from.
        case send(SIPTransport, SIPMessage, to: SIPTransport.Origin?)
        case ping(SIPTransport)
        case emit(ChannelEvent)
        case resume(CheckedContinuation<Void, any Error>, ChannelError?)
        case resumeStop(CheckedContinuation<Void, Never>)
        case close(SIPTransport)
        case log(Logger.Level, String)
    }

    /// The start of every message (the plugin's name).
    static let prefix = "sip-voice"
    var prefix: String { Self.prefix }

    // MARK: Channel

    func listen() async throws {
        self.withState { $0.pendingListens += 1 }
        defer { self.withState { $0.pendingListens -= 1 } }
        let credentials = try await self.credentials(for: await self.host.tokenState())
        let instanceID = try await self.instanceID()

        let (flow, previous) = self.withState { state -> (Generation, SIPTransport?) in
            defer {
                state.transport = nil
                state.agent.detachFlow()
            }
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
            throw self.withState { $0.agent.openingFailed("\(error)") }
        }

        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                self.step { state, effects in
                    guard state.flow == flow, !Task.isCancelled else {
                        effects += [.close(transport), .resume(continuation, ChannelError(.transient, "\(self.prefix): listening was cancelled"))]
                        return
                    }
                    state.transport = transport
                    state.listenWaiter = continuation
                    let registration = self.registrationConfiguration(transport: transport, instanceID: instanceID)
                    let opened = Agent.Flow(pings: transport.kind == .tcp, localAddress: "\(transport.localHost):\(transport.localPort)")
                    self.apply(state.agent.listen(on: opened, registration: registration, credentials: credentials, now: self.host.now()), &state, &effects)
                }
            }
        } onCancel: {
            self.abandonListening(flow: flow)
        }
    }

    func stopListening() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            self.step { state, effects in
                state.stopWaiter = continuation
                self.apply(state.agent.stop(now: self.host.now()), &state, &effects)
            }
        }
        let transport = self.withState { state -> SIPTransport? in
            state.flow.advance()
            state.agent.reset(stopped: true)
            self.timers.cancelAll()
            defer { state.transport = nil }
            return state.transport
        }
        await transport?.close()
    }

    func keepAlive() async throws {
        let token = self.configuration.authentication == .ephemeral ? await self.host.currentToken() : nil
        let renewal = token.map { self.ephemeral(secret: $0.value) }
        let waiter = self.withState { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                self.step { state, effects in
                    state.keepAliveWaiters[waiter] = continuation
                    self.apply(state.agent.keepAlive(waiter: waiter, renewal: renewal, now: self.host.now()), &state, &effects)
                }
            }
        } onCancel: {
            let continuation = self.withState { state in
                state.agent.forgetKeepAlive(waiter)
                return state.keepAliveWaiters.removeValue(forKey: waiter)
            }
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
        self.run { $0.credentialsChanged(credentials, now: self.host.now()) }
    }

    func applicationStateDidChange(_ applicationState: ApplicationState) async {
        guard applicationState == .foreground else { return }
        self.run { $0.wake(now: self.host.now()) }
    }

    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        switch request {
        case .accept(let id):
            return try await self.accept(id)
        case .decline(let id):
            try self.run { agent throws(ChannelError) in try agent.decline(id) }
            return .done
        case .custom("registration", _):
            return .fields(self.withState { $0.agent.report(busy: $0.pendingListens > 0) })
        default:
            throw ChannelError(.unsupported, "\(self.prefix): no \(request.name) requests here; it knows accept, decline and registration")
        }
    }

    // MARK: Driving the agent

    /// Hands the agent one event under the lock and carries out what it answers.
    func run<Failure: Error>(_ event: (inout Agent) throws(Failure) -> [Agent.Action]) throws(Failure) {
        try self.step { (state: inout State, effects: inout [Effect]) throws(Failure) in
            self.apply(try event(&state.agent), &state, &effects)
        }
    }

    func arrived(_ arrival: SIPTransport.Arrival, flow: Generation) {
        // What arrives is answered before a timer it arms wakes another thread (an INVITE's 180).
        self.timers.startingAfter {
            self.step { state, effects in
                guard state.flow == flow else { return }
                let now = self.host.now()
                switch arrival {
                case .message(.response(let response), _):
                    self.apply(state.agent.receive(response, now: now), &state, &effects)
                case .message(.request(let request), let origin):
                    guard let transport = state.transport else { return }
                    self.apply(state.agent.receive(request, from: origin, now: now) { self.callSettings(transport) }, &state, &effects)
                case .pong:
                    self.apply(state.agent.pong(), &state, &effects)
                case .garbage(let error, let from, let closed):
                    let closing = closed ? "; closed that connection" : ""
                    effects.append(.log(.warning, "\(self.prefix): ignored a message from \(from) that is not valid SIP: \(error)\(closing)"))
                case .truncated(let from, let size):
                    effects.append(.log(.warning, "\(self.prefix): ignored a datagram from \(from) that filled the whole \(size)-byte receive buffer and may be truncated; send requests that large over TCP"))
                case .unreachable(let reason):
                    self.apply(state.agent.unreachable(reason, now: now), &state, &effects)
                case .closed(let reason):
                    self.apply(state.agent.flowFailed(reason, now: now), &state, &effects)
                }
            }
        }
    }

    func timerFired(_ id: TimerID<Agent.Timer>) {
        self.step { state, effects in
            guard self.timers.consume(id) else { return }
            self.apply(state.agent.timerFired(id.kind, now: self.host.now()), &state, &effects)
        }
    }

    /// Carries out the agent's actions: timers at once, the rest as effects once the lock is released.
    func apply(_ actions: [Agent.Action], _ state: inout State, _ effects: inout [Effect]) {
        for action in actions {
            switch action {
            case .send(let message, let origin):
                if let transport = state.transport { effects.append(.send(transport, message, to: origin)) }
            case .ping:
                if let transport = state.transport { effects.append(.ping(transport)) }
            case .setTimer(let timer, let delay):
                self.timers.arm(timer, after: delay) { [weak self] id in self?.timerFired(id) }
            case .cancelTimer(let timer):
                self.timers.cancel(timer)
            case .cancelCallTimers:
                // Once for every call: a scan of the timers per call would make ending many calls quadratic.
                self.timers.cancelAll { if case .call = $0 { true } else { false } }
            case .emit(let event):
                effects.append(.emit(event))
            case .log(let level, let message):
                effects.append(.log(level, message))
            case .listened(let error):
                if let waiter = state.listenWaiter {
                    state.listenWaiter = nil
                    effects.append(.resume(waiter, error))
                }
            case .keptAlive(let waiters, let error):
                for waiter in waiters {
                    if let continuation = state.keepAliveWaiters.removeValue(forKey: waiter) { effects.append(.resume(continuation, error)) }
                }
            case .stopped:
                if let waiter = state.stopWaiter {
                    state.stopWaiter = nil
                    effects.append(.resumeStop(waiter))
                }
            case .closeFlow:
                if let transport = state.transport {
                    state.transport = nil
                    state.flow.advance()
                    effects.append(.close(transport))
                }
            }
        }
    }

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
            state.agent.reset(stopped: false)
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
