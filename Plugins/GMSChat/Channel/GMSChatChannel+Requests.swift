import AttendantPluginAPI
import AttendantPluginKit
import GMSBayeux
import GMSCore
import Synchronization

// The channel's life under the supervisor, and the user's chat operations.
extension GMSChatChannel {
    // MARK: Channel

    /// Starts the CometD session and returns once its first connect succeeded; a chat kept from before
    /// resumes (its events after the stored position are asked for), and `auto-start` starts one.
    func listen() async throws {
        try await self.loadIfNeeded()
        self.state.withLock { $0.background = false }
        try await self.connectSession()
        self.state.withLock { state in
            state.listening = true
            state.lastError = nil
        }
        if self.configuration.autoStart, self.state.withLock({ $0.phase != .active }) {
            try await self.startChat()
        }
    }

    /// Subscribes, starts the session and waits for its first successful connect.
    func connectSession() async throws {
        if self.configuration.apiVersion == 1 {
            self.bayeux.subscribe("/_genesys")
        } else {
            self.bayeux.subscribe(self.configuration.serviceChannel)
        }
        let timeout = self.configuration.machine.networkDelay * 3
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let connected = self.state.withLock { state -> Bool in
                        if state.connected { return true }
                        state.connectWaiters.append(continuation)
                        return false
                    }
                    if connected { continuation.resume() }
                    self.bayeux.start()
                }
            }
            group.addTask {
                try await self.host.clock.sleep(for: timeout)
                throw ChannelError(.transient, "\(self.prefix): no connect to \(self.serverDescription) succeeded within \(timeout)")
            }
            defer { group.cancelAll() }
            do {
                try await group.next()
            } catch {
                // The waiter the deadline left behind goes.
                let waiters = self.state.withLock { state in
                    defer { state.connectWaiters = [] }
                    return state.connectWaiters
                }
                for waiter in waiters { waiter.resume(throwing: error) }
                throw error
            }
        }
    }

    /// Says goodbye with the transcript position, as in the background: the chat stays for the next start.
    func stopListening() async {
        self.state.withLock { $0.listening = false }
        await self.bayeux.disconnect(ext: self.positionExt())
        self.timers.cancelAll()
        await self.worker.drain()
    }

    /// The Bayeux client reconnects by itself; the keep-alive reports a session the server stopped.
    func keepAlive() async throws {
        let (background, listening) = self.state.withLock { ($0.background, $0.listening) }
        guard !background else { return }
        guard listening else {
            throw ChannelError(.transient, "\(self.prefix): the session with \(self.serverDescription) is over")
        }
    }

    /// Background: `/meta/disconnect` with the highest transcript position shown, before the machine
    /// sleeps (the host waits for this, inside logind's delay lock). Foreground: a new session, which asks
    /// GMS for everything after that position.
    func applicationStateDidChange(_ applicationState: ApplicationState) async {
        if applicationState == .background {
            let wasListening = self.state.withLock { state -> Bool in
                state.background = true
                return state.listening
            }
            guard wasListening else { return }
            let ext = self.positionExt()
            self.worker.enqueue(.log(.info, "\(self.prefix): going to the background: disconnecting from \(self.serverDescription) at transcript position \(ext["transcriptPosition"]?.stringValue ?? "0")"))
            await self.bayeux.disconnect(ext: ext)
            await self.worker.drain()
            return
        }
        let resume = self.state.withLock { state -> Bool in
            defer { state.background = false }
            return state.background && state.listening
        }
        guard resume else { return }
        self.worker.enqueue(.log(.info, "\(self.prefix): back in the foreground: a new session with \(self.serverDescription)"))
        self.bayeux.start()
    }

    /// `ext` of a disconnect: the highest position shown, as a string, as the seed shows it.
    func positionExt() -> [String: JSONValue] {
        ["transcriptPosition": .string(String(self.state.withLock { $0.ledger.shown }))]
    }

    // MARK: Requests

    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        try await self.loadIfNeeded()
        switch request {
        case .prepare, .connect:
            try await self.startChat()
            return .done
        case .listThreads:
            return .threads(self.state.withLock { state in
                guard let threadID = state.threadID else { return [] }
                return [ChatThread(id: threadID, name: "Chat with \(self.configuration.service)", state: state.phase == .active ? .ready : .closed)]
            })
        case .sendMessage(_, let text):
            try await self.startChat()
            try await self.operate(v2: "sendMessage", v1: "send", fields: ["message": text])
            return .done
        case .typing(_, let started):
            try await self.operate(v2: started ? "startTyping" : "stopTyping", v1: started ? "startTyping" : "stopTyping", fields: [:])
            return .fields(["typing": started ? "started" : "stopped"])
        case .custom("chat-typing", let arguments):
            let started = (arguments["state"] ?? "started") == "started"
            return try await self.perform(.typing(threadID: arguments["thread"], started: started))
        case .endConversation:
            try await self.operate(v2: "disconnect", v1: "disconnect", fields: [:])
            return .done
        case .custom("chat-status", _):
            return .fields(self.statusFields())
        case .custom("chat-nickname", let arguments):
            try await self.operateV2Only("updateNickname", ["nickname": arguments["nickname"] ?? ""], what: "a nickname change")
            return .fields(["operation": "updateNickname"])
        case .custom("chat-push-url", let arguments):
            try await self.operateV2Only("pushUrl", ["pushUrl": arguments["url"] ?? ""], what: "a pushed URL")
            return .fields(["operation": "pushUrl"])
        case .custom("chat-notice", let arguments):
            try await self.operateV2Only("customNotice", ["message": arguments["text"] ?? ""], what: "a custom notice")
            return .fields(["operation": "customNotice"])
        default:
            throw ChannelError(
                .unsupported,
                "\(self.prefix): no \(request.name) requests here; it knows prepare, connect, list-threads, send-message, typing, end-conversation, chat-status, chat-nickname, chat-push-url and chat-notice"
            )
        }
    }

    /// Starts a chat unless one is active, and returns once GMS gave its keys.
    func startChat() async throws {
        // Whether this call sends the request (a start already under way is waited for, not repeated).
        let start = try self.state.withLock { state throws -> Bool in
            switch state.phase {
            case .active, .starting: return false
            case .none, .ended:
                guard state.connected || state.listening else {
                    throw ChannelError(.illegalState, "\(self.prefix): not connected to \(self.serverDescription) yet")
                }
                state.phase = .starting
                state.v1Creating = false
                return true
            }
        }
        if self.state.withLock({ $0.phase == .active }) { return }
        let timeout = self.configuration.machine.networkDelay * 2
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let done = self.state.withLock { state -> Bool in
                        if state.phase == .active { return true }
                        state.startWaiters.append(continuation)
                        return false
                    }
                    if done { continuation.resume() }
                }
            }
            group.addTask {
                try await self.host.clock.sleep(for: timeout)
                throw ChannelError(.transient, "\(self.prefix): \(self.serverDescription) did not start the chat within \(timeout)")
            }
            if start {
                if self.configuration.apiVersion == 2 {
                    group.addTask { try await self.requestChatV2() }
                } else {
                    group.addTask { try await self.requestChatV1() }
                }
            }
            defer { group.cancelAll() }
            do {
                // The start's own task ends first (or fails); the chat is started when its waiter resumes.
                while let _ = try await group.next() {
                    if self.state.withLock({ $0.phase == .active }) { return }
                }
            } catch {
                let waiters = self.state.withLock { state in
                    if state.phase == .starting { state.phase = .none }
                    defer { state.startWaiters = [] }
                    return state.startWaiters
                }
                for waiter in waiters { waiter.resume(throwing: error) }
                throw error
            }
        }
    }

    /// v2 `requestChat`: GMS answers with an event carrying the chat's keys.
    func requestChatV2() async throws {
        var data: [String: JSONValue] = ["operation": .string("requestChat")]
        if let nickname = self.configuration.nickname {
            data["nickname"] = .string(nickname)
        } else if let first = self.configuration.firstName, let last = self.configuration.lastName {
            data["firstName"] = .string(first)
            data["lastName"] = .string(last)
        } else {
            data["nickname"] = .string(self.configuration.displayName)
        }
        if let subject = self.configuration.subject { data["subject"] = .string(subject) }
        if let email = self.configuration.email { data["emailAddress"] = .string(email) }
        do {
            _ = try await self.bayeux.publish(self.configuration.serviceChannel, data: .object(data))
        } catch {
            throw ChannelError(.transient, "\(self.prefix): requesting a chat from \(self.serverDescription) failed: \(error)")
        }
    }

    /// A chat operation with the chat's keys: a v2 publish, or a v1 POST to `…/ixn/chat/<op>`.
    func operate(v2: String, v1: String, fields: [String: String]) async throws {
        guard let keys = self.state.withLock({ $0.phase == .active ? $0.keys : nil }), let secureKey = keys.secureKey else {
            throw ChannelError(.illegalState, "\(self.prefix): there is no chat; start one with `attendantctl chat connect`")
        }
        if self.configuration.apiVersion == 1 {
            try await self.postV1(v1, fields: fields)
            return
        }
        var data = self.v2Operation(v2, keys: keys, secureKey: secureKey)
        for (key, value) in fields { data[key] = .string(value) }
        do {
            _ = try await self.bayeux.publish(self.configuration.serviceChannel, data: .object(data))
        } catch {
            throw ChannelError(.transient, "\(self.prefix): \(v2) to \(self.serverDescription) failed: \(error)")
        }
    }

    /// An operation only chat API v2 has (v1's HTTP operations have no customer side for it).
    func operateV2Only(_ operation: String, _ fields: [String: String], what: String) async throws {
        guard self.configuration.apiVersion == 2 else {
            throw ChannelError(.unsupported, "\(self.prefix): GMS chat API v1 has no customer operation for \(what); it needs api-version = 2")
        }
        guard fields.values.allSatisfy({ !$0.isEmpty }) else {
            throw ChannelError(.illegalState, "\(self.prefix): \(what) needs \(fields.keys.sorted().joined(separator: " and "))")
        }
        try await self.operate(v2: operation, v1: operation, fields: fields)
    }

    func statusFields() -> [String: String] {
        let status = self.bayeux.status
        return self.state.withLock { state in
            var fields: [String: String] = [
                "server": self.configuration.baseURL,
                "api-version": String(self.configuration.apiVersion),
                "service": self.configuration.service,
                "chat": state.phase.rawValue,
                "state": state.phase == .active ? ChatState.ready.rawValue : (state.connected ? ChatState.connected.rawValue : ChatState.connecting.rawValue),
                "transport": status.machine.connectionType.rawValue,
                "connected": state.connected ? "yes" : "no",
                "background": state.background ? "yes" : "no",
                "transcript-position": String(state.ledger.shown),
                "batches-received": String(status.batchesReceived),
                "batches-rejected": String(status.batchesRejected),
                "events-rejected": String(state.eventsRejected),
                "events-ignored": String(state.eventsIgnored),
            ]
            if let handshakeAt = status.machine.handshakeAt, status.machine.clientID != nil {
                fields["client-id-age"] = "\((status.now - handshakeAt).components.seconds) s"
            }
            let advice = status.machine.advice
            func milliseconds(_ name: String, _ value: Duration?) -> String? {
                value.map { "\(name)=\($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) ms" }
            }
            let parts = [advice.reconnect.map { "reconnect=\($0)" }, milliseconds("interval", advice.interval), milliseconds("timeout", advice.timeout), milliseconds("maxInterval", advice.maxInterval)]
            fields["advice"] = parts.compactMap { $0 }.joined(separator: " ")
            if status.machine.failures > 0 { fields["failures"] = String(status.machine.failures) }
            if let gap = state.ledger.gap { fields["waiting-for-position"] = String(gap) }
            if let error = state.lastError { fields["last-error"] = error }
            if let thread = state.threadID { fields["thread"] = thread }
            return fields
        }
    }
}
