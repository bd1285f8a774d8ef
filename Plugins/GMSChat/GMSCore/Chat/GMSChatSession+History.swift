package import AttendantPluginAPI
import AttendantPluginKit

/// A fetch of the thread's older rows under way (``GMSChatSession/Work/fetchRows(_:from:)``).
struct GMSChatHistoryFetch: Sendable {
    /// The position the fetch asked GMS to re-send the rows from.
    var from: Int
    /// The callers waiting, by request id, with what each asked for.
    var waiting: [UInt64: GMSChatHistoryWant] = [:]
}

/// What a caller waiting for a fetch asked for.
enum GMSChatHistoryWant: Sendable {
    /// `open-thread`: the thread with its last messages.
    case latest
    /// `load-older-messages`: the page before those given.
    case older
}

// Reading the thread back: `list-threads` and `open-thread` give its last messages, `load-older-messages`
// pages back through what is held, fetching older rows (v2 `requestNotifications` from an older position)
// when they are not held.
extension GMSChatSession {
    /// `list-threads`: the chat's thread, if it had one, with its last messages held.
    package mutating func listThreads() -> [ChatThread] {
        guard var thread = self.bareThread else { return [] }
        thread.lastMessages = self.history.latest()
        return [thread]
    }

    /// `open-thread`: the chat's thread with its last messages; when fewer than a page is held and
    /// older rows exist (after a restart), they are fetched first, for at most the network delay.
    package mutating func openThread(_ id: UInt64, threadID: String) throws(ChannelError) -> [Action] {
        guard var thread = self.bareThread, thread.id == threadID else { throw self.noThread(threadID) }
        if self.history.latestNeedsFetch,
            let fetch = self.fetchRows(from: max(1, self.history.coveredFrom - GMSChatHistory.pageSize * 2), id, .latest)
        {
            return fetch
        }
        thread.lastMessages = self.history.latest()
        return [.replied(id, .success(.thread(thread)))]
    }

    /// `load-older-messages`: the page before the oldest message given, as the thread's `lastMessages`
    /// (empty: the conversation's start). Rows that are not held are fetched on chat API v2 (v1's
    /// `refresh` re-sends nothing older: what is held is all there is).
    package mutating func loadOlderMessages(_ id: UInt64, threadID: String?) throws(ChannelError) -> [Action] {
        guard var thread = self.bareThread, threadID == nil || thread.id == threadID else { throw self.noThread(threadID ?? "") }
        switch self.history.older(mayFetch: self.mayFetchRows) {
        case .page(let page):
            thread.lastMessages = page
            return [.replied(id, .success(.thread(thread)))]
        case .fetch(let from):
            return self.fetchRows(from: from, id, .older) ?? []
        }
    }

    /// The fetch's request went out, or failed (then the callers hear what is held).
    package mutating func historyFetchAsked(succeeded: Bool) -> [Action] {
        succeeded ? [] : self.historyFetchEnded()
    }

    /// A file of a held message, with the chat's keys to fetch it (nil once the chat ended: GMS serves
    /// a chat's files while it lasts).
    package func attachment(messageID: String, attachmentID: String) throws(ChannelError) -> (ChatAttachment, GMSChatKeys) {
        guard let message = self.history.messages.first(where: { $0.id == messageID }) else {
            throw ChannelError(.invalidArgument, "\(self.prefix): no message \(messageID) is held in this chat; `attendantctl chat open` lists them")
        }
        guard let attachment = message.attachments.first(where: { $0.id == attachmentID }) else {
            let held = message.attachments.map(\.id).joined(separator: ", ")
            throw ChannelError(
                .invalidArgument,
                "\(self.prefix): message \(messageID) has no file \(attachmentID)\(held.isEmpty ? "" : "; its files: \(held)")"
            )
        }
        guard let keys = self.keys, self.phase == .active else {
            throw ChannelError(.illegalState, "\(self.prefix): the chat has ended; \(self.server) serves a chat's files only while it lasts")
        }
        return (attachment, keys)
    }

    // MARK: Inside the session

    /// Rows are fetched with v2 `requestNotifications`, which needs the chat's secure key.
    var mayFetchRows: Bool { self.settings.apiVersion == 2 && self.keys?.secureKey != nil }

    /// Has request `id` wait for the rows from `from`: a new fetch, or the one under way (whose answer
    /// is what there is). Nil when rows
    /// cannot be fetched.
    mutating func fetchRows(from: Int, _ id: UInt64, _ want: GMSChatHistoryWant) -> [Action]? {
        guard let keys = self.keys, self.mayFetchRows else { return nil }
        if self.historyFetch != nil {
            self.historyFetch?.waiting[id] = want
            return []
        }
        self.historyFetch = GMSChatHistoryFetch(from: from, waiting: [id: want])
        return [.work(.fetchRows(keys, from: from)), .setTimer(.historyFetch, after: self.settings.networkDelay)]
    }

    /// Rows came: those already shown are the history's (a replay of what the ledger drops), and a fetch
    /// whose first row came is answered.
    mutating func holdReplayed(_ rows: [GMSTranscriptEvent], threadID: String, now: UnixTime) -> [Action] {
        for row in rows where row.position <= self.transcript.shown {
            self.history.hold(row.chatMessage(threadID: threadID, receivedAt: now))
        }
        guard let fetch = self.historyFetch, let first = rows.map(\.position).min(), first <= fetch.from else { return [] }
        self.history.replayed(from: fetch.from)
        return self.historyFetchEnded()
    }

    /// The fetch ended (its rows came, it failed or its time is up): every caller hears what is held.
    mutating func historyFetchEnded() -> [Action] {
        guard let fetch = self.historyFetch else { return [] }
        self.historyFetch = nil
        var actions: [Action] = [.cancelTimer(.historyFetch)]
        for (id, want) in fetch.waiting.sorted(by: { $0.key < $1.key }) {
            guard var thread = self.bareThread else {
                actions.append(.replied(id, .failure(self.noThread(""))))
                continue
            }
            switch want {
            case .latest:
                thread.lastMessages = self.history.latest()
            case .older:
                if case .page(let page) = self.history.older(mayFetch: false) { thread.lastMessages = page }
            }
            actions.append(.replied(id, .success(.thread(thread))))
        }
        return actions
    }

    func noThread(_ threadID: String) -> ChannelError {
        guard let ours = self.threadID else {
            return ChannelError(
                .illegalState,
                "\(self.prefix): there is no chat thread \(threadID) here; start a chat with `attendantctl chat connect`"
            )
        }
        return ChannelError(.invalidArgument, "\(self.prefix): no thread \(threadID) here; the chat's thread is \(ours)")
    }
}
