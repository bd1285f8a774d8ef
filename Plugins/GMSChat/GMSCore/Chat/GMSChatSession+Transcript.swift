import AttendantPluginAPI
import AttendantPluginKit

// The transcript: each row shown once, in position order, the highest position kept.
extension GMSChatSession {
    /// Takes rows in any order, hands on the new ones in position order, and persists the new high-water mark.
    mutating func accept(_ rows: [GMSTranscriptEvent], now: UnixTime) -> [Action] {
        guard !rows.isEmpty, let threadID = self.chat.active?.thread else { return [] }
        var actions = self.holdReplayed(rows, threadID: threadID, now: now)
        let accepted = self.transcript.accept(rows)
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
            self.history.hold(message)
            if message.direction == .fromAgent, self.chat.active?.contact == .awaitingAgent {
                self.chat.modifyActive { $0.contact = .recorded }
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
        guard let threadID = self.chat.active?.thread else { return [] }
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
}
