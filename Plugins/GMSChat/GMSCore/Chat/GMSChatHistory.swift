package import AttendantPluginAPI

/// What the chat's thread shows when it is read back (`list-threads`, `open-thread`,
/// `load-older-messages`): the transcript's rows the session held, as chat messages in position order,
/// and how far back the host was given them.
///
/// Rows are held as they are shown, and as a replay brings them again: GMS v2 `requestNotifications`
/// re-sends every row from the `transcriptPosition` it is given (gms-cometd.md §2, C2: "0 … all the
/// events"), so rows that are not held (after a restart, or beyond ``limit``) are fetched that way.
/// Typing notices are not held: the transcript does not show them.
package struct GMSChatHistory: Sendable, Hashable {
    /// How many messages a page has: the thread's last messages, and each older page.
    package static let pageSize = 20

    /// Held messages, oldest first, each with its transcript position.
    package private(set) var messages: [ChatMessage] = []
    /// Every row from this position up to the last shown is held (or was a typing notice): older rows
    /// must be fetched. 1 for a chat held from its start.
    package private(set) var coveredFrom: Int
    /// The oldest position given to the host so far; nil: none given yet.
    package private(set) var oldestGiven: Int?
    /// Beyond this many messages, the oldest are let go.
    package let limit: Int

    /// The history of a chat shown up to `shown`, none of it held (1 past it: a new chat's, or one resumed).
    package init(shown: Int = 0, limit: Int = 500) {
        self.coveredFrom = shown + 1
        self.limit = limit
    }

    /// Holds the message of a row shown now, or replayed (a row the history did not hold yet).
    package mutating func hold(_ message: ChatMessage) {
        guard let position = message.transcriptPosition, message.kind != .typingStarted, message.kind != .typingStopped else { return }
        let index = self.messages.firstIndex { ($0.transcriptPosition ?? 0) >= position } ?? self.messages.endIndex
        if index < self.messages.endIndex, self.messages[index].transcriptPosition == position { return }
        self.messages.insert(message, at: index)
        if self.messages.count > self.limit {
            let dropped = self.messages.removeFirst()
            self.coveredFrom = max(self.coveredFrom, (dropped.transcriptPosition ?? 0) + 1)
        }
    }

    /// A replay from `position` was answered: every row from there on came (GMS re-sends them all),
    /// unless the oldest were let go again beyond the limit.
    package mutating func replayed(from position: Int) {
        guard position < self.coveredFrom else { return }
        let full = self.messages.count >= self.limit
        self.coveredFrom = full ? max(position, self.messages.first?.transcriptPosition ?? position) : position
    }

    /// The thread's last messages; they are what the host was given last.
    package mutating func latest() -> [ChatMessage] {
        let page = Array(self.messages.suffix(Self.pageSize))
        self.oldestGiven = page.first?.transcriptPosition
        return page
    }

    /// What an older page needs.
    package enum Older: Sendable, Hashable {
        /// The page before those given, oldest first (empty: the conversation's start).
        case page([ChatMessage])
        /// Rows before those held are missing: fetch every row from `position`, then ask again.
        case fetch(from: Int)
    }

    /// The page before the oldest message given. `mayFetch`: whether rows that are not held may be
    /// fetched (else the page is what is held).
    package mutating func older(mayFetch: Bool) -> Older {
        let before = self.oldestGiven ?? Int.max
        let page = Array(self.messages.filter { ($0.transcriptPosition ?? 0) < before }.suffix(Self.pageSize))
        if mayFetch, page.count < Self.pageSize, self.coveredFrom > 1 {
            return .fetch(from: max(1, min(self.coveredFrom, before) - Self.pageSize * 2))
        }
        if let first = page.first?.transcriptPosition { self.oldestGiven = first }
        return .page(page)
    }

    /// Whether the last page needs rows that are not held: fewer than a page is held, and older rows exist.
    package var latestNeedsFetch: Bool { self.messages.count < Self.pageSize && self.coveredFrom > 1 }
}
