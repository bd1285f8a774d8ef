import AttendantPluginAPI
import Synchronization

/// A channel that needs no network: see ``LoopbackPluginFactory``.
final class LoopbackChannel: Channel {
    private struct State {
        var listening = false
        var nextContact = 1
        var listenAttempts = 0
        var ticker: Task<Void, Never>?
        var ringing: [String: Task<Void, Never>] = [:]
        var chat = LoopbackChat()
        /// The scripted agent's pending answers, by the customer's message id.
        var echoes: [String: Task<Void, Never>] = [:]
    }

    let configuration: LoopbackConfiguration
    let host: any ChannelHost
    private let state = Mutex(State())

    init(configuration: LoopbackConfiguration, host: any ChannelHost) {
        self.configuration = configuration
        self.host = host
    }

    // MARK: Channel

    func listen() async throws {
        let next = Int(try await self.host.store.value(forKey: "next-contact") ?? "") ?? 1
        try await self.count("listens")
        let attempt = self.state.withLock { state in
            state.listenAttempts += 1
            return state.listenAttempts
        }
        if attempt <= self.configuration.listenFailures {
            throw ChannelError(
                self.configuration.listenFailure,
                "loopback: listen attempt \(attempt) fails on purpose (listen-failures = \(self.configuration.listenFailures))"
            )
        }
        let ticker: Task<Void, Never>? = self.configuration.contactInterval.map { interval in
            Task { await self.ringPeriodically(every: interval) }
        }
        self.state.withLock { state in
            state.listening = true
            state.nextContact = max(state.nextContact, next)
            state.ticker?.cancel()
            state.ticker = ticker
        }
        let interval = self.configuration.contactInterval.map { "every \($0.seconds) s" } ?? "on request"
        self.host.logger.info("loopback listening; contacts \(interval)")
    }

    func stopListening() async {
        let tasks = self.state.withLock { state in
            state.listening = false
            defer {
                state.ticker = nil
                state.ringing = [:]
                state.echoes = [:]
            }
            return [state.ticker].compactMap { $0 } + Array(state.ringing.values) + Array(state.echoes.values)
        }
        for task in tasks { task.cancel() }
        try? await self.count("stops")
        if self.configuration.stopDelay > .zero {
            self.host.logger.info("loopback stopping slowly (stop-delay = \(self.configuration.stopDelay.seconds) s)")
            // A task of its own, so cancelling the stop does not end the wait.
            let clock = self.host.clock
            let delay = self.configuration.stopDelay
            await Task.detached { try? await clock.sleep(for: delay) }.value
        }
    }

    func keepAlive() async throws {
        guard self.state.withLock({ $0.listening }) else {
            throw ChannelError(.transient, "loopback: keep-alive while not listening")
        }
        try await self.count("keepalives")
    }

    func tokenDidChange(_ token: ChannelToken) async {
        try? await self.count("token-changes")
        try? await self.host.store.setValue(token.expiresAt.map { "\($0)" } ?? "unknown", forKey: "token-expires-at")
    }

    func applicationStateDidChange(_ state: ApplicationState) async {
        try? await self.host.store.setValue(state.rawValue, forKey: "application-state")
    }

    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        switch request {
        case .accept(let id):
            try self.end(id, .answered)
            return .done
        case .decline(let id):
            try self.end(id, .declined)
            return .done
        case .custom("ring", let arguments):
            guard self.state.withLock({ $0.listening }) else {
                throw ChannelError(.illegalState, "loopback: not listening, so nothing can ring")
            }
            var caller = self.configuration.caller
            if let name = arguments["caller"] { caller.displayName = name }
            return .contact(await self.ring(from: caller, summary: arguments["summary"]))
        case .custom("drop", let arguments):
            let reason = arguments["reason"] ?? "dropped on request"
            self.state.withLock { $0.listening = false }
            self.host.emit(.stoppedListening(ChannelError(.transient, "loopback: \(reason)")))
            return .done
        case .custom("report", _):
            var fields = try await self.host.store.allValues()
            fields["listening"] = self.state.withLock { $0.listening } ? "yes" : "no"
            return .fields(fields)
        default:
            if let reply = try self.chat(request) { return reply }
            if LoopbackChat.handles(request) {
                throw ChannelError(.unsupported, "loopback: no \(request.name) requests here; chat requests need contact-kind = \"chat\"")
            }
            throw ChannelError(
                .unsupported,
                "loopback: no \(request.name) requests here; it knows accept, decline, ring, drop, report and, with contact-kind = \"chat\", the chat requests"
            )
        }
    }

    // MARK: Chat

    /// A chat request on a chat channel: the chat's reply, its events emitted, an echo scheduled; nil
    /// for other requests or kinds.
    private func chat(_ request: ChannelRequest) throws(ChannelError) -> ChannelReply? {
        guard self.configuration.contactKind == .chat else { return nil }
        let now = self.host.now()
        guard let outcome = try self.state.withLock({ state throws(ChannelError) in try state.chat.handle(request, now: now) }) else { return nil }
        for event in outcome.events { self.host.emit(event) }
        if self.configuration.echoAgent, let sent = outcome.sent {
            let delay = self.configuration.echoDelay
            let echo = Task {
                do {
                    try await self.host.clock.sleep(for: delay)
                } catch {
                    return
                }
                let now = self.host.now()
                let events = self.state.withLock { state in
                    state.echoes[sent.id] = nil
                    return state.chat.agentReply(to: sent, now: now)
                }
                for event in events { self.host.emit(event) }
            }
            self.state.withLock { $0.echoes[sent.id] = echo }
        }
        return outcome.reply
    }

    // MARK: Contacts

    private func ringPeriodically(every interval: Duration) async {
        while !Task.isCancelled {
            do {
                try await self.host.clock.sleep(for: interval)
            } catch {
                return
            }
            _ = await self.ring(from: self.configuration.caller, summary: nil)
        }
    }

    private func ring(from caller: Party, summary: String?) async -> Contact {
        let number = self.state.withLock { state in
            defer { state.nextContact += 1 }
            return state.nextContact
        }
        try? await self.host.store.setValue(String(number + 1), forKey: "next-contact")
        let kind = self.configuration.contactKind
        let contact = Contact(
            id: "loopback-\(number)",
            kind: kind,
            from: caller,
            summary: summary ?? "Loopback \(kind) number \(number)",
            receivedAt: self.host.now(),
            actions: kind == .call ? [.accept, .decline] : [.open]
        )
        let timeout = self.configuration.ringTimeout
        let timer = Task {
            do {
                try await self.host.clock.sleep(for: timeout)
            } catch {
                return
            }
            try? self.end(contact.id, .missed)
        }
        self.state.withLock { $0.ringing[contact.id] = timer }
        self.host.emit(.incomingContact(contact))
        return contact
    }

    private func end(_ id: String, _ outcome: ContactOutcome) throws {
        guard let timer = self.state.withLock({ $0.ringing.removeValue(forKey: id) }) else {
            throw ChannelError(.illegalState, "loopback: contact \(id) is not ringing")
        }
        if outcome != .missed { timer.cancel() }
        self.host.emit(.contactEnded(contactID: id, outcome: outcome))
    }

    private func count(_ key: String) async throws {
        let current = Int(try await self.host.store.value(forKey: key) ?? "") ?? 0
        try await self.host.store.setValue(String(current + 1), forKey: key)
    }
}
