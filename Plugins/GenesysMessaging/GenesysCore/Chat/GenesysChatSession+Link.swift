package import AttendantPluginAPI
@_spi(Experimental) package import AttendantPluginKit

// The socket (the driver's link) and the session machine on it: what the link brings, and the machine's
// actions carried out as the chat session's (see GenesysChatSession).
extension GenesysChatSession {
    // MARK: The link

    /// What the link brings as the session's step, for the driver's link handler: a frame is decoded here,
    /// outside the lock.
    package static func step(for event: LinkEvent, now: UnixTime) -> ((inout GenesysChatSession) -> [Action])? {
        switch event {
        case .opened:
            return { $0.linkOpened(now: now) }
        case .message(let bytes):
            let frame = Result { () throws(GenesysWireError) in try GenesysServerFrame(decoding: bytes) }
            return { $0.received(frame, now: now) }
        case .closed(let reason):
            return { $0.linkClosed(reason, now: now) }
        @unknown default:
            return nil
        }
    }

    package mutating func linkOpened(now: UnixTime) -> [Action] {
        self.connected = true
        return self.machineStep(now: now) { $0.socketOpened(now: Self.instant(now)) }
    }

    package mutating func linkClosed(_ reason: String, now: UnixTime) -> [Action] {
        self.connected = false
        self.lastError = "the socket closed: \(reason)"
        let log = Action.log(.notice, "\(self.prefix): the socket to \(self.server) closed: \(reason); reconnecting")
        return [log] + self.catchUpEnded("the socket closed", now: now) + self.failSends("the socket closed before the service answered")
            + self.machineStep(now: now) { $0.socketFailed(now: Self.instant(now)) }
    }

    /// A frame, decoded outside the lock: a message is shown (once), an answer ends its caller's wait, and
    /// the machine takes it.
    package mutating func received(_ decoded: Result<GenesysServerFrame, GenesysWireError>, now: UnixTime) -> [Action] {
        let frame: GenesysServerFrame
        switch decoded {
        case .success(let decodedFrame):
            frame = decodedFrame
        case .failure(let error):
            // SDK `WebMessagingJson.decodeFromString` failing: the frame is logged and dropped. The error
            // names the field, never its value.
            self.framesRejected += 1
            return [.log(.warning, "\(self.prefix): ignored a frame from \(self.server): \(error)")]
        }
        var actions: [Action] = []
        switch frame.body {
        case .structuredMessage(let message) where frame.isHealthCheckReply:
            // SDK `MessagingClientImpl.handleHealthCheck`: the echo's answer says when the session expires.
            actions += self.expires(
                at: message.metadata["expirationDate"].flatMap { Int($0) },
                duration: message.metadata["durationSeconds"].flatMap { Int($0) },
                now: now
            )
        case .structuredMessage(let message):
            actions += self.answered(tracingId: frame.tracingId, by: message)
            if message.kind != .event { actions += self.activity(now: now) }
            if self.catchUp != nil {
                // Shown after what the history brings, so that the conversation keeps its order.
                self.catchUp?.held.append(message)
            } else {
                actions += self.show(message, now: now)
            }
        case .jwt(let jwt, let expires):
            actions += self.jwtArrived(jwt, expires: expires, now: now)
        case .presignedURL(let answer):
            actions += self.presigned(answer)
        case .uploadSuccess(let attachmentId, _, _):
            actions += self.uploadSucceeded(attachmentId, now: now)
        case .uploadFailure(let failure), .generateURLError(let failure):
            actions += self.uploadFailed(failure.attachmentId, "\(failure.errorCode): \(failure.errorMessage)")
        case .error(let code, let text):
            actions += self.refreshRefused(code, text, tracingId: frame.tracingId) ?? self.refused(code, text, tracingId: frame.tracingId)
            if let asked = self.catchUp?.asked, asked == frame.tracingId {
                actions += self.catchUpEnded("getJwt was refused: \(code)", now: now)
            }
        case .tooManyRequests(let retryAfter, let code, let text):
            actions += self.refused(code, "\(text); retry after \(retryAfter) s", tracingId: frame.tracingId)
        default:
            break
        }
        return actions + self.machineStep(now: now) { $0.received(frame, now: Self.instant(now)) }
    }

    // MARK: The machine

    /// Runs a step of the session machine and turns what it answers into the session's actions.
    mutating func machineStep(now: UnixTime, _ body: (inout GenesysSessionStateMachine) -> [GenesysSessionStateMachine.Action]) -> [Action] {
        self.carryOut(body(&self.machine), now: now)
    }

    /// The session's actions for what the machine answered.
    mutating func carryOut(_ steps: [GenesysSessionStateMachine.Action], now: UnixTime) -> [Action] {
        var actions: [Action] = []
        for action in steps {
            switch action {
            case .openSocket:
                actions.append(.openLink(self.settings.socketRequest))
            case .closeSocket:
                self.connected = false
                actions.append(.closeLink)
            case .send(let request):
                actions.append(.writeLink(request.encoded()))
            case .setTimer(let timer, let delay):
                actions.append(.setTimer(.machine(timer), after: delay))
            case .cancelTimer(let timer):
                actions.append(.cancelTimer(.machine(timer)))
            case .configured(let session):
                actions += self.configured(session, now: now)
            case .readOnly:
                actions += self.becameReadOnly()
            case .failed(let failure):
                actions += self.retryWithFreshJWT(failure, now: now) ?? (self.dropCredentials(after: failure, now: now) + self.failed(failure))
            case .refused(let reason):
                actions.append(.log(.info, "\(self.prefix): \(reason)"))
            }
        }
        return actions
    }

    /// The session is configured: `listen()` is over, and a new conversation (the first, a new chat after
    /// read-only, or a new session the service made) gets a thread of its own.
    mutating func configured(_ session: GenesysSessionResponse, now: UnixTime) -> [Action] {
        self.lastError = nil
        self.auth?.refusals = 0
        var actions: [Action] = [
            .log(.info, "\(self.prefix): the session with \(self.server) is configured\(session.newSession ? " (a new session)" : "")")
        ]
        if self.threadID == nil || self.threadID == self.readOnlyThread || session.newSession {
            let threadID = self.settings.makeThreadID()
            self.threadID = threadID
            self.readOnlyThread = nil
            self.recent = []
            actions += [
                Self.store(threadID, key: StoreKey.thread), Self.store(nil, key: StoreKey.readOnly),
                .emit(.threadUpdated(self.thread(threadID, .ready))),
            ]
        }
        actions.append(.emit(.chatStateChanged(.ready)))
        // A session configured again (a reconnect, the foreground, a restart): what came meanwhile is in the
        // history (SDK `MessagingClient.fetchNextPage` after a reconnect).
        if !session.newSession { actions += self.startCatchUp(now: now) }
        actions += self.expires(at: session.expirationDate, duration: session.durationSeconds, now: now)
        let thread = self.bareThread.map(ChannelReply.thread) ?? .done
        let (listeners, newChats) = (self.listenWaiting, self.newChatWaiting)
        (self.listenWaiting, self.newChatWaiting) = ([], [])
        return actions + self.reply(to: listeners, .success(.done)) + self.reply(to: newChats, .success(thread))
    }

    /// The conversation was disconnected (ConversationDisconnect with `readOnly`, or a SessionResponse
    /// that says so): its thread and contact are over; nothing is sent until a new chat.
    mutating func becameReadOnly() -> [Action] {
        var actions: [Action] = []
        if let threadID = self.threadID, self.readOnlyThread != threadID {
            self.readOnlyThread = threadID
            actions += [
                Self.store(threadID, key: StoreKey.readOnly),
                .emit(.threadUpdated(self.thread(threadID, .closed))),
                .log(.info, "\(self.prefix): the conversation with \(self.server) was disconnected; it is read-only until a new chat"),
            ]
            if self.contactThread == threadID { actions.append(.emit(.contactEnded(contactID: threadID, outcome: .completed))) }
        }
        actions.append(.emit(.chatStateChanged(.closed)))
        let listeners = self.listenWaiting
        self.listenWaiting = []
        return actions + self.reply(to: listeners, .success(.done)) + self.failSends("\(self.prefix): \(Self.readOnlyReason)", code: .illegalState)
    }

    static let readOnlyReason =
        "the conversation was disconnected and is read-only; start a new chat (attendantctl chat create) to write again"

    /// The session ended (expired, unknown, closed elsewhere, refused, or the socket never came back).
    mutating func failed(_ failure: GenesysSessionFailure) -> [Action] {
        self.connected = false
        self.lastError = failure.description
        // Signed out: the host is asked for a new sign-in (SDK `Event.Logout`: the app authorizes again).
        let code: ChannelError.Code = failure == .loggedOut ? .authentication : .transient
        let error = ChannelError(code, "\(self.prefix): the session with \(self.server) ended: \(failure)")
        var actions: [Action] = [.log(.warning, error.message), .cancelTimer(.expiryEcho), .cancelTimer(.expiryNotice)]
        actions += self.failListen(error) + self.failSends(error.message)
        actions += self.reply(to: self.newChatWaiting, .failure(error))
        self.newChatWaiting = []
        actions += self.reply(to: self.uploads.values.map(\.caller).sorted() + self.refreshes.map(\.id), .failure(error))
        self.uploads = [:]
        self.refreshes = []
        if self.listening, !self.asleep {
            self.listening = false
            actions.append(.emit(.stoppedListening(error)))
        }
        return actions
    }
}
