/// The messages the user wrote that the server has not confirmed yet, oldest first.
///
/// An entry stays (and the driver keeps it stored) until its MessageCreated arrives, a recovered thread
/// holds it, or the server refuses it; it keeps its message id, so the server takes it once however often
/// it is sent. Each connection sends every entry once, in order: what a connection sent is its ``Sent``,
/// which ends with it, so the next connection sends again what is still here.
package struct ChatOutbox: Sendable, Hashable {
    package typealias Entry = ChatStateMachine.OutboxEntry

    /// What one connection has sent, by message id (compared case-insensitively).
    package struct Sent: Sendable, Hashable {
        private var ids: Set<String> = []

        package init() {}

        package func contains(_ messageID: String) -> Bool {
            self.ids.contains(messageID.lowercased())
        }

        package mutating func insert(_ messageID: String) {
            self.ids.insert(messageID.lowercased())
        }
    }

    /// The entries, oldest first.
    package private(set) var entries: [Entry]

    package init(_ entries: [Entry] = []) {
        self.entries = entries
    }

    package mutating func add(_ entry: Entry) {
        self.entries.append(entry)
    }

    /// The entry of a message id (ids compare case-insensitively).
    package func entry(_ messageID: String) -> Entry? {
        self.entries.first { ChatStateMachine.sameID($0.messageID, messageID) }
    }

    /// The server has the message (or refused it for good): its entry leaves the outbox.
    package mutating func remove(_ messageID: String) -> Entry? {
        guard let index = self.entries.firstIndex(where: { ChatStateMachine.sameID($0.messageID, messageID) }) else { return nil }
        return self.entries.remove(at: index)
    }

    /// What a connection that sent `sent` has still to send, oldest first.
    package func unsent(on sent: Sent) -> [Entry] {
        self.entries.filter { !sent.contains($0.messageID) }
    }

    /// Whether the message went out on the connection that sent `sent` and was not confirmed yet.
    package func awaitsConfirmation(_ messageID: String, sent: Sent) -> Bool {
        sent.contains(messageID) && self.entry(messageID) != nil
    }
}
