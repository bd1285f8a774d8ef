import AttendantPluginAPI
import AttendantPluginKit

// The "open chat" diagram (availability, WebSocket, OAuth) and the connection's reliability: heartbeat,
// pong timeout, reconnect with backoff.
extension ChatStateMachine {
    /// `connect()`: a live chat that is offline goes to `offline`; otherwise the WebSocket opens, the
    /// customer is reconnected with the stored access token or authorized (with the OAuth code and
    /// verifier), and the chat is `connected`, then `ready` once its threads are loaded. Illegal in
    /// `initial` and `preparing`; ignored while connecting or connected.
    package mutating func connect() throws(ChatError) -> [Action] {
        switch self.state {
        case .initial, .preparing:
            throw .illegalState("connect", self.state, expected: "prepare the chat first")
        case .prepared, .offline:
            guard self.step != .availability, let configuration = self.channelConfiguration else { return [] }
            self.resumeOnForeground = false
            if configuration.isLiveChat, let brandID = self.brandID, let channelID = self.channelID {
                self.step = .availability
                return [.fetchAvailability(brandID: brandID, channelID: channelID)]
            }
            return self.startConnecting()
        default:
            return []
        }
    }

    mutating func startConnecting() -> [Action] {
        guard let brandID = self.brandID, let channelID = self.channelID, let visitorID = self.persisted.visitorID else { return [] }
        self.step = .socket
        self.sessionEstablished = false
        self.recovering = false
        self.reconnectAttempt = 0
        return self.enter(.connecting) + [.openSocket(brandID: brandID, channelID: channelID, visitorID: visitorID)]
    }

    mutating func availabilityFetched(online: Bool) -> [Action] {
        guard self.step == .availability else { return [] }
        self.step = .idle
        return online ? self.startConnecting() : self.enter(.offline)
    }

    mutating func availabilityFailed(_ error: ChatError) -> [Action] {
        guard self.step == .availability else { return [] }
        self.step = .idle
        return [.report(.error(error))]
    }

    // MARK: Socket and authorization

    mutating func socketOpened() -> [Action] {
        guard self.step == .socket else { return [] }
        self.socketOpen = true
        self.sessionEstablished = true
        self.sentOnConnection = ChatOutbox.Sent()
        var actions = self.arm(.heartbeat, after: self.configuration.heartbeatInterval)
        actions += self.authorize()
        return actions
    }

    /// ReconnectCustomer with the stored token, else AuthorizeCustomer.
    mutating func authorize() -> [Action] {
        let command: Command
        if let token = self.persisted.accessToken {
            command = .reconnectCustomer(token: token.value)
            self.step = .authorization(withToken: true)
        } else {
            command = .authorizeCustomer(code: self.configuration.authorizationCode, verifier: self.configuration.codeVerifier)
            self.step = .authorization(withToken: false)
        }
        return [.send(command)] + self.arm(.response, after: self.configuration.responseTimeout)
    }

    var isAuthorizing: Bool {
        if case .authorization = self.step { return true }
        return false
    }

    mutating func authorized(_ identity: CustomerIdentity, accessToken: ChannelToken?) -> [Action] {
        guard self.isAuthorizing else { return [] }
        var actions = self.disarm(.response)
        if identity.id != self.persisted.customerID {
            self.persisted.customerID = identity.id
            actions.append(.store(.customerID(identity.id)))
        }
        if let accessToken {
            self.persisted.accessToken = accessToken
            actions.append(.store(.accessToken(accessToken)))
        }
        return actions + self.enter(.connected) + self.loadThreads()
    }

    mutating func customerReconnected() -> [Action] {
        guard self.isAuthorizing else { return [] }
        return self.disarm(.response) + self.enter(.connected) + self.loadThreads()
    }

    /// The stored token was refused: forget it and authorize afresh.
    mutating func reauthorize() -> [Action] {
        self.persisted.accessToken = nil
        return [.store(.accessToken(nil))] + self.authorize()
    }

    mutating func socketClosed(reason: String) -> [Action] {
        guard self.socketOpen || self.step == .socket else { return [] }
        self.socketOpen = false
        guard self.sessionEstablished else {
            return self.failConnection(
                ChatError(.connection, "could not connect to the chat gateway: \(reason); check the network and the gateway address")
            )
        }
        return self.connectionLost(reason: reason)
    }

    // MARK: Heartbeat

    mutating func heartbeatDue() -> [Action] {
        guard self.socketOpen else { return [] }
        return [.send(.heartbeat)] + self.arm(.pongTimeout, after: self.configuration.pongTimeout)
    }

    mutating func pong() -> [Action] {
        guard self.socketOpen, self.timers.isArmed(.pongTimeout) else { return [] }
        return self.disarm(.pongTimeout) + self.arm(.heartbeat, after: self.configuration.heartbeatInterval)
    }

    mutating func pongMissed() -> [Action] {
        guard self.socketOpen else { return [] }
        self.socketOpen = false
        return [.closeSocket] + self.connectionLost(reason: "no pong within \(Self.seconds(self.configuration.pongTimeout))")
    }

    // MARK: Reconnecting

    /// The socket is gone (closed by the server, or by the machine for a missed pong): try again after the
    /// backoff, or give up after the last attempt.
    mutating func connectionLost(reason: String) -> [Action] {
        self.lastLossReason = reason
        var actions = self.disarm(.heartbeat) + self.disarm(.pongTimeout) + self.disarm(.response)
        self.reconnectAttempt += 1
        guard self.reconnectAttempt <= self.configuration.maximumReconnectAttempts else {
            let tries = self.configuration.maximumReconnectAttempts
            return actions
                + self.failConnection(
                    ChatError(
                        .connection,
                        "lost the connection to the chat gateway (\(reason)) and could not reconnect in \(tries) tries; connect again later"
                    )
                )
        }
        self.step = .backoff
        self.recovering = true
        actions += self.arm(.reconnect, after: self.backoff(attempt: self.reconnectAttempt))
        return actions + self.enter(.connecting)
    }

    /// `5 s`, `0.5 s`: a duration for messages.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }

    /// `min(1.3^n + rand(0..1), 30)` seconds.
    mutating func backoff(attempt: Int) -> Duration {
        var growth = 1.0
        for _ in 0..<min(attempt, 64) { growth *= 1.3 }
        let maximum = Double(self.configuration.maximumBackoff.components.seconds)
        let seconds = min(growth + self.random.unit(), maximum)
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    mutating func reconnectDue() -> [Action] {
        guard self.step == .backoff, let brandID = self.brandID, let channelID = self.channelID, let visitorID = self.persisted.visitorID else {
            return []
        }
        self.step = .socket
        return [.openSocket(brandID: brandID, channelID: channelID, visitorID: visitorID)]
    }

    /// Gives up on the connection: back to `prepared`, with the error reported.
    mutating func failConnection(_ error: ChatError) -> [Action] {
        self.tearDownConnection() + self.enter(.prepared) + [.report(.error(error))]
    }

    /// Closes the socket if open and forgets the connection's timers and flow.
    mutating func tearDownConnection() -> [Action] {
        var actions: [Action] = (self.socketOpen || self.step == .socket) ? [.closeSocket] : []
        for timer in [Timer.heartbeat, .pongTimeout, .reconnect, .response] { actions += self.disarm(timer) }
        self.socketOpen = false
        self.sessionEstablished = false
        self.recovering = false
        self.reconnectAttempt = 0
        self.step = .idle
        return actions
    }
}
