package import AttendantPluginAPI

extension AlertPlanner {
    /// Turns one channel event into commands. `now` matters only to chat messages (coalescing).
    package mutating func handle(_ event: ChannelEvent, channel: String, now: Duration) -> [AlertCommand] {
        switch event {
        case .incomingContact(let contact):
            // A chat thread's contact is alerted through the thread's messages, not a second time.
            guard contact.threadID == nil else { return [] }
            let key = AlertKey.contact(channel: channel, contactID: contact.id)
            self.upsert(key, .contact(contact))
            return self.present(key)
        case .contactUpdated(let contact):
            // An update for a contact never seen (or already over) is ignored: raising it could leave an
            // alert that no contactEnded ever closes.
            let key = AlertKey.contact(channel: channel, contactID: contact.id)
            guard self.alerts[key] != nil else { return [] }
            self.upsert(key, .contact(contact))
            return self.present(key)
        case .contactEnded(let contactID, let outcome):
            return self.contactEnded(contactID, outcome: outcome, channel: channel)
        case .threadUpdated(let thread):
            return self.threadUpdated(thread, channel: channel)
        case .messageReceived(let message):
            return self.messageReceived(message, channel: channel, now: now)
        case .actionReceived(let action):
            let key = AlertKey.inAppAction(channel: channel, actionID: action.id)
            self.upsert(key, .inAppAction(action))
            return self.present(key)
        case .actionClosed(let actionID, _):
            return self.withdraw(.inAppAction(channel: channel, actionID: actionID))
        case .stoppedListening, .chatStateChanged, .actionLifecycle:
            return []
        @unknown default:
            return []
        }
    }

    private mutating func contactEnded(_ contactID: String, outcome: ContactOutcome, channel: String) -> [AlertCommand] {
        let key = AlertKey.contact(channel: channel, contactID: contactID)
        guard case .contact(let contact) = self.alerts[key]?.content else { return [] }
        var commands = self.withdraw(key)
        guard outcome == .missed, contact.kind == .call else { return commands }
        let missed = AlertKey.missedCall(channel: channel, contactID: contactID)
        let notices = self.keysInOrder { if case .missedCall = $0.content { true } else { false } }
        // At most missedCallLimit notices, this one included: the oldest go.
        for old in notices.dropLast(max(1, self.configuration.missedCallLimit) - 1) {
            commands += self.withdraw(old)
        }
        self.upsert(missed, .missedCall(contact))
        return commands + self.present(missed)
    }

    private mutating func threadUpdated(_ thread: ChatThread, channel: String) -> [AlertCommand] {
        let key = AlertKey.thread(channel: channel, threadID: thread.id)
        if thread.state == .closed {
            self.threads[key] = nil
            return self.withdraw(key)
        }
        if !thread.name.isEmpty { self.threads[key, default: ThreadRecord()].name = thread.name }
        return []
    }

    private mutating func messageReceived(_ message: ChatMessage, channel: String, now: Duration) -> [AlertCommand] {
        let key = AlertKey.thread(channel: channel, threadID: message.threadID)
        switch message.direction {
        case .fromAgent, .notice:
            break
        case .toAgent:
            // The person at the desk wrote in this thread: they have seen it.
            return self.withdraw(key)
        default:
            return []
        }
        let settings = self.configuration.chat(for: channel)
        guard settings.events.contains(message.kind) else { return [] }
        var thread = self.threads[key] ?? ThreadRecord()
        // A replayed event (a transcript position sent twice) is shown once.
        if !message.id.isEmpty, thread.transcript.contains(where: { $0.id == message.id }) { return [] }
        thread.transcript.append(message)
        if thread.transcript.count > ChatAlertSettings.lineRange.upperBound {
            thread.transcript.removeFirst(thread.transcript.count - ChatAlertSettings.lineRange.upperBound)
        }
        self.upsert(key, .thread)
        guard self.isShowing else {
            self.threads[key] = thread
            return []
        }
        if let end = thread.windowEnd, now < end {
            thread.held = true
            self.threads[key] = thread
            return []
        }
        thread.windowEnd = now + self.configuration.coalesce
        thread.held = false
        self.threads[key] = thread
        return self.present(key)
    }
}
