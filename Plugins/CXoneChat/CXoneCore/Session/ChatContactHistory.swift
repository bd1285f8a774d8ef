package import AttendantPluginAPI

/// The contact history of a chat: a thread an agent writes in (an agent opening a conversation, or
/// answering one) is one incoming chat contact, recorded once, also across restarts; the thread's close
/// ends it. The contact names its thread (``Contact/threadID``), so the host raises no alert of its own
/// for it: the agent's message already alerts.
package struct ChatContactHistory: Sendable, Equatable {
    /// A change to the history, to keep (``ChatStorage/contactRecord(threadID:ended:)``) and to tell the host.
    package enum Change: Sendable, Equatable {
        case started(Contact)
        case ended(contactID: String)

        /// The thread (lower case), which is the contact's id.
        package var threadID: String {
            switch self {
            case .started(let contact): contact.id
            case .ended(let id): id
            }
        }

        package var ended: Bool {
            if case .ended = self { true } else { false }
        }

        package var event: ChannelEvent {
            switch self {
            case .started(let contact): .incomingContact(contact)
            case .ended(let id): .contactEnded(contactID: id, outcome: .completed)
            }
        }
    }

    /// Threads recorded as contacts (lower case), and whether their contact has ended.
    package private(set) var threads: [String: Bool]

    package init(threads: [String: Bool] = [:]) {
        self.threads = threads
    }

    /// The change a machine report makes, if any; `threadName` names a thread (lower case) for the summary.
    package mutating func note(_ report: ChatStateMachine.Report, threadName: (String) -> String?) -> Change? {
        switch report {
        case .messageReceived(let message) where message.direction == .fromAgent && message.kind == .message:
            let key = message.threadID.lowercased()
            guard self.threads[key] == nil else { return nil }
            self.threads[key] = false
            let name = threadName(key) ?? ""
            var contact = Contact(
                id: key,
                kind: .chat,
                from: message.sender,
                summary: name.isEmpty ? "Conversation with \(message.sender.displayName)" : name,
                receivedAt: message.sentAt
            )
            contact.threadID = key
            return .started(contact)
        case .threadUpdated(let thread) where thread.state == .closed:
            let key = thread.id.lowercased()
            guard self.threads[key] == false else { return nil }
            self.threads[key] = true
            return .ended(contactID: key)
        default:
            return nil
        }
    }
}
