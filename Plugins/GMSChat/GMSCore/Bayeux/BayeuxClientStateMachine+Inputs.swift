package import AttendantPluginKit

// What the driver reports: batches that arrived, requests that failed, timers that fired.
extension BayeuxClientStateMachine {
    /// A batch arrived, from either lane: replies are matched to requests, events are delivered.
    package mutating func received(_ messages: [BayeuxMessage], now: Duration) -> [Action] {
        var actions: [Action] = []
        for message in messages {
            actions += self.receive(message, now: now)
        }
        return actions
    }

    /// The connect's request failed at the transport (connection refused or reset, HTTP error, closed
    /// socket) or was abandoned at its deadline.
    package mutating func connectFailed(_ failure: BayeuxFailure, now: Duration) -> [Action] {
        guard self.endConnect() != nil else { return [] }
        var actions = self.cancel(.connectDeadline)
        actions += self.interrupted(failure)
        return actions + self.retryConnect(now: now)
    }

    /// The request that carried connect `id` ended without the connect's reply (a long-poll answered with
    /// other messages, or with something that is not Bayeux): that connect is over. A connect sent since is
    /// not touched.
    package mutating func connectFailed(id: String, _ failure: BayeuxFailure, now: Duration) -> [Action] {
        guard self.outstandingConnect == id else { return [] }
        return self.connectFailed(failure, now: now)
    }

    /// A control request (handshake, publish, subscribe, disconnect) failed at the transport.
    package mutating func requestFailed(ids: [String], _ failure: BayeuxFailure, now: Duration) -> [Action] {
        var actions: [Action] = []
        for id in ids {
            actions += self.fail(id: id, failure, now: now)
        }
        return actions
    }

    /// The WebSocket closed: everything outstanding on it failed.
    package mutating func transportLost(_ failure: BayeuxFailure, now: Duration) -> [Action] {
        var ids = Array(self.inFlight.keys.filter { id in !self.queued.contains { $0.id == id } }).sorted()
        switch self.phase {
        case .handshaking(let id), .disconnecting(let id): ids.insert(id, at: 0)
        default: break
        }
        var actions = self.requestFailed(ids: ids, failure, now: now)
        actions += self.connectFailed(failure, now: now)
        return actions
    }

    package mutating func timerFired(_ id: TimerID<TimerKind>, now: Duration) -> [Action] {
        guard self.timers.fire(id) else { return [.note("stale timer \(id)")] }
        switch id.kind {
        case .handshake:
            guard case .waitingToHandshake = self.phase else { return [] }
            return self.handshake()
        case .connect:
            guard let session = self.session, session.outstandingConnect == nil else { return [] }
            if self.serverForgotClient(now: now) {
                return self.rehandshake(after: .zero, because: BayeuxFailure("no connect reached the server within its maxInterval"))
            }
            return self.sendConnect()
        case .connectDeadline:
            guard self.outstandingConnect != nil else { return [] }
            return [.abandonConnect] + self.connectFailed(.timedOut, now: now)
        case .reply(let messageID):
            return self.fail(id: messageID, .timedOut, now: now)
        }
    }

    // MARK: Replies and events

    private mutating func receive(_ message: BayeuxMessage, now: Duration) -> [Action] {
        guard message.isReply, let id = message.id else {
            if message.isMeta { return [.note("ignored \(message.channel) without a reply's id and successful")] }
            return [.deliver(message)]
        }
        switch message.channel {
        case "/meta/handshake":
            guard case .handshaking(let pending) = self.phase, pending == id else { return [.note("stale handshake reply \(id)")] }
            return self.handshakeReplied(message, now: now)
        case "/meta/connect":
            guard self.outstandingConnect == id else { return [.note("stale connect reply \(id)")] }
            return self.connectReplied(message, now: now)
        case "/meta/disconnect":
            guard case .disconnecting(let pending) = self.phase, pending == id else { return [.note("stale disconnect reply \(id)")] }
            return self.finishDisconnect()
        default:
            guard let request = self.inFlight.removeValue(forKey: id) else {
                // A reply to nothing of ours; with a `data` field it is an event that kept its publisher's id.
                return message.data != nil ? [.deliver(message)] : [.note("reply \(id) on \(message.channel) matches no request")]
            }
            var actions = self.cancel(.reply(id))
            let failure = BayeuxFailure.refused(Self.describe(request, message.channel), error: message.error)
            switch request {
            case .publish:
                actions.append(.published(id: id, message.successful == true ? .success(message) : .failure(failure)))
            case .subscribe(let channel), .unsubscribe(let channel):
                if message.successful != true { actions.append(.subscriptionFailed(channel: channel, failure)) }
            }
            if message.successful != true, message.advice?.reconnect == .handshake {
                actions += self.adopt(message.advice)
                actions += self.rehandshake(after: self.advice.interval ?? .zero, because: failure)
            }
            return actions
        }
    }

    private mutating func handshakeReplied(_ message: BayeuxMessage, now: Duration) -> [Action] {
        let id = message.id ?? ""
        var actions = self.cancel(.reply(id))
        actions += self.adopt(message.advice)
        guard message.successful == true, let clientID = message.clientID, !clientID.isEmpty else {
            let failure = BayeuxFailure.refused("handshake", error: message.error)
            if self.advice.reconnect == BayeuxAdvice.Reconnect.none { return actions + self.stop(failure) }
            return actions + self.interrupted(failure) + self.waitToHandshake()
        }
        if let offered = message.supportedConnectionTypes, !offered.isEmpty, !offered.contains(self.connectionType.rawValue) {
            guard offered.contains(BayeuxConnectionType.longPolling.rawValue) else {
                return actions + self.stop(.noCommonConnectionType)
            }
            self.connectionType = .longPolling
            actions.append(.useConnectionType(.longPolling))
        }
        self.phase = .session(Session(clientID: clientID, handshakeAt: now))
        self.failures = 0
        actions.append(.handshook(clientID: clientID))
        actions += self.sendConnect(first: true)
        if !self.subscriptions.isEmpty { actions += self.sendSubscribe(self.subscriptions) }
        if !self.queued.isEmpty {
            let waiting = self.queued.map { message in
                var bound = message
                bound.clientID = clientID
                return bound
            }
            self.queued.removeAll()
            actions += self.sendControl(waiting)
        }
        return actions
    }

    private mutating func connectReplied(_ message: BayeuxMessage, now: Duration) -> [Action] {
        _ = self.endConnect()
        var actions = self.cancel(.connectDeadline)
        actions += self.adopt(message.advice)
        guard message.successful == true else {
            let failure = BayeuxFailure.refused("connect", error: message.error)
            switch self.advice.reconnect {
            case .handshake?:
                return actions + self.rehandshake(after: self.advice.interval ?? .zero, because: failure)
            case BayeuxAdvice.Reconnect.none?:
                return actions + self.stop(failure)
            default:
                return actions + self.interrupted(failure) + self.retryConnect(now: now)
            }
        }
        self.failures = 0
        if self.modifySession({ $0.connectSucceeded(now: now) }) == true { actions.append(.connected) }
        switch self.advice.reconnect {
        case .handshake?:
            return actions + self.rehandshake(after: self.advice.interval ?? .zero, because: BayeuxFailure("the server advised a new handshake"))
        case BayeuxAdvice.Reconnect.none?:
            return actions + self.stop(nil)
        default:
            let interval = self.advice.interval ?? .zero
            guard interval >= .zero else { return actions + self.stop(BayeuxFailure("the server advised a negative interval: do not reconnect")) }
            if interval == .zero { return actions + self.sendConnect() }
            return actions + self.arm(.connect, after: interval)
        }
    }

    private mutating func fail(id: String, _ failure: BayeuxFailure, now: Duration) -> [Action] {
        switch self.phase {
        case .handshaking(let pending) where pending == id:
            var actions = self.cancel(.reply(id))
            actions += self.interrupted(failure)
            return actions + self.waitToHandshake()
        case .disconnecting(let pending) where pending == id:
            return self.finishDisconnect()
        default:
            break
        }
        guard let request = self.inFlight.removeValue(forKey: id) else { return [] }
        var actions = self.cancel(.reply(id))
        self.queued.removeAll { $0.id == id }
        switch request {
        case .publish: actions.append(.published(id: id, .failure(failure)))
        case .subscribe(let channel), .unsubscribe(let channel): actions.append(.subscriptionFailed(channel: channel, failure))
        }
        return actions
    }

    private static func describe(_ request: Request, _ channel: String) -> String {
        switch request {
        case .publish: "publish on \(channel)"
        case .subscribe(let name): "subscription to \(name)"
        case .unsubscribe(let name): "unsubscription from \(name)"
        }
    }
}
