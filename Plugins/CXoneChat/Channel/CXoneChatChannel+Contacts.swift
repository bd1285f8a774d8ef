import AttendantPluginAPI
import CXoneCore
import Synchronization

// The contact history: a thread an agent writes in (an agent opening a conversation, or answering one)
// is one incoming chat contact, recorded once, also across restarts; the thread's close ends it.
extension CXoneChatChannel {
    /// Emits the contact events a machine report brings, before the report itself reaches the host.
    /// The contact names its thread (``Contact/threadID``), so the host raises no alert of its own for
    /// it: the agent's message already alerts.
    func recordContact(_ report: Report) async {
        switch report {
        case .messageReceived(let message) where message.direction == .fromAgent && message.kind == .message:
            let key = message.threadID.lowercased()
            guard let name = self.state.withLock({ state -> String? in
                guard state.contactThreads[key] == nil else { return nil }
                state.contactThreads[key] = false
                return state.machine?.thread(key)?.name ?? ""
            }) else { return }
            await self.storeContact(key, ended: false)
            var contact = Contact(
                id: key,
                kind: .chat,
                from: message.sender,
                summary: name.isEmpty ? "Conversation with \(message.sender.displayName)" : name,
                receivedAt: message.sentAt
            )
            contact.threadID = key
            self.host.emit(.incomingContact(contact))
        case .threadUpdated(let thread) where thread.state == .closed:
            let key = thread.id.lowercased()
            let ending = self.state.withLock { state -> Bool in
                guard state.contactThreads[key] == false else { return false }
                state.contactThreads[key] = true
                return true
            }
            guard ending else { return }
            await self.storeContact(key, ended: true)
            self.host.emit(.contactEnded(contactID: key, outcome: .completed))
        default:
            return
        }
    }

    func storeContact(_ threadID: String, ended: Bool) async {
        do {
            try await self.host.store.setValue(ended ? "ended" : "open", forKey: Key.contactPrefix + threadID)
        } catch {
            self.host.logger.error("\(self.prefix): could not note that thread \(threadID) is in the contact history: \(error); it may be recorded again after a restart")
        }
    }
}
