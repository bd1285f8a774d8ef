import AttendantPluginAPI
import AttendantPluginKit

// The transcript (each row shown once, in position order, the highest position kept) and the chat's
// start and end.
extension GMSChatSession {
    /// Takes rows in any order, hands on the new ones in position order, and persists the new high-water mark.
    mutating func accept(_ rows: [GMSTranscriptEvent], now: UnixTime) -> [Action] {
        guard !rows.isEmpty, let threadID = self.threadID else { return [] }
        let accepted = self.transcript.accept(rows)
        var actions: [Action] = []
        if accepted.duplicates > 0 { actions.append(.log(.debug, "\(self.prefix): dropped \(accepted.duplicates) transcript rows already shown")) }
        actions += self.release(accepted.released, threadID: threadID, now: now)
        switch accepted.gap {
        case .closed: actions.append(.cancelTimer(.gap))
        // CometD does not order deliveries: give the missing rows a moment before asking again.
        case .waiting: actions.append(.setTimer(.gap, after: .seconds(1)))
        case .replaying: break
        }
        return actions
    }

    /// Hands on `rows`, which the transcript released, and persists the position shown, which rose to
    /// the last of them.
    mutating func release(_ rows: [GMSTranscriptEvent], threadID: String, now: UnixTime) -> [Action] {
        guard !rows.isEmpty else { return [] }
        var actions: [Action] = []
        for row in rows {
            let message = row.chatMessage(threadID: threadID, receivedAt: now)
            if !self.contactRecorded, message.direction == .fromAgent {
                self.contactRecorded = true
                var contact = Contact(
                    id: threadID,
                    kind: .chat,
                    from: message.sender,
                    summary: "Chat with \(message.sender.displayName)",
                    receivedAt: message.sentAt
                )
                contact.threadID = threadID
                actions.append(.emit(.incomingContact(contact)))
            }
            actions.append(.emit(.messageReceived(message)))
        }
        return actions + [Self.store(String(self.transcript.shown), key: StoreKey.position)]
    }

    /// The rows behind a gap waited: ask for a replay, or, when it was asked for already, go on after it.
    mutating func gapTimerFired(now: UnixTime) -> [Action] {
        guard let threadID = self.threadID else { return [] }
        switch self.transcript.gapWaited() {
        case .askForReplay?:
            return [.setTimer(.gap, after: self.settings.networkDelay)] + self.requestNotifications()
        case .skipped(let gap, let skipped)?:
            let warning = Action.log(.warning, "\(self.prefix): transcript rows from position \(gap) never came, even replayed; going on after them")
            return [warning] + self.release(skipped, threadID: threadID, now: now)
        case nil:
            return []
        }
    }

    /// Asks GMS for every transcript event after the position shown.
    mutating func requestNotifications() -> [Action] {
        guard let keys = self.keys, keys.secureKey != nil else { return [] }
        self.transcript.catchUp.asked()
        return [.work(.requestNotifications(keys, after: self.transcript.shown))]
    }

    // MARK: The chat's life

    /// The chat started: keys kept in the secrets, a thread for the host. An earlier error was the
    /// earlier chat's (or its start's), not this one's.
    mutating func begin(_ keys: GMSChatKeys) -> [Action] {
        let threadID = self.settings.makeThreadID()
        self.phase = .active
        self.lastError = nil
        self.keys = keys
        self.threadID = threadID
        self.transcript.restart()
        self.contactRecorded = false
        return GMSChatKeys.writes(keys).map(Action.write) + [
            Self.store(threadID, key: StoreKey.thread), Self.store("0", key: StoreKey.position),
            Self.store(Phase.active.rawValue, key: StoreKey.phase),
            .emit(.chatStateChanged(.ready)), .emit(.threadUpdated(self.thread(threadID, .ready))),
            .log(.info, "\(self.prefix): the chat with \(self.server) started"),
        ]
    }

    /// GMS ended the chat: the keys are forgotten, the thread and its contact closed.
    mutating func end() -> [Action] {
        guard self.phase == .active else { return [] }
        self.phase = .ended
        self.keys = nil
        var actions: [Action] =
            [.cancelTimer(.gap)] + GMSChatKeys.writes(nil).map(Action.write) + [Self.store(Phase.ended.rawValue, key: StoreKey.phase)]
        if let threadID = self.threadID {
            actions.append(.emit(.threadUpdated(self.thread(threadID, .closed))))
            if self.contactRecorded { actions.append(.emit(.contactEnded(contactID: threadID, outcome: .completed))) }
        }
        return actions + [.emit(.chatStateChanged(.closed)), .log(.info, "\(self.prefix): the chat with \(self.server) ended")]
    }

    /// The callers waiting for a start hear `error`.
    mutating func failStart(_ error: ChannelError) -> [Action] {
        self.replyToStart(.failure(error))
    }

    /// The callers waiting for the chat to start hear `outcome`.
    mutating func replyToStart(_ outcome: Result<ChannelReply, ChannelError>) -> [Action] {
        defer { self.waitingForStart = [:] }
        return self.reply(to: self.waitingForStart.keys.sorted(), outcome)
    }

    /// The waiting callers `ids`, whose deadlines end, hear `outcome`.
    func reply(to ids: [UInt64], _ outcome: Result<ChannelReply, ChannelError>) -> [Action] {
        ids.flatMap { id -> [Action] in [.cancelTimer(.request(id)), .replied(id, outcome)] }
    }
}
