import AttendantPluginAPI
import AttendantPluginKit
import CXoneCore
import Synchronization

// The channel's life under the supervisor and the user's chat operations.
extension CXoneChatChannel {
    // MARK: Channel

    /// Prepares and connects the chat (unless `auto-connect` is off) and returns once it is ready: the
    /// customer is authorized, the threads are loaded and the outbox has gone out.
    func listen() async throws {
        try await self.loadIfNeeded()
        await self.useAuthorizationCode(await self.host.currentToken())
        self.state.withLock { $0.background = false }
        guard self.configuration.autoConnect else {
            self.state.withLock { $0.listening = true }
            return
        }
        do {
            // Prepared once: an offline live chat's retries only connect (availability again), so the
            // visitor and the page view go out once per visit, as the SDK sends them.
            let (phase, viewing) = self.state.withLock { ($0.machine?.state ?? .initial, $0.machine?.isViewingPage ?? false) }
            if phase == .initial {
                _ = try await self.prepare()
            }
            if !viewing, let title = self.configuration.pageTitle, let url = self.configuration.pageURL {
                let now = self.host.now()
                try? self.step { machine, _ throws(ChatError) in try machine.viewPage(title: title, url: url, at: now) }
            }
            _ = try await self.connect()
        } catch let error as ChannelError where error.code != .configuration && error.code != .authentication {
            // The server's refusals and a chat in the wrong state are worth another try later.
            throw ChannelError(.transient, error.message)
        }
        self.state.withLock { state in
            state.listening = true
            state.lastError = nil
        }
    }

    func stopListening() async {
        self.feed { machine, state in
            state.listening = false
            return machine.disconnect()
        }
        self.timers.cancelAll()
        self.waiters.removeAll(throwing: ChannelError(.transient, "\(self.prefix): the channel is stopping")).resume()
        await self.drain()
    }

    /// The machine's heartbeat checks the connection every 10 s; the keep-alive reports whether the chat
    /// is still ready.
    func keepAlive() async throws {
        let (phase, background) = self.state.withLock { ($0.machine?.state ?? .initial, $0.background) }
        guard !background, self.configuration.autoConnect else { return }
        guard phase == .ready || phase == .closed else {
            throw ChannelError(.transient, "\(self.prefix): the chat with \(self.configuration.gatewayDescription) is \(phase), not ready")
        }
    }

    /// With OAuth the channel's token is the authorization code for AuthorizeCustomer.
    func tokenDidChange(_ token: ChannelToken) async {
        await self.useAuthorizationCode(token)
    }

    func useAuthorizationCode(_ token: ChannelToken?) async {
        let verifier = self.configuration.codeVerifier
        self.state.withLock { $0.machine?.setAuthorization(code: token?.value, verifier: verifier) }
    }

    /// Background: the page view ends and the connection closes; foreground: it connects again at once.
    func applicationStateDidChange(_ applicationState: ApplicationState) async {
        let now = self.host.now()
        self.feed { machine, state in
            if applicationState == .background {
                state.background = true
                return machine.background(at: now)
            }
            state.background = false
            return machine.foreground()
        }
    }

    // MARK: Requests

    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        try await self.loadIfNeeded()
        switch request {
        case .prepare:
            return try await self.prepare()
        case .connect:
            return try await self.connect()
        case .viewPage(let title, let url):
            let now = self.host.now()
            try self.operation { machine, _ throws(ChatError) in try machine.viewPage(title: title, url: url, at: now) }
            return .done
        case .listThreads:
            return .threads(self.state.withLock { $0.machine?.threads ?? [] })
        case .createThread(let fields):
            return .thread(try self.createThread(fields))
        case .openThread(let threadID):
            return try await self.openThread(threadID)
        case .sendMessage(let threadID, let text):
            return try await self.sendMessage(text, to: threadID)
        case .endConversation(let threadID):
            return try await self.endConversation(threadID)
        case .custom("chat-status", _):
            return .fields(self.statusFields())
        case .custom("pre-chat-form", _):
            return .fields(self.preChatFormFields())
        case .typing(let threadID, let started):
            var arguments = ["state": started ? "started" : "stopped"]
            arguments["thread"] = threadID
            return try self.reportTyping(arguments)
        case .custom("chat-typing", let arguments):
            return try self.reportTyping(arguments)
        default:
            throw ChannelError(
                .unsupported,
                "\(self.prefix): no \(request.name) requests here; it knows prepare, connect, view-page, list-threads, create-thread, open-thread, send-message, end-conversation, typing, chat-status, chat-typing and pre-chat-form"
            )
        }
    }

    func prepare() async throws -> ChannelReply {
        let (brandID, channelID) = (self.configuration.brandID, self.configuration.channelID)
        return try await self.wait(timeout: self.configuration.requestTimeout * 3) { machine throws(ChatError) in
            try machine.prepare(brandID: brandID, channelID: channelID)
        } until: { machine, reports in
            switch machine.state {
            case .prepared: .success(.done)
            case .initial: .failure(Self.failure(reports, otherwise: "preparing the chat failed"))
            default: nil
            }
        }
    }

    func connect() async throws -> ChannelReply {
        let description = self.configuration.channelDescription
        let timeout = self.configuration.machine.responseTimeout * 4 + self.configuration.requestTimeout
        return try await self.wait(timeout: timeout) { machine throws(ChatError) in
            try machine.connect()
        } until: { machine, reports in
            switch machine.state {
            case .ready, .closed:
                return .success(.done)
            case .offline:
                return .failure(ChannelError(.transient, "cxone-chat: the live chat of \(description) is offline: no agent is available; it is tried again later"))
            case .prepared, .initial:
                guard reports.contains(where: { if case .error = $0 { true } else { false } }) else { return nil }
                return .failure(Self.failure(reports, otherwise: "connecting failed", signIn: machine.channelConfiguration?.isAuthorizationEnabled == true))
            default:
                return nil
            }
        }
    }

    func createThread(_ fields: [String: String]) throws -> ChatThread {
        var created: ChatThread?
        try self.operation { machine, state throws(ChatError) in
            let actions = try machine.createThread(customFields: fields)
            created = machine.threads.last
            state.currentThread = created?.id
            return actions
        }
        guard let created else { throw ChannelError(.illegalState, "\(self.prefix): the chat is not ready") }
        return created
    }

    func openThread(_ threadID: String) async throws -> ChannelReply {
        let key = threadID.lowercased()
        let reply = try await self.wait(timeout: self.configuration.machine.responseTimeout) { machine throws(ChatError) in
            try machine.openThread(threadID: threadID)
        } until: { machine, reports in
            for report in reports {
                if case .threadUpdated(let thread) = report, thread.id.lowercased() == key { return .success(.thread(thread)) }
            }
            if let error = Self.error(in: reports) { return .failure(Self.channelError(error)) }
            return nil
        }
        self.state.withLock { $0.currentThread = key }
        self.markShown(key)
        return reply
    }

    /// Ends `threadID`'s conversation, or the current thread's (the one created or opened last, while it
    /// is open), or else the only open one.
    func endConversation(_ threadID: String?) async throws -> ChannelReply {
        let target = threadID ?? self.state.withLock { state in
            state.currentThread.flatMap { state.machine?.thread($0) }.flatMap { $0.state == .closed ? nil : $0.id }
        }
        let key = target?.lowercased() ?? self.state.withLock { $0.machine?.threads.first { $0.state != .closed }?.id.lowercased() }
        return try await self.wait(timeout: self.configuration.machine.responseTimeout) { machine throws(ChatError) in
            try machine.endConversation(threadID: target)
        } until: { machine, reports in
            if let key, machine.thread(key)?.state == .closed { return .success(.done) }
            if let error = Self.error(in: reports) { return .failure(Self.channelError(error)) }
            return nil
        }
    }

    func statusFields() -> [String: String] {
        self.state.withLock { state in
            guard let machine = state.machine else { return ["state": ChatState.initial.rawValue] }
            var fields: [String: String] = [
                "state": machine.state.rawValue,
                "gateway": self.configuration.gatewayDescription,
                "brand-id": String(self.configuration.brandID),
                "channel-id": self.configuration.channelID,
                "threads": String(machine.threads.count),
                "outbox": String(machine.outbox.count),
                "connected": state.socket == nil ? "no" : "yes",
                "frames-received": String(state.framesReceived),
                "frames-rejected": String(state.framesRejected),
            ]
            if let mode = machine.mode { fields["mode"] = mode.rawValue }
            if machine.reconnectAttempt > 0 { fields["reconnect-attempt"] = String(machine.reconnectAttempt) }
            if let error = state.lastError { fields["last-error"] = error.message }
            fields.merge(Self.activityFields(machine, state)) { current, _ in current }
            return fields
        }
    }

    func preChatFormFields() -> [String: String] {
        self.state.withLock { state in
            guard let form = state.machine?.preChatForm else { return [:] }
            var fields = ["form": form.name]
            for field in form.fields {
                var text = field.label + (field.isRequired ? " (required)" : "")
                if !field.options.isEmpty { text += ": " + field.options.joined(separator: " | ") }
                fields["field." + field.ident] = text
            }
            return fields
        }
    }

    // MARK: Waiting

    /// A machine operation whose reply comes at once; its error becomes a ``ChannelError``.
    func operation(_ body: (inout ChatStateMachine, inout State) throws(ChatError) -> [Action]) throws {
        do {
            try self.step(body)
        } catch {
            throw Self.channelError(error)
        }
    }

    /// Starts an operation and waits until `settle` gives its outcome, or `timeout` passes.
    func wait(
        timeout: Duration,
        _ start: @escaping (inout ChatStateMachine) throws(ChatError) -> [Action],
        until settle: @escaping @Sendable (ChatStateMachine, [Report]) -> Result<ChannelReply, ChannelError>?
    ) async throws -> ChannelReply {
        try await self.wait(timeout: timeout) { machine, _ throws(ChatError) in
            Pending(actions: try start(&machine), settle: settle)
        }
    }

    /// What an operation started under the lock waits for.
    struct Pending {
        var actions: [Action]
        var settle: @Sendable (ChatStateMachine, [Report]) -> Result<ChannelReply, ChannelError>?
        /// The outcome when the timeout passes; nil for the "no answer" error.
        var timedOut: (@Sendable (ChatStateMachine) -> Result<ChannelReply, ChannelError>)? = nil
    }

    /// Starts an operation (which may also use the channel's state) and waits as the ``Pending`` it
    /// returns says.
    func wait(timeout: Duration, _ begin: (inout ChatStateMachine, inout State) throws(ChatError) -> Pending) async throws -> ChannelReply {
        let prefix = self.prefix
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ChannelReply, any Error>) in
            let outcome = self.state.withLock { state -> Result<[Resumption], ChannelError> in
                guard var machine = state.machine else { return .failure(ChannelError(.transient, "\(prefix): the chat is not loaded")) }
                let pending: Pending
                do throws(ChatError) {
                    pending = try begin(&machine, &state)
                } catch {
                    return .failure(Self.channelError(error))
                }
                state.machine = machine
                let id = self.waiters.add(continuation, until: Awaited(settle: pending.settle, timedOut: pending.timedOut), timeout: timeout) {
                    [weak self] id in self?.expire(id, after: timeout)
                }
                var resumptions = self.handle(pending.actions, &state)
                // Already there (connect while ready): settle with no reports.
                if let already = self.waiters.settle(id, { $0.settle(machine, [])?.mapError { $0 } }) { resumptions.append(already) }
                return .success(resumptions)
            }
            switch outcome {
            case .success(let resumptions): resumptions.resume()
            case .failure(let error): continuation.resume(throwing: error)
            }
        }
    }

    func expire(_ id: UInt64, after timeout: Duration) {
        let machine = self.state.withLock { $0.machine }
        let resumption = self.waiters.remove(id) { awaited -> Result<ChannelReply, any Error> in
            if let timedOut = awaited.timedOut, let machine { return timedOut(machine).mapError { $0 } }
            let phase = machine?.state ?? .initial
            let seconds = timeout.components.seconds
            return .failure(ChannelError(.transient, "\(self.prefix): no answer from \(self.configuration.gatewayDescription) within \(seconds) s (the chat is \(phase))"))
        }
        resumption?.resume()
    }

    // MARK: Errors

    static func error(in reports: [Report]) -> ChatError? {
        for report in reports {
            if case .error(let error) = report { return error }
        }
        return nil
    }

    static func failure(_ reports: [Report], otherwise: String, signIn: Bool = true) -> ChannelError {
        self.error(in: reports).map { Self.channelError($0, signIn: signIn) } ?? ChannelError(.transient, "cxone-chat: \(otherwise)")
    }

    /// A chat error as the host sees it: the machine's class decides what the host does. A refused
    /// authorization is a sign-in problem only where there is something to sign in with (`signIn`: the
    /// channel uses OAuth); without it the server's refusal is retried with backoff, its reason shown.
    static func channelError(_ error: ChatError, signIn: Bool = true) -> ChannelError {
        let code: ChannelError.Code =
            switch error.code {
            case _ where error.serverCode?.lowercased() == ChatError.sdkVersionNotSupported.lowercased(): .configuration
            case .operation where signIn && Self.isAuthorizationFailure(error.serverCode): .authentication
            case .illegalChatState, .invalidThread: .illegalState
            case .unsupportedChannelConfig: .unsupported
            case .server, .operation: .server
            default: .transient
            }
        return ChannelError(code, "cxone-chat: \(error.message)")
    }
}

extension CXoneChatChannel {
    /// ConsumerAuthorizationFailed, TokenRefreshingFailed and the like: the credentials were refused.
    static func isAuthorizationFailure(_ code: String?) -> Bool {
        guard let code = code?.lowercased() else { return false }
        return code.contains("authoriz") || code.contains("unauthori") || code.contains("tokenrefresh")
    }
}
