import AttendantPluginAPI
import SIPCore
import Synchronization

/// A SIP user agent that stays registered and turns incoming INVITEs into contacts.
///
/// Everything protocol-shaped is decided by SIPCore's pure machines (``RegistrationStateMachine`` and one
/// ``InviteServerTransaction`` per call); this class is their driver. It keeps their state under one lock,
/// feeds them what arrives on the flow, what the host asks and the timers that fire, and carries out what
/// they return: it sends on the flow, arms timers on the host's clock (so tests compress hours into
/// milliseconds) and reports to the host. Work that must not happen under the lock (sending, emitting,
/// resuming a waiting `listen()`) is collected as ``Effect``s and done after it is released.
///
/// Registration follows the host's cycle: `listen()` registers with `Expires` equal to the cycle
/// (`register-expires`, 600 s); the machine refreshes at 90 % of what the registrar granted, so a binding
/// never lapses between cycles; `keepAlive()` re-registers when the binding has lived half its time or
/// more (normally: the refresh timer already renewed it, and the keep-alive only confirms it is fresh);
/// a renewed token re-registers at once, the old binding staying valid until the new one is in place.
final class SIPVoiceChannel: Channel {
    let configuration: SIPVoiceConfiguration
    let host: any ChannelHost
    private let state = Mutex(State())

    init(configuration: SIPVoiceConfiguration, host: any ChannelHost) {
        self.configuration = configuration
        self.host = host
    }

    // MARK: State

    struct Call: Sendable {
        var transaction: InviteServerTransaction
        var contact: Contact
        /// An answer command is running for it.
        var answering = false
    }

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

    private struct State: Sendable {
        var machine: RegistrationStateMachine?
        var transport: SIPTransport?
        /// Which flow is current; arrivals from an older one are ignored.
        var flow: UInt64 = 0
        var listening = false
        var listenWaiter: CheckedContinuation<Void, any Error>?
        var refreshWaiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var nextWaiter: UInt64 = 0
        var stopWaiter: CheckedContinuation<Void, Never>?
        var timers: [TimerKey: Task<Void, Never>] = [:]
        /// Ringing and recently ended calls, by Call-ID (the contact's id).
        var calls: [String: Call] = [:]
        var grant: RegistrationGrant?
        var registeredAt: UnixTime?
        var ephemeralExpiry: Int64?
        var identifiers = SIPIdentifiers()
        var random = SystemRandomNumberGenerator()
        var registrations = 0
        /// `listen()` calls under way (getting the token, connecting, registering).
        var pendingListens = 0
    }

    /// Work done after the state lock is released.
    private enum Effect: Sendable {
        case send(SIPTransport, SIPMessage)
        case ping(SIPTransport)
        case emit(ChannelEvent)
        case resume(CheckedContinuation<Void, any Error>, ChannelError?)
        case resumeStop(CheckedContinuation<Void, Never>)
        case close(SIPTransport)
        case log(Logger.Level, String)
    }

    private var prefix: String { "sip-voice" }

    // MARK: Channel

    func listen() async throws {
        self.state.withLock { $0.pendingListens += 1 }
        defer { self.state.withLock { $0.pendingListens -= 1 } }
        let credentials = try await self.credentials(for: await self.host.currentToken())
        let instanceID = try await self.instanceID()

        let (flow, previous) = self.state.withLock { state -> (UInt64, SIPTransport?) in
            state.flow += 1
            defer { state.transport = nil }
            return (state.flow, state.transport)
        }
        await previous?.close()

        let transport: SIPTransport
        do {
            transport = try await SIPTransport.open(
                self.configuration.transport,
                host: self.configuration.registrarHost,
                port: self.configuration.registrarPort
            ) { [weak self] arrival in self?.arrived(arrival, flow: flow) }
        } catch {
            throw ChannelError(.transient, "\(self.prefix): \(error)")
        }

        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let effects = self.state.withLock { state -> [Effect] in
                    guard state.flow == flow, !Task.isCancelled else {
                        return [.close(transport), .resume(continuation, ChannelError(.transient, "\(self.prefix): listening was cancelled"))]
                    }
                    state.transport = transport
                    let registration = self.registrationConfiguration(transport: transport, instanceID: instanceID)
                    if var machine = state.machine, machine.reconfigure(registration) {
                        _ = machine.credentialsChanged(credentials)
                        state.machine = machine
                    } else {
                        state.machine = RegistrationStateMachine(configuration: registration, credentials: credentials, identifiers: state.identifiers)
                    }
                    state.listenWaiter = continuation
                    var effects: [Effect] = []
                    self.drive(&state, &effects) { $0.start() }
                    return effects
                }
                self.run(effects)
            }
        } onCancel: {
            self.abandonListening(flow: flow)
        }
    }

    func stopListening() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let effects = self.state.withLock { state -> [Effect] in
                var effects: [Effect] = []
                state.listening = false
                self.endCalls(&state, &effects, statusCode: 480, reason: "Temporarily Unavailable")
                guard let phase = state.machine?.phase, phase == .registered || phase == .registering else {
                    effects.append(.resumeStop(continuation))
                    return effects
                }
                state.stopWaiter = continuation
                self.arm(.stopDeadline, after: .seconds(2), &state)
                self.drive(&state, &effects) { $0.stop() }
                return effects
            }
            self.run(effects)
        }
        let transport = self.state.withLock { state -> SIPTransport? in
            state.flow += 1
            state.listening = false
            state.grant = nil
            for timer in state.timers.values { timer.cancel() }
            state.timers = [:]
            state.machine = nil
            defer { state.transport = nil }
            return state.transport
        }
        await transport?.close()
    }

    func keepAlive() async throws {
        let token = self.configuration.authentication == .ephemeral ? await self.host.currentToken() : nil
        let waiter = self.state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let effects = self.state.withLock { state -> [Effect] in
                    guard state.listening, state.machine?.phase == .registered, let grant = state.grant else {
                        return [.resume(continuation, ChannelError(.transient, "\(self.prefix): not registered at \(self.configuration.registrarDescription)"))]
                    }
                    var effects: [Effect] = []
                    let now = self.host.now()
                    var renewed: RegistrationCredentials?
                    if let token, let expiry = state.ephemeralExpiry,
                        Double(expiry) - now.secondsSince1970 < Double(2 * self.configuration.registerExpires)
                    {
                        // Ephemeral credentials that would not outlive the next cycle: derive new ones.
                        renewed = self.ephemeral(secret: token.value, state: &state)
                    } else if let registeredAt = state.registeredAt, (now - registeredAt).seconds < Double(grant.expires) / 2 {
                        return [.resume(continuation, nil)]
                    }
                    state.refreshWaiters[waiter] = continuation
                    self.drive(&state, &effects) { machine in renewed.map { machine.credentialsChanged($0) } ?? machine.refresh() }
                    return effects
                }
                self.run(effects)
            }
        } onCancel: {
            let continuation = self.state.withLock { $0.refreshWaiters.removeValue(forKey: waiter) }
            continuation?.resume(throwing: ChannelError(.transient, "\(self.prefix): the keep-alive was cancelled"))
        }
    }

    func tokenDidChange(_ token: ChannelToken) async {
        let credentials: RegistrationCredentials
        do {
            credentials = try await self.credentials(for: token)
        } catch {
            self.host.logger.warning("\(self.prefix): the renewed token cannot be used: \(error)")
            return
        }
        let effects = self.state.withLock { state -> [Effect] in
            var effects: [Effect] = []
            self.drive(&state, &effects) { $0.credentialsChanged(credentials) }
            return effects
        }
        self.run(effects)
    }

    func applicationStateDidChange(_ applicationState: ApplicationState) async {
        guard applicationState == .foreground else { return }
        // Back from sleep or lock: a flow may have died meanwhile. One REGISTER tells at once.
        let effects = self.state.withLock { state -> [Effect] in
            guard state.listening else { return [] }
            var effects: [Effect] = []
            self.drive(&state, &effects) { $0.refresh() }
            return effects
        }
        self.run(effects)
    }

    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        switch request {
        case .accept(let id):
            return try await self.accept(id)
        case .decline(let id):
            try self.finish(id, verb: "decline") { $0.decline() }
            return .done
        case .custom("registration", _):
            return .fields(self.registrationReport())
        default:
            throw ChannelError(.unsupported, "\(self.prefix): no \(request.name) requests here; it knows accept, decline and registration")
        }
    }

    // MARK: Accept and decline

    private func accept(_ id: String) async throws -> ChannelReply {
        let call = try self.state.withLock { state throws(ChannelError) -> Call in
            guard var call = state.calls[id], call.transaction.state == .proceeding else {
                throw ChannelError(.illegalState, "\(self.prefix): call \(id) is not ringing (any more)")
            }
            guard !call.answering else { throw ChannelError(.illegalState, "\(self.prefix): call \(id) is already being answered") }
            call.answering = true
            state.calls[id] = call
            return call
        }
        let target: SIPNameAddress
        if let command = self.configuration.answerCommand {
            let answer = AnswerCommand(argv: command, timeout: self.configuration.answerTimeout)
            do {
                target = try await answer.run(environment: [
                    "ATTENDANT_CHANNEL": self.host.channelName,
                    "ATTENDANT_CALL_ID": id,
                    "ATTENDANT_CALLER_NAME": call.transaction.caller.displayName ?? "",
                    "ATTENDANT_CALLER_URI": call.transaction.caller.uri.description,
                    "ATTENDANT_CALLEE_URI": call.transaction.callee.uri.description,
                ])
            } catch {
                self.state.withLock { $0.calls[id]?.answering = false }
                throw ChannelError(.server, "\(self.prefix): the call keeps ringing: \(error)")
            }
        } else if let contact = self.configuration.softphoneContact {
            target = contact
        } else {
            self.state.withLock { $0.calls[id]?.answering = false }
            throw ChannelError(.configuration, "\(self.prefix): there is nowhere to send an accepted call; set softphone-contact or answer-command in [channel.sip-voice]")
        }
        try self.finish(id, verb: "accept") { $0.accept(redirectingTo: target) }
        return .done
    }

    private func finish(_ id: String, verb: String, _ decide: (inout InviteServerTransaction) -> [InviteServerTransaction.Action]) throws {
        let effects = try self.state.withLock { state throws(ChannelError) -> [Effect] in
            guard var call = state.calls[id], call.transaction.state == .proceeding else {
                throw ChannelError(.illegalState, "\(self.prefix): cannot \(verb) call \(id): it is not ringing (the caller may have hung up)")
            }
            var effects: [Effect] = []
            let actions = decide(&call.transaction)
            call.answering = false
            state.calls[id] = call
            self.applyCall(id, actions, &state, &effects)
            return effects
        }
        self.run(effects)
    }

    // MARK: Arrivals

    private func arrived(_ arrival: SIPTransport.Arrival, flow: UInt64) {
        let effects = self.state.withLock { state -> [Effect] in
            guard state.flow == flow else { return [] }
            var effects: [Effect] = []
            switch arrival {
            case .message(.response(let response)):
                self.drive(&state, &effects) { $0.receive(response) }
            case .message(.request(let request)):
                self.received(request, &state, &effects)
            case .pong:
                self.cancel(.pongTimeout, &state)
                self.armPing(&state)
            case .garbage(let error):
                effects.append(.log(.warning, "\(self.prefix): ignored a message from \(self.configuration.registrarDescription) that is not valid SIP: \(error)"))
            case .unreachable(let reason):
                // Only an answer we wait for makes it news: a REGISTER that cannot arrive fails now rather
                // than after timer F's 32 s.
                guard state.machine?.isAwaitingResponse == true else { return [] }
                self.drive(&state, &effects) { $0.transportFailed("nothing answers at \(self.configuration.registrarDescription) (\(reason))") }
            case .closed(let reason):
                self.drive(&state, &effects) { $0.transportFailed(reason) }
            }
            return effects
        }
        self.run(effects)
    }

    private func received(_ request: SIPRequest, _ state: inout State, _ effects: inout [Effect]) {
        guard let transport = state.transport else { return }
        switch request.method {
        case .invite, .ack, .cancel:
            // Calls are kept by Call-ID, which every request of a transaction repeats: look the call up by it
            // and let the transaction confirm the match, instead of asking every call (each `matches` parses
            // the request's Via, and finished UDP calls linger for T4, so a scan cost grows with recent calls).
            if let id = try? request.headers.callID, let call = state.calls[id], call.transaction.matches(request) {
                var transaction = call.transaction
                let actions = transaction.receive(request)
                state.calls[id]?.transaction = transaction
                self.applyCall(id, actions, &state, &effects)
            } else if request.method == .invite {
                self.ring(request, transport: transport, &state, &effects)
            } else if request.method == .cancel {
                effects.append(.send(transport, .response(.answering(request, statusCode: 481))))
            }
        case .options:
            var headers = SIPHeaders()
            headers.add(.allow, Self.allowed)
            effects.append(.send(transport, .response(.answering(request, statusCode: 200, toTag: state.identifiers.tag(), extraHeaders: headers))))
        case .bye:
            effects.append(.send(transport, .response(.answering(request, statusCode: 481))))
        default:
            var headers = SIPHeaders()
            headers.add(.allow, Self.allowed)
            effects.append(.send(transport, .response(.answering(request, statusCode: 405, extraHeaders: headers))))
        }
    }

    private static let allowed = "INVITE, ACK, CANCEL, OPTIONS, BYE"

    /// A new INVITE: the contact is raised first (the user sees it as soon as possible), then 100 and 180
    /// go out.
    private func ring(_ invite: SIPRequest, transport: SIPTransport, _ state: inout State, _ effects: inout [Effect]) {
        guard state.listening else {
            effects.append(.send(transport, .response(.answering(invite, statusCode: 480, toTag: state.identifiers.tag()))))
            return
        }
        var configuration = InviteServerTransaction.Configuration(
            reliable: transport.kind.isReliable,
            ringTimeout: self.configuration.ringTimeout,
            localContact: SIPNameAddress(uri: self.contactURI(transport))
        )
        configuration.timers = self.configuration.timers
        var transaction: InviteServerTransaction
        do {
            transaction = try InviteServerTransaction(invite: invite, localTag: state.identifiers.tag(), configuration: configuration)
        } catch {
            effects.append(.log(.warning, "\(self.prefix): refused an INVITE that lacks what a call needs: \(error)"))
            if (try? invite.headers.topVia) != nil {
                effects.append(.send(transport, .response(.answering(invite, statusCode: 400, reasonPhrase: "Bad Request"))))
            }
            return
        }
        let id = transaction.dialog.callID
        guard state.calls[id] == nil else {
            // A second INVITE for a call already here (a forked or looped copy): this phone is busy with it.
            effects.append(.send(transport, .response(.answering(invite, statusCode: 482, toTag: state.identifiers.tag()))))
            return
        }
        let caller = transaction.caller
        let contact = Contact(
            id: id,
            kind: .call,
            from: Party(displayName: caller.displayName ?? "", address: caller.uri.description),
            summary: "Call to \(transaction.callee.uri)",
            receivedAt: self.host.now(),
            actions: self.configuration.canAccept ? [.accept, .decline] : [.decline]
        )
        effects.append(.emit(.incomingContact(contact)))
        let actions = transaction.start()
        state.calls[id] = Call(transaction: transaction, contact: contact)
        self.applyCall(id, actions, &state, &effects)
    }

    /// Ends every ringing call with `statusCode` (the channel is going away) and forgets all calls.
    private func endCalls(_ state: inout State, _ effects: inout [Effect], statusCode: Int?, reason: String) {
        for id in state.calls.keys {
            guard var call = state.calls[id] else { continue }
            if call.transaction.state == .proceeding {
                if let statusCode, state.transport != nil {
                    let actions = call.transaction.respond(statusCode: statusCode, reasonPhrase: reason)
                    state.calls[id] = call
                    self.applyCall(id, actions, &state, &effects)
                } else {
                    effects.append(.emit(.contactEnded(contactID: id, outcome: .missed)))
                }
            }
            for key in state.timers.keys {
                if case .call(id, _) = key { self.cancel(key, &state) }
            }
        }
        state.calls = [:]
    }

    // MARK: Driving the machines

    /// Feeds the registration machine one event and carries out what it answers.
    private func drive(
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
    private func apply(_ actions: [RegistrationStateMachine.Action], _ state: inout State, _ effects: inout [Effect]) {
        for action in actions {
            switch action {
            case .send(let request):
                if let transport = state.transport { effects.append(.send(transport, .request(request))) }
            case .setTimer(let id, let delay):
                self.arm(.registration(id), after: delay, &state)
            case .cancelTimer(let id):
                self.cancel(.registration(id), &state)
            case .registered(let grant):
                self.registered(grant, &state, &effects)
            case .unregistered:
                self.cancel(.stopDeadline, &state)
                if let waiter = state.stopWaiter {
                    state.stopWaiter = nil
                    effects.append(.resumeStop(waiter))
                }
            case .failed(let error):
                self.failed(error, &state, &effects)
            }
        }
    }

    private func registered(_ grant: RegistrationGrant, _ state: inout State, _ effects: inout [Effect]) {
        let first = state.grant == nil
        state.grant = grant
        state.registeredAt = self.host.now()
        state.registrations += 1
        if let waiter = state.listenWaiter {
            state.listenWaiter = nil
            state.listening = true
            effects.append(.resume(waiter, nil))
        }
        for waiter in state.refreshWaiters.values { effects.append(.resume(waiter, nil)) }
        state.refreshWaiters = [:]
        let outbound = grant.outbound ? ", RFC 5626 outbound" + (grant.flowTimer.map { " with flow timer \($0) s" } ?? "") : ""
        effects.append(.log(first ? .info : .debug, "\(self.prefix): registered \(self.configuration.addressOfRecord) at \(self.configuration.registrarDescription) for \(grant.expires) s\(outbound)"))
        if grant.outbound, state.transport?.kind == .tcp, state.timers[.ping] == nil, state.timers[.pongTimeout] == nil {
            self.armPing(&state)
        }
    }

    private func failed(_ error: RegistrationError, _ state: inout State, _ effects: inout [Effect]) {
        let code: ChannelError.Code =
            switch error.code {
            case .authentication: .authentication
            case .configuration: .configuration
            default: .transient
            }
        let failure = ChannelError(code, "\(self.prefix): registering \(self.configuration.addressOfRecord) at \(self.configuration.registrarDescription) failed: \(error.message)")
        let wasListening = state.listening
        state.listening = false
        state.grant = nil
        state.registeredAt = nil
        self.cancel(.ping, &state)
        self.cancel(.pongTimeout, &state)
        self.endCalls(&state, &effects, statusCode: nil, reason: "")
        if let transport = state.transport {
            state.transport = nil
            state.flow += 1
            effects.append(.close(transport))
        }
        if let waiter = state.listenWaiter {
            state.listenWaiter = nil
            effects.append(.resume(waiter, failure))
        } else if !state.refreshWaiters.isEmpty {
            for waiter in state.refreshWaiters.values { effects.append(.resume(waiter, failure)) }
            state.refreshWaiters = [:]
        } else if wasListening {
            effects.append(.emit(.stoppedListening(failure)))
        }
        if let waiter = state.stopWaiter {
            state.stopWaiter = nil
            effects.append(.resumeStop(waiter))
        }
    }

    private func applyCall(_ id: String, _ actions: [InviteServerTransaction.Action], _ state: inout State, _ effects: inout [Effect]) {
        for action in actions {
            switch action {
            case .send(let response):
                if let transport = state.transport { effects.append(.send(transport, .response(response))) }
            case .setTimer(let timer, let delay):
                self.arm(.call(id, timer), after: delay, &state)
            case .cancelTimer(let timer):
                self.cancel(.call(id, timer), &state)
            case .ended(let outcome):
                let (result, how) = Self.describe(outcome)
                effects.append(.emit(.contactEnded(contactID: id, outcome: result)))
                effects.append(.log(.info, "\(self.prefix): call \(id) \(how)"))
            case .terminated:
                state.calls[id] = nil
            }
        }
    }

    private static func describe(_ outcome: InviteServerTransaction.Outcome) -> (ContactOutcome, String) {
        switch outcome {
        case .redirected(let target): (.answered, "accepted: redirected to \(target.uri) (302)")
        case .declined: (.declined, "declined (603)")
        case .busy: (.declined, "refused as busy (486)")
        case .notAnswered: (.missed, "not answered within the ring timeout (480)")
        case .cancelled: (.missed, "cancelled by the caller (487)")
        case .rejected(let status): (.missed, "ended with \(status)")
        }
    }

    // MARK: Timers

    private func arm(_ key: TimerKey, after delay: Duration, _ state: inout State) {
        state.timers[key]?.cancel()
        let clock = self.host.clock
        state.timers[key] = Task { [weak self] in
            do {
                try await clock.sleep(for: delay)
            } catch {
                return
            }
            self?.timerFired(key)
        }
    }

    private func cancel(_ key: TimerKey, _ state: inout State) {
        state.timers.removeValue(forKey: key)?.cancel()
    }

    private func armPing(_ state: inout State) {
        let interval = SIPOutbound.keepAliveInterval(flowTimer: state.grant?.flowTimer, using: &state.random)
        self.arm(.ping, after: interval, &state)
    }

    private func timerFired(_ key: TimerKey) {
        let effects = self.state.withLock { state -> [Effect] in
            guard state.timers.removeValue(forKey: key) != nil else { return [] }
            var effects: [Effect] = []
            switch key {
            case .registration(let id):
                self.drive(&state, &effects) { $0.timerFired(id) }
            case .call(let id, let timer):
                guard var call = state.calls[id] else { return [] }
                let actions = call.transaction.timerFired(timer)
                state.calls[id] = call
                self.applyCall(id, actions, &state, &effects)
            case .ping:
                guard let transport = state.transport else { return [] }
                effects.append(.ping(transport))
                self.arm(.pongTimeout, after: SIPOutbound.pongTimeout, &state)
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
            return effects
        }
        self.run(effects)
    }

    // MARK: Effects

    private func run(_ effects: [Effect]) {
        for effect in effects {
            switch effect {
            case .send(let transport, let message): transport.send(message)
            case .ping(let transport): transport.ping()
            case .emit(let event): self.host.emit(event)
            case .resume(let waiter, nil): waiter.resume()
            case .resume(let waiter, let error?): waiter.resume(throwing: error)
            case .resumeStop(let waiter): waiter.resume()
            case .close(let transport): transport.closeNow()
            case .log(let level, let message): self.host.logger.log(level: level, "\(message)")
            }
        }
    }

    private func abandonListening(flow: UInt64) {
        let (waiter, transport) = self.state.withLock { state -> (CheckedContinuation<Void, any Error>?, SIPTransport?) in
            guard state.flow == flow else { return (nil, nil) }
            state.flow += 1
            state.machine = nil
            for timer in state.timers.values { timer.cancel() }
            state.timers = [:]
            defer {
                state.listenWaiter = nil
                state.transport = nil
            }
            return (state.listenWaiter, state.transport)
        }
        transport?.closeNow()
        waiter?.resume(throwing: ChannelError(.transient, "\(self.prefix): listening was cancelled"))
    }

    // MARK: Credentials and addresses

    private func credentials(for token: ChannelToken?) async throws(ChannelError) -> RegistrationCredentials {
        let authentication = self.configuration.authentication
        if authentication == .none { return .none }
        guard let token else {
            throw ChannelError(.configuration, "\(self.prefix): authentication = \"\(authentication.rawValue)\" needs a token, and the channel has no token source; set token-command, token-url, token-file or token-credential in its [[channel]] table")
        }
        switch authentication {
        case .bearer:
            return .bearer(token.value)
        case .digest:
            return .digest(DigestCredentials(username: self.configuration.username, password: token.value))
        case .ephemeral:
            return self.state.withLock { self.ephemeral(secret: token.value, state: &$0) }
        case .none:
            return .none
        }
    }

    private func ephemeral(secret: String, state: inout State) -> RegistrationCredentials {
        let expiry = Int64(self.host.now().secondsSince1970) + self.configuration.ephemeralLifetime.components.seconds
        state.ephemeralExpiry = expiry
        return .digest(EphemeralCredentials.make(user: self.configuration.username, secret: secret, expiry: expiry, hash: self.configuration.ephemeralHash))
    }

    /// The `+sip.instance` URN: configured, or made once and kept in the channel's store, so that every
    /// registration of this channel (also after a restart) replaces its own binding instead of adding one.
    private func instanceID() async throws(ChannelError) -> String {
        if let configured = self.configuration.instanceID { return configured }
        do {
            if let stored = try await self.host.store.value(forKey: "instance-id") { return stored }
            let made = self.state.withLock { $0.identifiers.instanceID() }
            try await self.host.store.setValue(made, forKey: "instance-id")
            return made
        } catch {
            throw ChannelError(.transient, "\(self.prefix): cannot keep the instance ID in the state store: \(error)")
        }
    }

    private func contactURI(_ transport: SIPTransport) -> SIPURI {
        let host = transport.localHost.contains(":") ? "[\(transport.localHost)]" : transport.localHost
        var parameters = SIPParameters()
        if transport.kind == .tcp { parameters.set("transport", "tcp") }
        return SIPURI(scheme: "sip", user: self.configuration.addressOfRecord.user, host: host, port: transport.localPort, parameters: parameters)
    }

    private func registrationConfiguration(transport: SIPTransport, instanceID: String) -> RegistrationConfiguration {
        let host = transport.localHost.contains(":") ? "[\(transport.localHost)]" : transport.localHost
        var builder = SIPRegisterBuilder(
            registrar: self.configuration.registrar,
            addressOfRecord: self.configuration.addressOfRecord,
            contact: self.contactURI(transport),
            viaTransport: transport.kind.rawValue,
            viaHost: host,
            viaPort: transport.localPort
        )
        builder.displayName = self.configuration.displayName
        builder.instanceID = instanceID
        builder.outbound = self.configuration.outbound
        var registration = RegistrationConfiguration(builder: builder, expires: self.configuration.registerExpires)
        registration.maximumExpires = self.configuration.maximumExpires
        registration.timers = self.configuration.timers
        return registration
    }

    private func registrationReport() -> [String: String] {
        self.state.withLock { state in
            var fields: [String: String] = [
                "listening": state.listening ? "yes" : "no",
                "phase": state.machine.map { "\($0.phase)" } ?? "idle",
                "registrations": String(state.registrations),
                "ringing": String(state.calls.values.filter { $0.transaction.state == .proceeding }.count),
                // Waiting on the network: a listen under way, a REGISTER unanswered, a keep-alive or stop waiting.
                "busy": state.pendingListens > 0 || state.machine?.isAwaitingResponse == true || !state.refreshWaiters.isEmpty
                    || state.stopWaiter != nil ? "yes" : "no",
            ]
            if let grant = state.grant {
                fields["expires"] = String(grant.expires)
                fields["outbound"] = grant.outbound ? "yes" : "no"
                if let flowTimer = grant.flowTimer { fields["flow-timer"] = String(flowTimer) }
            }
            if let registeredAt = state.registeredAt { fields["registered-at"] = registeredAt.description }
            if let transport = state.transport { fields["local-address"] = "\(transport.localHost):\(transport.localPort)" }
            return fields
        }
    }
}
