package import AttendantPluginAPI
import AttendantPluginKit

// What the host and the person ask of the session: listening, sleeping, the keep-alive, and the chat's
// requests (``GenesysChatCommand``).
extension GenesysChatSession {
    // MARK: The channel's life

    /// `listen()`: the deployment's configuration first (once), then the socket; request `id` waits for a
    /// configured (or read-only) session, for at most `timeout`.
    package mutating func listen(_ id: UInt64, timeout: Duration, now: UnixTime) -> [Action] {
        self.listening = true
        if self.isConfigured || self.isReadOnly { return [.replied(id, .success(.done))] }
        self.listenWaiting.append(id)
        var actions: [Action] = [.setTimer(.request(id), after: timeout)]
        if self.asleep { return actions }
        if self.deployment == nil {
            guard !self.fetchingDeployment else { return actions }
            self.fetchingDeployment = true
            actions.append(.work(.fetchDeployment))
            return actions
        }
        return actions + self.connect(now: now)
    }

    /// The host stops the channel: the socket closes, nothing is retried.
    package mutating func stopListening(now: UnixTime) -> [Action] {
        self.listening = false
        self.connected = false
        return [.cancelTimer(.expiryEcho), .cancelTimer(.expiryNotice)] + self.machineStep(now: now) { $0.stop() }
    }

    /// The keep-alive: an `echo` (at most one per 30 s, the machine defers one asked for sooner); nil when
    /// the channel listens no more (the session failed) and the host must listen again.
    package mutating func keepAlive(now: UnixTime) -> [Action]? {
        guard self.listening else { return nil }
        if self.asleep { return [] }
        switch self.machine.state {
        case .failed, .idle: return nil
        default: return self.machineStep(now: now) { $0.keepAlive(now: Self.instant(now)) }
        }
    }

    /// The host goes to the background (suspend, lock): the socket closes (the service keeps the session
    /// and its conversation), as GMSChat says goodbye before the machine sleeps.
    package mutating func goToBackground(now: UnixTime) -> [Action] {
        guard self.listening, !self.asleep else { return [] }
        self.asleep = true
        self.connected = false
        let going = Action.log(.info, "\(self.prefix): going to the background: closing the socket to \(self.server)")
        return [going, .cancelTimer(.expiryEcho), .cancelTimer(.expiryNotice)] + self.catchUpEnded("the socket closed for the background", now: now)
            + self.failSends("the socket closed for the background")
            + self.machineStep(now: now) { $0.stop() }
    }

    /// Back in the foreground: the socket opens again and the session is configured again with its token.
    package mutating func comeToForeground(now: UnixTime) -> [Action] {
        guard self.asleep else { return [] }
        self.asleep = false
        guard self.listening else { return [] }
        let back = Action.log(.info, "\(self.prefix): back in the foreground: configuring the session with \(self.server) again")
        if self.deployment == nil {
            guard !self.fetchingDeployment else { return [back] }
            self.fetchingDeployment = true
            return [back, .work(.fetchDeployment)]
        }
        return [back] + self.connect(now: now)
    }

    // MARK: The chat's requests

    /// A message of ours: request `id` hears once the service's copy of it came back (with the request's
    /// tracing id), or why it was refused.
    package mutating func send(_ message: GenesysOutgoingMessage, _ id: UInt64, now: UnixTime) throws(ChannelError) -> [Action] {
        let (actions, tracingIds) = try self.machineRequest(now: now) { $0.send(message, now: Self.instant(now)) }
        // The service's copy of the message comes back with the request's tracing id.
        self.sendWaiting += tracingIds.map { ($0, id) }
        return actions + [.setTimer(.request(id), after: self.settings.requestTimeout)]
    }

    /// Our typing notice: at most one per 5 s, and only when the deployment shows it to the agent (the
    /// machine decides); answered at once.
    package mutating func typing(started: Bool, now: UnixTime) throws(ChannelError) -> [Action] {
        // The SDK has no "stopped typing": the agent's indicator times out by itself.
        guard started else { return [] }
        return try self.machineRequest(now: now) { $0.typing(now: Self.instant(now)) }.actions
    }

    /// Answers a message's choice `choiceID`: a quick reply with its `ButtonResponse` in a Text message,
    /// a card's postback in a Structured one (SDK `MessagingClient.sendQuickReply`, `sendCardReply`).
    package mutating func choose(messageID: String, choiceID: String, _ id: UInt64, now: UnixTime) throws(ChannelError) -> [Action] {
        guard let offer = self.offers[messageID] else {
            throw ChannelError(
                .invalidArgument,
                "\(self.prefix): message \(messageID) offers no choices (or is no longer among the latest \(Self.recentLimit))"
            )
        }
        guard let answer = offer.answers[choiceID] else {
            let known = offer.answers.keys.sorted { $0.count == $1.count ? $0 < $1 : $0.count < $1.count }.joined(separator: ", ")
            throw ChannelError(.invalidArgument, "\(self.prefix): message \(messageID) has no choice \(choiceID); its choices are \(known)")
        }
        switch answer {
        case .quickReply(let response):
            return try self.send(.quickReply(response), id, now: now)
        case .postback(let response):
            return try self.send(.cardReply(response), id, now: now)
        case .link(let url):
            throw ChannelError(.invalidArgument, "\(self.prefix): choice \(choiceID) of message \(messageID) opens \(url); it sends nothing")
        }
    }

    /// A new chat after the conversation went read-only (SDK `MessagingClient.startNewChat`): `closeSession`,
    /// then `configureSession` with `startNew`; request `id` hears the new thread.
    package mutating func startNewChat(_ id: UInt64, now: UnixTime) throws(ChannelError) -> [Action] {
        guard self.isReadOnly else {
            if self.isConfigured, let thread = self.bareThread {
                throw ChannelError(
                    .illegalState,
                    "\(self.prefix): the conversation in thread \(thread.id) is open; web messaging starts a new chat only after the agent disconnected it"
                )
            }
            throw ChannelError(
                .illegalState,
                "\(self.prefix): the session with \(self.server) is not configured yet\(self.lastError.map { " (\($0))" } ?? "")"
            )
        }
        let actions = try self.machineRequest(now: now) { $0.startNewChat() }.actions
        self.newChatWaiting.append(id)
        return actions + [.setTimer(.request(id), after: self.settings.requestTimeout)] + [.log(.info, "\(self.prefix): starting a new chat")]
    }

    /// `end-conversation`: the customer cannot end a web messaging conversation (the SDK has no such request;
    /// the agent or the flow disconnects it), so only a conversation already disconnected is over.
    package func endConversation() throws(ChannelError) -> ChannelReply {
        guard self.isReadOnly else {
            throw ChannelError(
                .unsupported,
                "\(self.prefix): web messaging has no request to end the conversation; the agent ends it (ConversationDisconnect)"
            )
        }
        return .done
    }

    /// The conversation's thread with its latest messages.
    package func openThread(_ threadID: String?) throws(ChannelError) -> ChannelReply {
        guard let current = self.bareThread else { throw ChannelError(.illegalState, "\(self.prefix): there is no conversation yet") }
        if let threadID, threadID != current.id {
            throw ChannelError(.invalidArgument, "\(self.prefix): no thread \(threadID); the conversation's thread is \(current.id)")
        }
        return .thread(self.thread(current.id, current.state, messages: Array(self.recent.suffix(20))))
    }

    /// The conversation's thread, if there is one, with its latest messages (whose choices `chat choose`
    /// reads labels from).
    package var threads: [ChatThread] {
        guard let thread = self.bareThread else { return [] }
        return [self.thread(thread.id, thread.state, messages: Array(self.recent.suffix(20)))]
    }

    // MARK: Helpers

    /// A step of the machine for a caller: its refusal (``GenesysSessionStateMachine/Action/refused(_:)``)
    /// is thrown, and the tracing ids of the requests it wrote are returned with its actions.
    mutating func machineRequest(
        now: UnixTime,
        _ body: (inout GenesysSessionStateMachine) -> [GenesysSessionStateMachine.Action]
    ) throws(ChannelError) -> (actions: [Action], tracingIds: [String]) {
        let steps = body(&self.machine)
        var tracingIds: [String] = []
        for step in steps {
            switch step {
            case .refused(let reason):
                throw ChannelError(.illegalState, "\(self.prefix): \(self.isReadOnly ? Self.readOnlyReason : reason)")
            case .send(let request):
                if let tracingId = request.tracingId { tracingIds.append(tracingId) }
            default:
                break
            }
        }
        return (self.carryOut(steps, now: now), tracingIds)
    }
}
