package import AttendantPluginAPI
package import AttendantPluginKit
internal import FoundationEssentials

/// What a CXone chat keeps across restarts, as text under keys of the channel's store: the visitor and
/// customer ids, the thread ids, the agent messages shown per thread and the contact-history marks. The
/// customer's access token goes to the channel's secrets instead (never the state database), and
/// unconfirmed messages to its outbox (``OutboxRecord``).
///
/// The driver does the reading and writing; this decides what is kept where and in what form, so the
/// layout is one place and is tested without a store.
package enum ChatStorage {
    package enum Key {
        package static let visitorID = "visitor-id"
        package static let customerID = "customer-id"
        package static let threadIDs = "thread-ids"
        /// When the channel last had the thread list, seconds since 1970.
        package static let threadsListedAt = "threads-listed-at"
        /// `shown.THREAD`: the thread's shown agent messages (``ShownRecord``, JSON).
        package static let shownPrefix = "shown."
        /// `shown-through.THREAD`: what versions before the shown ids kept, seconds since 1970 of the
        /// newest message shown; read as the floor of a thread that has no `shown.` record yet.
        package static let shownThroughPrefix = "shown-through."
        /// In the secrets, not the store.
        package static let accessToken = "access-token"
        /// `contact.THREAD`: the thread is in the contact history; `open` or `ended`.
        package static let contactPrefix = "contact."
    }

    /// What the store's values hold: the machine's stored values (less the outbox and the token, which
    /// are kept elsewhere) and the contact history. Records that cannot be read are left out.
    package static func read(_ values: [String: String]) -> (stored: ChatStateMachine.StoredValues, contacts: ChatContactHistory) {
        var stored = ChatStateMachine.StoredValues()
        var contactThreads: [String: Bool] = [:]
        let decoder = JSONDecoder()
        stored.visitorID = values[Key.visitorID]
        stored.customerID = values[Key.customerID]
        if let ids = values[Key.threadIDs] {
            stored.threadIDs = (try? decoder.decode([String].self, from: Data(ids.utf8))) ?? []
        }
        stored.threadsListedAt = values[Key.threadsListedAt].flatMap(Double.init).map { UnixTime(secondsSince1970: $0) }
        for (key, value) in values where key.hasPrefix(Key.shownPrefix) {
            if let record = try? decoder.decode(ShownRecord.self, from: Data(value.utf8)) {
                stored.shownMessages[String(key.dropFirst(Key.shownPrefix.count))] = record.shown
            }
        }
        for (key, value) in values where key.hasPrefix(Key.shownThroughPrefix) {
            let thread = String(key.dropFirst(Key.shownThroughPrefix.count))
            if stored.shownMessages[thread] == nil, let seconds = Double(value) {
                stored.shownMessages[thread] = ChatStateMachine.ShownMessages(floor: UnixTime(secondsSince1970: seconds))
            }
        }
        for (key, value) in values where key.hasPrefix(Key.contactPrefix) {
            contactThreads[String(key.dropFirst(Key.contactPrefix.count))] = value == "ended"
        }
        return (stored, ChatContactHistory(threads: contactThreads))
    }

    /// The access token kept in the secrets; nil when the text is not one.
    package static func accessToken(fromSecret text: String) -> ChannelToken? {
        guard let token = try? JSONDecoder().decode(TokenRecord.self, from: Data(text.utf8)) else { return nil }
        return ChannelToken(value: token.value, expiresAt: token.expiresAt.map { UnixTime(secondsSince1970: $0) })
    }

    /// Where and how the machine's ``ChatStateMachine/Action/store(_:)`` value is kept.
    package static func record(for value: ChatStateMachine.StoredValue) throws -> StoreWrite {
        let what = "the chat's \(Self.name(of: value))"
        switch value {
        case .visitorID(let id):
            return StoreWrite(.store, key: Key.visitorID, value: id, what: what)
        case .customerID(let id):
            return StoreWrite(.store, key: Key.customerID, value: id, what: what)
        case .threadIDs(let ids):
            return StoreWrite(.store, key: Key.threadIDs, value: try self.json(ids), what: what)
        case .shownMessages(let threadID, let shown):
            return StoreWrite(.store, key: Key.shownPrefix + threadID.lowercased(), value: try self.json(ShownRecord(shown)), what: what)
        case .threadsListedAt(let time):
            return StoreWrite(.store, key: Key.threadsListedAt, value: String(time.secondsSince1970), what: what)
        case .accessToken(let token):
            let text = try token.map { try self.json(TokenRecord(value: $0.value, expiresAt: $0.expiresAt?.secondsSince1970)) }
            return StoreWrite(.secrets, key: Key.accessToken, value: text, what: what)
        }
    }

    /// The mark that `threadID` (lower case) is in the contact history.
    package static func contactRecord(threadID: String, ended: Bool) -> StoreWrite {
        StoreWrite(
            .store,
            key: Key.contactPrefix + threadID,
            value: ended ? "ended" : "open",
            what: "that thread \(threadID) is in the contact history",
            ifLost: "it may be recorded again after a restart"
        )
    }

    /// What a stored value is called in a log line.
    package static func name(of value: ChatStateMachine.StoredValue) -> String {
        switch value {
        case .visitorID: "visitor id"
        case .customerID: "customer id"
        case .threadIDs: "thread ids"
        case .shownMessages: "shown message ids"
        case .threadsListedAt: "time of the last thread list"
        case .accessToken: "access token"
        }
    }

    private static func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    // MARK: Records

    /// An outbox entry as the outbox keeps it (JSON), under its message id in lower case.
    package struct OutboxRecord: Codable, Sendable {
        var messageID: String
        var threadID: String
        var text: String
        var isWelcome: Bool
        var customFields: [String: String]
        var writtenAt: Double
        /// An answer's postback and whether it answers an inactivity popup (absent in older records).
        var postback: String?
        var isInactivityPopupAnswer: Bool?
        /// The files the message carries (absent in older records).
        var attachments: [ChatStateMachine.SentFile]?

        package init(_ entry: ChatStateMachine.OutboxEntry) {
            self.attachments = entry.attachments.isEmpty ? nil : entry.attachments
            self.messageID = entry.messageID
            self.threadID = entry.threadID
            self.text = entry.text
            self.isWelcome = entry.isWelcome
            self.customFields = entry.customFields
            self.writtenAt = entry.writtenAt.secondsSince1970
            self.postback = entry.answer?.postback
            self.isInactivityPopupAnswer = entry.answer.map(\.isInactivityPopupAnswer)
        }

        package var key: String { self.messageID.lowercased() }

        package var entry: ChatStateMachine.OutboxEntry {
            ChatStateMachine.OutboxEntry(
                messageID: self.messageID,
                threadID: self.threadID,
                text: self.text,
                isWelcome: self.isWelcome,
                customFields: self.customFields,
                writtenAt: UnixTime(secondsSince1970: self.writtenAt),
                answer: self.postback.map { ChatStateMachine.Answer(postback: $0, isInactivityPopupAnswer: self.isInactivityPopupAnswer ?? false) },
                attachments: self.attachments ?? []
            )
        }
    }

    /// A thread's shown agent messages as stored (JSON): ids with their times, and the floor.
    struct ShownRecord: Codable {
        struct Entry: Codable {
            var id: String
            var at: Double
        }

        var messages: [Entry]
        var floor: Double?

        init(_ shown: ChatStateMachine.ShownMessages) {
            self.messages = shown.entries.map { Entry(id: $0.id, at: $0.sentAt.secondsSince1970) }
            self.floor = shown.floor?.secondsSince1970
        }

        var shown: ChatStateMachine.ShownMessages {
            ChatStateMachine.ShownMessages(
                entries: self.messages.map { .init(id: $0.id, sentAt: UnixTime(secondsSince1970: $0.at)) },
                floor: self.floor.map { UnixTime(secondsSince1970: $0) }
            )
        }
    }

    /// The access token as kept in the secrets file.
    struct TokenRecord: Codable {
        var value: String
        var expiresAt: Double?
    }
}
