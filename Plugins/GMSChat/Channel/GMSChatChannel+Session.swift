import AttendantPluginAPI
import AttendantPluginKit
import GMSBayeux
import GMSCore
import Synchronization

// What the Bayeux session reports, and the chat events it delivers.
extension GMSChatChannel {
    func bayeuxEvent(_ event: BayeuxClient.Event) {
        switch event {
        case .handshook:
            // A chat is not bound to a new client id by itself: ask for everything after the stored position.
            if self.state.withLock({ $0.phase == .active && $0.keys != nil }) { self.requestNotifications() }
        case .connected:
            let (waiters, createV1, askAgain) = self.state.withLock { state -> ([CheckedContinuation<Void, any Error>], Bool, Bool) in
                state.connected = true
                state.lastError = nil
                let waiters = state.connectWaiters
                state.connectWaiters = []
                let create = self.configuration.apiVersion == 1 && state.phase == .starting && state.keys?.serviceID != nil && !state.v1Creating
                if create { state.v1Creating = true }
                let ask = state.phase == .active && (state.notificationsRequest == .failed || (state.replayOnConnect && state.notificationsRequest == .none))
                return (waiters, create, ask)
            }
            self.worker.enqueue(.log(.info, "\(self.prefix): connected to \(self.serverDescription) over \(self.bayeux.status.machine.connectionType)"))
            for waiter in waiters { waiter.resume() }
            if createV1 { Task { await self.createV1Interaction() } }
            if askAgain { self.requestNotifications() }
        case .interrupted(let failure):
            // Ask for the chat's events after the stored position at once: the request goes out on a new
            // connection and is answered there, while a new connect may be held by the server for its
            // whole timeout. If it fails too, it is made again once a connect succeeds.
            let ask = self.state.withLock { state -> Bool in
                state.connected = false
                state.replayOnConnect = true
                state.lastError = failure.description
                return state.phase == .active && state.notificationsRequest != .inFlight
            }
            self.worker.enqueue(.log(.notice, "\(self.prefix): the connection to \(self.serverDescription) was interrupted: \(failure); reconnecting"))
            if ask { self.requestNotifications() }
        case .transportChanged(let type):
            self.worker.enqueue(.log(.notice, "\(self.prefix): \(self.serverDescription) is reached over \(type) from now on"))
        case .delivered(let message):
            self.delivered(message)
        case .stopped(let failure):
            let (report, waiters) = self.state.withLock { state -> (Bool, [CheckedContinuation<Void, any Error>]) in
                state.connected = false
                let report = failure != nil && state.listening && !state.background
                if report { state.listening = false }
                let waiters = state.connectWaiters
                state.connectWaiters = []
                return (report, waiters)
            }
            let error = ChannelError(.transient, "\(self.prefix): \(self.serverDescription) ended the session: \(failure?.description ?? "disconnected")")
            for waiter in waiters { waiter.resume(throwing: error) }
            if report { self.worker.enqueue(.emit(.stoppedListening(error))) }
        }
    }

    // MARK: Deliveries

    func delivered(_ message: BayeuxMessage) {
        guard let data = message.data else { return }
        switch (self.configuration.apiVersion, message.channel) {
        case (2, self.configuration.serviceChannel):
            do {
                self.received(try GMSChatV2Reply(decoding: data))
            } catch {
                self.rejected(message.channel, error)
            }
        case (1, "/_genesys"):
            do {
                self.received(try GMSChatV1Event(decoding: data))
            } catch {
                self.rejected(message.channel, error)
            }
        default:
            self.state.withLock { $0.eventsIgnored += 1 }
            self.worker.enqueue(.log(.notice, "\(self.prefix): ignored an event on \(message.channel), which this chat does not use"))
        }
    }

    func rejected(_ channel: String, _ error: GMSDecodeError) {
        self.state.withLock { $0.eventsRejected += 1 }
        self.worker.enqueue(.log(.warning, "\(self.prefix): ignored an event on \(channel) from \(self.serverDescription): \(error)"))
    }

    /// A v2 event: the answer to an operation or a notification.
    func received(_ reply: GMSChatV2Reply) {
        let now = self.host.now()
        let (starters, error) = self.state.withLock { state -> ([CheckedContinuation<Void, any Error>], ChannelError?) in
            if reply.statusCode != 0 {
                let reason = reply.errors.isEmpty ? "status \(reply.statusCode)" : reply.errors.joined(separator: "; ")
                state.lastError = "GMS refused an operation: \(reason)"
                self.worker.enqueue(.log(.warning, "\(self.prefix): \(self.serverDescription) refused an operation: \(reason)"))
                if state.phase == .starting {
                    state.phase = .none
                    defer { state.startWaiters = [] }
                    return (state.startWaiters, ChannelError(.server, "\(self.prefix): \(self.serverDescription) did not start the chat: \(reason)"))
                }
                if reply.chatEnded, state.phase == .active { self.end(&state, now: now) }
                return ([], nil)
            }
            var starters: [CheckedContinuation<Void, any Error>] = []
            if state.phase == .starting, let secureKey = reply.secureKey {
                self.begin(&state, keys: GMSChatKeys(secureKey: secureKey, chatID: reply.chatID, userID: reply.userID, alias: reply.alias), now: now)
                starters = state.startWaiters
                state.startWaiters = []
            } else if let key = reply.secureKey, let ours = state.keys?.secureKey, key != ours {
                self.worker.enqueue(.log(.debug, "\(self.prefix): ignored an event of another chat"))
                return ([], nil)
            } else if let keys = state.keys {
                // Keys GMS hands out later (the alias, the user id) are kept too.
                let updated = GMSChatKeys(
                    secureKey: keys.secureKey, chatID: reply.chatID ?? keys.chatID, userID: reply.userID ?? keys.userID,
                    alias: reply.alias ?? keys.alias, serviceID: keys.serviceID
                )
                if updated != keys {
                    state.keys = updated
                    self.worker.enqueue(.storeKeys(updated))
                }
            }
            guard state.phase == .active else { return (starters, nil) }
            self.accept(reply.messages, &state, now: now)
            if reply.chatEnded { self.end(&state, now: now) }
            return (starters, nil)
        }
        for starter in starters {
            if let error { starter.resume(throwing: error) } else { starter.resume() }
        }
    }

    /// A v1 event on `/_genesys`: every chat's events share the channel, so only this chat's are taken.
    func received(_ event: GMSChatV1Event) {
        let now = self.host.now()
        self.state.withLock { state in
            guard state.phase == .active, let keys = state.keys else { return }
            let ours = (event.serviceID != nil && event.serviceID == keys.serviceID) || (event.chatSessionID != nil && event.chatSessionID == keys.chatID)
            guard ours else {
                self.worker.enqueue(.log(.debug, "\(self.prefix): ignored a /_genesys event of another chat"))
                return
            }
            self.accept(event.rows, &state, now: now)
            if event.state == "DISCONNECTED" { self.end(&state, now: now) }
        }
    }

    // MARK: The transcript

    /// Takes rows in any order, hands on the new ones in position order, and persists the new high-water mark.
    func accept(_ rows: [GMSTranscriptEvent], _ state: inout State, now: UnixTime) {
        guard !rows.isEmpty, let threadID = state.threadID else { return }
        let outcome = state.ledger.accept(rows)
        if outcome.duplicates > 0 {
            self.worker.enqueue(.log(.debug, "\(self.prefix): dropped \(outcome.duplicates) transcript rows already shown"))
        }
        self.release(outcome.released, &state, threadID: threadID, now: now)
        if let gap = state.ledger.gap {
            if state.replayAskedFor != gap {
                // CometD does not order deliveries: give the missing rows a moment before asking again.
                self.timers.arm(.gap, after: .seconds(1)) { [weak self] id in self?.gapTimerFired(id) }
            }
        } else {
            state.replayAskedFor = nil
            self.timers.cancel(.gap)
        }
    }

    func release(_ rows: [GMSTranscriptEvent], _ state: inout State, threadID: String, now: UnixTime) {
        guard !rows.isEmpty else { return }
        for row in rows {
            let message = row.chatMessage(threadID: threadID, receivedAt: now)
            if !state.contactRecorded, message.direction == .fromAgent {
                state.contactRecorded = true
                var contact = Contact(id: threadID, kind: .chat, from: message.sender, summary: "Chat with \(message.sender.displayName)", receivedAt: message.sentAt)
                contact.threadID = threadID
                self.worker.enqueue(.emit(.incomingContact(contact)))
            }
            self.worker.enqueue(.emit(.messageReceived(message)))
        }
        if state.ledger.shown > state.storedPosition {
            state.storedPosition = state.ledger.shown
            self.worker.enqueue(.storePosition(state.ledger.shown))
        }
    }

    func gapTimerFired(_ id: TimerID<TimerKey>) {
        let now = self.host.now()
        let ask = self.state.withLock { state -> Bool in
            guard self.timers.consume(id), let gap = state.ledger.gap, let threadID = state.threadID else { return false }
            if state.replayAskedFor == gap {
                let skipped = state.ledger.skipGap()
                self.worker.enqueue(.log(.warning, "\(self.prefix): transcript rows from position \(gap) never came, even replayed; going on after them"))
                self.release(skipped, &state, threadID: threadID, now: now)
                state.replayAskedFor = nil
                return false
            }
            state.replayAskedFor = gap
            self.timers.arm(.gap, after: self.configuration.machine.networkDelay) { [weak self] id in self?.gapTimerFired(id) }
            return true
        }
        if ask { self.requestNotifications() }
    }

    // MARK: The chat's life

    /// The chat started: keys kept in the secrets, a thread for the host.
    func begin(_ state: inout State, keys: GMSChatKeys, now: UnixTime) {
        let threadID = Self.newThreadID()
        state.phase = .active
        state.keys = keys
        state.threadID = threadID
        state.ledger = TranscriptLedger()
        state.storedPosition = 0
        state.contactRecorded = false
        state.replayAskedFor = nil
        self.worker.enqueue(.storeKeys(keys))
        self.worker.enqueue(.storeValue(threadID, key: Self.threadKey))
        self.worker.enqueue(.storePosition(0))
        self.worker.enqueue(.storeValue(Phase.active.rawValue, key: Self.phaseKey))
        self.worker.enqueue(.emit(.chatStateChanged(.ready)))
        self.worker.enqueue(.emit(.threadUpdated(ChatThread(id: threadID, name: "Chat with \(self.configuration.service)", state: .ready))))
        self.worker.enqueue(.log(.info, "\(self.prefix): the chat with \(self.serverDescription) started"))
    }

    /// GMS ended the chat: the keys are forgotten, the thread and its contact closed.
    func end(_ state: inout State, now: UnixTime) {
        guard state.phase == .active else { return }
        state.phase = .ended
        state.keys = nil
        self.timers.cancel(.gap)
        self.worker.enqueue(.storeKeys(nil))
        self.worker.enqueue(.storeValue(Phase.ended.rawValue, key: Self.phaseKey))
        if let threadID = state.threadID {
            self.worker.enqueue(.emit(.threadUpdated(ChatThread(id: threadID, name: "Chat with \(self.configuration.service)", state: .closed))))
            if state.contactRecorded { self.worker.enqueue(.emit(.contactEnded(contactID: threadID, outcome: .completed))) }
        }
        self.worker.enqueue(.emit(.chatStateChanged(.closed)))
        self.worker.enqueue(.log(.info, "\(self.prefix): the chat with \(self.serverDescription) ended"))
    }

    /// Asks GMS for every transcript event after the stored position: v2 `requestNotifications` from the
    /// next position, v1 `refresh` after the highest one.
    func requestNotifications() {
        let (keys, shown) = self.state.withLock { state in
            state.notificationsRequest = .inFlight
            state.replayOnConnect = false
            return (state.keys, state.ledger.shown)
        }
        guard let keys, let secureKey = keys.secureKey else { return }
        Task {
            let succeeded: Bool
            if self.configuration.apiVersion == 1 {
                succeeded = await self.refreshV1(after: shown)
            } else {
                var data = self.v2Operation("requestNotifications", keys: keys, secureKey: secureKey)
                data["transcriptPosition"] = .number(Double(shown + 1))
                do {
                    _ = try await self.bayeux.publish(self.configuration.serviceChannel, data: .object(data))
                    succeeded = true
                } catch {
                    self.worker.enqueue(.log(.warning, "\(self.prefix): asking \(self.serverDescription) for the chat's events after position \(shown) failed: \(error); asking again once connected"))
                    succeeded = false
                }
            }
            self.state.withLock { state in
                if state.notificationsRequest == .inFlight { state.notificationsRequest = succeeded ? .none : .failed }
            }
        }
    }

    /// A v2 operation's data with the chat's keys.
    func v2Operation(_ operation: String, keys: GMSChatKeys, secureKey: String) -> [String: JSONValue] {
        var data: [String: JSONValue] = ["operation": .string(operation), "secureKey": .string(secureKey)]
        if let userID = keys.userID { data["userId"] = .string(userID) }
        if let alias = keys.alias { data["alias"] = .string(alias) }
        return data
    }
}
