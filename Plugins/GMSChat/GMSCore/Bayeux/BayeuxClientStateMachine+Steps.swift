import AttendantPluginKit

// The machine's own steps: what an input leads to (handshake, connect, subscribe, retry, stop).

extension BayeuxClientStateMachine {
    mutating func makeID() -> String {
        self.nextMessageID += 1
        return String(self.nextMessageID)
    }

    mutating func handshake() -> [Action] {
        var actions = self.cancel(.handshake)
        actions += self.cancel(.connect)
        actions += self.cancel(.connectDeadline)
        actions += self.abandonOutstandingConnect()
        let id = self.makeID()
        self.phase = .handshaking(id: id)
        var message = BayeuxMessage(channel: "/meta/handshake", id: id, ext: self.configuration.handshakeExt)
        message.version = "1.0"
        message.minimumVersion = "1.0"
        // The fallback stays on offer, so a server without WebSocket still agrees on a type.
        message.supportedConnectionTypes =
            self.connectionType == .webSocket
            ? [BayeuxConnectionType.webSocket.rawValue, BayeuxConnectionType.longPolling.rawValue] : [BayeuxConnectionType.longPolling.rawValue]
        actions.append(.send([message], on: .control))
        actions += self.arm(.reply(id), after: self.configuration.networkDelay)
        return actions
    }

    mutating func sendConnect(first: Bool = false) -> [Action] {
        guard let clientID = self.session?.clientID else { return [] }
        let id = self.makeID()
        var message = BayeuxMessage(channel: "/meta/connect", id: id, clientID: clientID)
        message.connectionType = self.connectionType.rawValue
        var hold = self.advice.timeout ?? .zero
        if first {
            // Asks for an immediate answer, so the session is known to work at once (CometD's client does
            // the same); servers that ignore it (Faye holds every connect) are covered by the deadline.
            message.advice = BayeuxAdvice(timeout: .zero)
            hold = .zero
        }
        self.modifySession { $0.sent(connect: id) }
        var actions: [Action] = [.send([message], on: .connect)]
        // A server that holds the first connect anyway (Faye does) still answers within its timeout.
        actions += self.arm(.connectDeadline, after: max(hold, self.advice.timeout ?? .zero) + self.configuration.networkDelay)
        return actions
    }

    mutating func sendSubscribe(_ channels: [String]) -> [Action] {
        guard let clientID = self.session?.clientID else { return [] }
        var actions: [Action] = []
        var messages: [BayeuxMessage] = []
        for channel in channels {
            let id = self.makeID()
            var message = BayeuxMessage(channel: "/meta/subscribe", id: id, clientID: clientID)
            message.subscription = [channel]
            self.inFlight[id] = .subscribe(channel)
            messages.append(message)
        }
        actions += self.sendControl(messages)
        return actions
    }

    /// Sends on the control lane, each message with a reply deadline (`networkDelay` unless `deadline`).
    mutating func sendControl(_ messages: [BayeuxMessage], deadline: Duration? = nil) -> [Action] {
        var actions: [Action] = [.send(messages, on: .control)]
        for message in messages {
            if let id = message.id { actions += self.arm(.reply(id), after: deadline ?? self.configuration.networkDelay) }
        }
        return actions
    }

    mutating func retryConnect(now: Duration) -> [Action] {
        guard case .session = self.phase else { return [] }
        if self.serverForgotClient(now: now) {
            return self.rehandshake(after: self.nextBackoff(), because: BayeuxFailure("no connect reached the server within its maxInterval"))
        }
        let delay = max(self.advice.interval ?? .zero, self.nextBackoff())
        return self.arm(.connect, after: delay)
    }

    /// Whether the server has had no connect for longer than it keeps a client.
    func serverForgotClient(now: Duration) -> Bool {
        self.session?.serverForgotClient(now: now, maxInterval: self.advice.maxInterval) ?? false
    }

    mutating func rehandshake(after delay: Duration, because failure: BayeuxFailure) -> [Action] {
        switch self.phase {
        case .handshaking, .waitingToHandshake, .stopped, .idle, .disconnecting:
            return []
        case .session:
            break
        }
        var actions = self.interrupted(failure)
        actions += self.cancel(.connect)
        actions += self.cancel(.connectDeadline)
        actions += self.abandonOutstandingConnect()
        if delay <= .zero { return actions + self.handshake() }
        self.phase = .waitingToHandshake
        return actions + self.arm(.handshake, after: delay)
    }

    mutating func waitToHandshake() -> [Action] {
        self.phase = .waitingToHandshake
        return self.arm(.handshake, after: max(self.advice.interval ?? .zero, self.nextBackoff()))
    }

    /// No wait after the first failure, then growing jittered waits.
    mutating func nextBackoff() -> Duration {
        self.failures += 1
        guard self.failures > 1 else { return .zero }
        return self.configuration.backoff.delay(attempt: self.failures - 2, using: &self.random)
    }

    mutating func adopt(_ advice: BayeuxAdvice?) -> [Action] {
        if let advice { self.advice = self.configuration.defaultAdvice.merging(advice) }
        return []
    }

    mutating func interrupted(_ failure: BayeuxFailure) -> [Action] {
        let wasConnected = self.modifySession { $0.interrupt() } ?? false
        return wasConnected || self.failures == 0 ? [.connectionInterrupted(failure)] : []
    }

    /// Ends the session for good: `failure` is why (nil: the client disconnected), `requests` what every
    /// request still waiting hears (by default the same).
    mutating func stop(_ failure: BayeuxFailure?, requests: BayeuxFailure? = nil) -> [Action] {
        var actions = self.stopTimers()
        actions += self.abandonOutstandingConnect()
        actions += self.failAll(requests ?? failure ?? .disconnected)
        self.phase = .stopped
        return actions + [.stopped(failure)]
    }

    /// The disconnect was answered (or not in time): the session is over, and so is every request still
    /// waiting for an answer on it (a publish sent just before the disconnect would otherwise wait for a
    /// reply the server no longer owes, and its caller with it).
    mutating func finishDisconnect() -> [Action] {
        self.stop(nil, requests: .endedBeforeReply)
    }

    /// Fails the publishes still waiting for a session; those on the wire keep waiting for their replies.
    mutating func failQueued(_ failure: BayeuxFailure) -> [Action] {
        let queued = self.queued.compactMap(\.id)
        self.queued.removeAll()
        return queued.compactMap { id in
            guard case .publish? = self.inFlight.removeValue(forKey: id) else { return nil }
            return .published(id: id, .failure(failure))
        }
    }

    /// Fails every request, sent or not: the session is over.
    mutating func failAll(_ failure: BayeuxFailure) -> [Action] {
        var actions: [Action] = []
        for (id, request) in self.inFlight.sorted(by: { Int($0.key) ?? 0 < Int($1.key) ?? 0 }) {
            if case .publish = request { actions.append(.published(id: id, .failure(failure))) }
        }
        self.inFlight.removeAll()
        self.queued.removeAll()
        return actions
    }

    mutating func stopTimers() -> [Action] {
        self.timers.armedKinds.compactMap { kind in self.timers.disarm(kind).map(Action.cancel) }
    }

    /// Cancels the session's own timers (handshake, connect); request deadlines stay.
    mutating func stopSessionTimers() -> [Action] {
        [.handshake, .connect, .connectDeadline].flatMap { self.cancel($0) }
    }

    mutating func arm(_ kind: TimerKind, after delay: Duration) -> [Action] {
        var actions = self.cancel(kind)
        actions.append(.arm(self.timers.arm(kind), after: delay))
        return actions
    }

    mutating func cancel(_ kind: TimerKind) -> [Action] {
        self.timers.disarm(kind).map { [.cancel($0)] } ?? []
    }
}
