package import AttendantPluginAPI
import AttendantPluginKit

// Which agent messages were shown: decided by message id, kept per thread, so each agent message is
// reported once whatever the resolution of the server's clock (CXone's `createdAt` has whole seconds).
extension ChatStateMachine {
    /// The agent messages of one thread that were shown (reported) or met as history, as stored.
    ///
    /// A thread with a record is known: an agent message it does not hold is news (it came while the
    /// daemon was stopped or the machine asleep). A thread with no record is met for the first time: its
    /// history is not news; one met in the thread list, by its last message only, is recorded with the
    /// floor at that message's time, so the history before it is not news either when it is opened. The
    /// list is bounded; ids dropped from its head leave ``floor`` behind, and a message sent at or before
    /// the floor counts as shown.
    package struct ShownMessages: Sendable, Hashable {
        package struct Entry: Sendable, Hashable {
            /// The message id, lower-cased.
            package var id: String
            package var sentAt: UnixTime

            package init(id: String, sentAt: UnixTime) {
                self.id = id.lowercased()
                self.sentAt = sentAt
            }
        }

        /// The latest agent messages shown, oldest first.
        package var entries: [Entry]
        /// Messages sent at or before this time count as shown (ids dropped to keep ``entries`` bounded,
        /// the last message of a thread met in the thread list, or the time mark an older version stored).
        package var floor: UnixTime?

        package init(entries: [Entry] = [], floor: UnixTime? = nil) {
            self.entries = entries
            self.floor = floor
        }

        package func contains(_ message: ChatMessage) -> Bool {
            if let floor, message.sentAt <= floor { return true }
            let id = message.id.lowercased()
            // By index, so no entry is copied (and retained) to compare its id.
            for index in self.entries.indices where self.entries[index].id == id { return true }
            return false
        }

        /// Adds a message, dropping the oldest beyond `limit`; false if it was there already.
        mutating func insert(_ message: ChatMessage, limit: Int) -> Bool {
            guard !self.contains(message) else { return false }
            self.entries.append(Entry(id: message.id, sentAt: message.sentAt))
            while self.entries.count > max(1, limit) {
                let dropped = self.entries.removeFirst()
                self.floor = max(self.floor ?? dropped.sentAt, dropped.sentAt)
            }
            return true
        }
    }

    /// Whether a message met while loading a thread is one to show: an agent's, not met before in this
    /// run, and not among the thread's shown messages (nor older than its floor). `shown` is the thread's
    /// record as it was before this load; nil: the thread is met for the first time. Then, when recovering a
    /// lost connection or after a sleep, all of it came meanwhile; otherwise its messages are history, but
    /// for those written after an earlier run last had the thread list, which came while the daemon was not
    /// there to see them.
    mutating func isUnshown(_ message: ChatMessage, shown: ShownMessages?) -> Bool {
        guard self.activity.firstMeeting(message.id), message.direction == .fromAgent else { return false }
        if let shown { return !shown.contains(message) }
        if self.isRecovering { return true }
        return self.listedBefore.map { message.sentAt + Self.clockSkew > $0 } ?? false
    }

    /// How far the server's clock (messages' times) may be behind the daemon's (``listedBefore``): a
    /// message that much older than the last list still counts as written after it.
    static let clockSkew: Duration = .seconds(300)

    /// A thread on the list this channel has never met, when an earlier run had the list: it appeared
    /// since, while the daemon was not there to see it (stopped, killed, the machine off), or the daemon
    /// stopped before it had loaded it. It is recovered whole, and its agent messages written since are
    /// news (``isUnshown(_:shown:)``), as a thread new to the list after a reconnect. On the channel's
    /// first run every thread is history, met by its metadata.
    func isFresh(_ threadID: String) -> Bool {
        self.listedBefore != nil && self.persisted.shownMessages[threadID.lowercased()] == nil
    }

    /// Remembers (and stores) that these messages of a thread were shown, and that the thread is known.
    ///
    /// `historyThrough`: for a thread met for the first time by less than its history (multi-thread:
    /// LoadThreadMetadata gives its last message only), the time of the latest message met; what was sent
    /// until then is its history, not news, when the thread is loaded (`chat open`: RecoverThread).
    ///
    /// The record is changed in place in the stored values, not copied out and compared back: it holds
    /// up to ``Configuration/shownMessagesLimit`` ids, and this runs for every agent message.
    mutating func markShown(_ messages: [ChatMessage], in threadID: String, historyThrough: UnixTime? = nil) -> [Action] {
        let key = threadID.lowercased()
        // A thread met for the first time is recorded even with no agent message: it is known now.
        var changed = self.persisted.shownMessages[key] == nil
        if changed { self.persisted.shownMessages[key] = ShownMessages(floor: historyThrough) }
        let limit = self.configuration.shownMessagesLimit
        for message in messages where message.direction == .fromAgent {
            if self.persisted.shownMessages[key, default: ShownMessages()].insert(message, limit: limit) { changed = true }
        }
        guard changed, let record = self.persisted.shownMessages[key] else { return [] }
        return [.store(.shownMessages(threadID: key, record))]
    }

    /// Texts the SDK sends or receives as protocol markers, never shown as messages: the live chat's
    /// `__Begin Live Chat Conversation__`, with which the SDK opens a live chat thread (its
    /// `ChatThreadService.shouldIgnoreMessage` hides it from the history).
    package static let internalMarkers: Set<String> = ["__Begin Live Chat Conversation__"]

    static func isInternalMarker(_ message: ChatMessage) -> Bool {
        Self.internalMarkers.contains(message.text)
    }
}
