package import AttendantPluginAPI
import AttendantPluginKit

// The "open chat" diagram (availability, WebSocket, OAuth) and the connection's reliability: heartbeat,
// pong timeout, reconnect with backoff.
extension ChatStateMachine {
    /// `connect()`: a live chat that is offline goes to `offline`; otherwise the WebSocket opens, the
    /// customer is reconnected with the stored access token or authorized (with the OAuth code and
    /// verifier), and the chat is `connected`, then `ready` once its threads are loaded. Illegal in
    /// `initial` and `preparing`; ignored while connecting or connected, except while waiting out the
    /// backoff after a lost socket: then the socket opens again at once. The host asks only after a
    /// resume, a network change or its own wait (the keep-alive, `listen()`), or the user does
    /// (`chat connect`), and DESIGN.md retries at once then; the CXone SDK's backoff
    /// (`min(1.3^n + rand(0..1), 30)` s) paces the reconnects the machine makes on its own.
    package mutating func connect() throws(ChatError) -> [Action] {
        switch self.connection {
        case .unprepared, .preparing:
            throw .illegalState("connect", self.state, expected: "prepare the chat first")
        case .prepared, .offline, .asleep:
            guard let configuration = self.channelConfiguration else { return [] }
            let offline = self.connection == .offline
            if self.connection == .asleep { self.connection = .prepared }
            if configuration.isLiveChat, let brandID = self.brandID, let channelID = self.channelID {
                self.connection = .checkingAvailability(offline: offline)
                return [.fetchAvailability(brandID: brandID, channelID: channelID)]
            }
            return self.startConnecting()
        case .waitingToReconnect(let recovery):
            return self.disarm(.reconnect) + self.openSocket(recovery: recovery)
        case .checkingAvailability, .authenticating, .opening, .connected:
            return []
        }
    }

    mutating func startConnecting() -> [Action] {
        self.openSocket(recovery: nil)
    }

    /// Opens the socket, the first time since connect() (`recovery` nil) or again after a loss; with
    /// secured sessions once there is a transaction token (ChatStateMachine+Secured).
    mutating func openSocket(recovery: ChatConnection.Recovery?) -> [Action] {
        guard let brandID = self.brandID, let channelID = self.channelID, let visitorID = self.persisted.visitorID else { return [] }
        if self.usesSecuredSessions {
            guard let token = self.transactionToken else { return self.fetchTransactionToken(recovery: recovery) }
            return self.enter(.opening(recovery))
                + [.openSocket(brandID: brandID, channelID: channelID, visitorID: visitorID, transactionToken: token.value)]
        }
        return self.enter(.opening(recovery)) + [.openSocket(brandID: brandID, channelID: channelID, visitorID: visitorID)]
    }

    mutating func availabilityFetched(online: Bool) -> [Action] {
        guard case .checkingAvailability(let offline) = self.connection else { return [] }
        self.connection = offline ? .offline : .prepared
        return online ? self.startConnecting() : self.enter(.offline)
    }

    mutating func availabilityFailed(_ error: ChatError) -> [Action] {
        guard case .checkingAvailability(let offline) = self.connection else { return [] }
        self.connection = offline ? .offline : .prepared
        return [.report(.error(error))]
    }

    // MARK: Socket and authorization

    mutating func socketOpened() -> [Action] {
        guard case .opening(let recovery) = self.connection else { return [] }
        if self.usesSecuredSessions {
            // The transaction token authorized the customer: no AuthorizeCustomer or ReconnectCustomer,
            // straight to the threads (the SDK's `ConnectionService.checkForAuthorization`).
            self.connection = .connected(ChatConnection.Connected(phase: .authorizing(withToken: true), recovery: recovery))
            return self.arm(.heartbeat, after: self.configuration.heartbeatInterval) + self.loadThreads()
        }
        let phase = ChatConnection.Phase.authorizing(withToken: self.persisted.accessToken != nil)
        self.connection = .connected(ChatConnection.Connected(phase: phase, recovery: recovery))
        var actions = self.arm(.heartbeat, after: self.configuration.heartbeatInterval)
        actions += self.authorize()
        return actions
    }

    /// ReconnectCustomer with the stored token, else AuthorizeCustomer.
    mutating func authorize() -> [Action] {
        let command: Command
        if let token = self.persisted.accessToken {
            command = .reconnectCustomer(token: token.value)
        } else {
            command = .authorizeCustomer(code: self.configuration.authorizationCode, verifier: self.configuration.codeVerifier)
        }
        let phase = ChatConnection.Phase.authorizing(withToken: self.persisted.accessToken != nil)
        self.connection.modifyConnected { $0.phase = phase }
        return [.send(command)] + self.arm(.response, after: self.configuration.responseTimeout)
    }

    var isAuthorizing: Bool {
        if case .authorizing = self.connection.connected?.phase { return true }
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
        return actions + self.loadThreads()
    }

    mutating func customerReconnected() -> [Action] {
        guard self.isAuthorizing else { return [] }
        return self.disarm(.response) + self.loadThreads()
    }

    /// The customer's access token, kept in the secrets (OAuth channels have one).
    package var accessToken: ChannelToken? { self.persisted.accessToken }

    /// RefreshToken with the current token (nil without one, or off the socket).
    package mutating func refreshToken() -> [Action] {
        guard let token = self.persisted.accessToken, self.connection.connected != nil, !self.isAuthorizing else { return [] }
        return [.send(.refreshToken(token: token.value))]
    }

    /// TokenRefreshed: the new token replaces the old one, here and in the secrets.
    mutating func tokenRefreshed(_ token: ChannelToken) -> [Action] {
        guard self.persisted.accessToken != nil else { return [] }
        self.persisted.accessToken = token
        return [.store(.accessToken(token))]
    }

    /// The stored token was refused: forget it and authorize afresh.
    mutating func reauthorize() -> [Action] {
        self.persisted.accessToken = nil
        return [.store(.accessToken(nil))] + self.authorize()
    }

    mutating func socketClosed(reason: String) -> [Action] {
        guard self.connection.hasSocket else { return [] }
        return self.connectionLost(reason: reason)
    }

    // MARK: Heartbeat

    mutating func heartbeatDue() -> [Action] {
        guard self.connection.modifyConnected({ $0.heartbeat = .awaitingPong }) != nil else { return [] }
        return [.send(.heartbeat)] + self.arm(.pongTimeout, after: self.configuration.pongTimeout)
    }

    /// The keep-alive's check of a ready socket (after a network change, say): the heartbeat goes out now
    /// rather than at its time, so a socket the change broke is found within the pong timeout. While a
    /// heartbeat is out, its pong answers the check. Nothing without an open socket.
    package mutating func checkConnection() -> [Action] {
        guard self.connection.connected?.heartbeat == .scheduled else { return [] }
        return self.disarm(.heartbeat) + self.heartbeatDue()
    }

    /// A heartbeat is out and its pong has not come.
    package var awaitsPong: Bool { self.connection.connected?.heartbeat == .awaitingPong }

    /// A frame arrived on the socket while a heartbeat's pong is awaited. The socket is alive, and the
    /// pong waits behind what is arriving (on a slow, lossy link, the recoveries of hundreds of threads),
    /// so the pong timeout starts again. A socket that brings nothing for a whole timeout is still found
    /// dead. Without this, the fault campaign's chat with 300 threads lost its socket to missed pongs
    /// while loading them, four times in a row, and never got ready.
    package mutating func frameArrived() -> [Action] {
        guard self.awaitsPong else { return [] }
        return self.arm(.pongTimeout, after: self.configuration.pongTimeout)
    }

    mutating func pong() -> [Action] {
        guard self.awaitsPong else { return [] }
        self.connection.modifyConnected { $0.heartbeat = .scheduled }
        return self.disarm(.pongTimeout) + self.arm(.heartbeat, after: self.configuration.heartbeatInterval)
    }

    mutating func pongMissed() -> [Action] {
        guard self.isSocketOpen else { return [] }
        return [.closeSocket] + self.connectionLost(reason: "no pong within \(Self.seconds(self.configuration.pongTimeout))")
    }

    // MARK: Reconnecting

    /// The socket is gone (closed by the server, or by the machine for a missed pong or answer): try
    /// again after the backoff, or give up after the last attempt. A socket that never opened since
    /// connect() means the gateway cannot be reached: no reconnect loop.
    mutating func connectionLost(reason: String) -> [Action] {
        let before = self.state
        // An open socket that was lost is gone; one still opening is closed.
        let wasOpen = self.isSocketOpen
        var actions = self.disarm(.heartbeat) + self.disarm(.pongTimeout) + self.disarm(.response)
        switch self.connection.lose(reason: reason, maximumAttempts: self.configuration.maximumReconnectAttempts) {
        case .unreachable:
            return actions
                + self.failConnection(
                    ChatError(.connection, "could not connect to the chat gateway: \(reason); check the network and the gateway address")
                )
        case .gaveUp:
            let tries = self.configuration.maximumReconnectAttempts
            return actions
                + self.failConnection(
                    ChatError(
                        .connection,
                        "lost the connection to the chat gateway (\(reason)) and could not reconnect in \(tries) tries; connect again later"
                    ),
                    socketGone: wasOpen
                )
        case .reconnect(let recovery):
            actions += self.arm(.reconnect, after: self.backoff(attempt: recovery.attempt))
            return actions + self.reportState(since: before)
        }
    }

    /// `5 s`, `0.5 s`: a duration for messages.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }

    /// `min(1.3^n + rand(0..1), 30)` seconds.
    mutating func backoff(attempt: Int) -> Duration {
        ChatConnection.backoff(attempt: attempt, maximum: self.configuration.maximumBackoff, unit: self.random.unit())
    }

    mutating func reconnectDue() -> [Action] {
        guard case .waitingToReconnect(let recovery) = self.connection else { return [] }
        return self.openSocket(recovery: recovery)
    }

    /// Gives up on the connection: back to `prepared`, with the error reported.
    mutating func failConnection(_ error: ChatError, socketGone: Bool = false) -> [Action] {
        self.tearDownConnection(socketGone: socketGone) + self.enter(.prepared) + [.report(.error(error))]
    }

    /// Closes the socket if there is one (and it is not `socketGone` already) and stops the connection's
    /// timers; the caller enters the state that follows.
    mutating func tearDownConnection(socketGone: Bool = false) -> [Action] {
        var actions: [Action] = self.connection.hasSocket && !socketGone ? [.closeSocket] : []
        for timer in [Timer.heartbeat, .pongTimeout, .reconnect, .response] { actions += self.disarm(timer) }
        return actions
    }
}
