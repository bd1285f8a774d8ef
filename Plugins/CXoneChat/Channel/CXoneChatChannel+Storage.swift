import AttendantPluginAPI
import AttendantPluginKit
import CXoneCore
import FoundationEssentials
import Synchronization

// What the chat keeps across restarts: ids and thread marks in the channel's store, unconfirmed messages in
// its outbox, the customer's access token in its secrets (never in the state database).
extension CXoneChatChannel {
    enum Key {
        static let visitorID = "visitor-id"
        static let customerID = "customer-id"
        static let threadIDs = "thread-ids"
        /// `shown.THREAD`: the thread's shown agent messages (``StoredShownMessages``, JSON).
        static let shownPrefix = "shown."
        /// `shown-through.THREAD`: what versions before the shown ids kept, seconds since 1970 of the
        /// newest message shown; read as the floor of a thread that has no `shown.` record yet.
        static let shownThroughPrefix = "shown-through."
        static let accessToken = "access-token"
        /// `contact.THREAD`: the thread is in the contact history; `open` or `ended`.
        static let contactPrefix = "contact."
    }

    /// An outbox entry as stored (JSON).
    struct StoredOutboxEntry: Codable, Sendable {
        var messageID: String
        var threadID: String
        var text: String
        var isWelcome: Bool
        var customFields: [String: String]
        var writtenAt: Double

        init(_ entry: ChatStateMachine.OutboxEntry) {
            self.messageID = entry.messageID
            self.threadID = entry.threadID
            self.text = entry.text
            self.isWelcome = entry.isWelcome
            self.customFields = entry.customFields
            self.writtenAt = entry.writtenAt.secondsSince1970
        }

        var entry: ChatStateMachine.OutboxEntry {
            ChatStateMachine.OutboxEntry(
                messageID: self.messageID, threadID: self.threadID, text: self.text, isWelcome: self.isWelcome,
                customFields: self.customFields, writtenAt: UnixTime(secondsSince1970: self.writtenAt)
            )
        }
    }

    /// A thread's shown agent messages as stored (JSON): ids with their times, and the floor.
    struct StoredShownMessages: Codable {
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
    struct StoredToken: Codable {
        var value: String
        var expiresAt: Double?
    }

    /// Makes the machine from what is stored, once.
    func loadIfNeeded() async throws {
        guard self.state.withLock({ $0.machine == nil }) else { return }
        var stored = ChatStateMachine.StoredValues()
        var contactThreads: [String: Bool] = [:]
        let decoder = JSONDecoder()
        do {
            let values = try await self.host.store.allValues()
            stored.visitorID = values[Key.visitorID]
            stored.customerID = values[Key.customerID]
            if let ids = values[Key.threadIDs] {
                stored.threadIDs = (try? decoder.decode([String].self, from: Data(ids.utf8))) ?? []
            }
            for (key, value) in values where key.hasPrefix(Key.shownPrefix) {
                if let record = try? decoder.decode(StoredShownMessages.self, from: Data(value.utf8)) {
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
            let (entries, unreadable) = try await self.outbox.load()
            for id in unreadable { self.host.logger.warning("\(self.prefix): dropped an outbox entry that cannot be read (id \(id))") }
            try await self.outbox.discard(unreadable)
            stored.outbox = entries.map(\.entry)
        } catch {
            throw ChannelError(.transient, "\(self.prefix): cannot read the channel's state: \(error)")
        }
        do {
            if let text = try await self.host.secrets.secret(forKey: Key.accessToken),
               let token = try? decoder.decode(StoredToken.self, from: Data(text.utf8))
            {
                stored.accessToken = ChannelToken(value: token.value, expiresAt: token.expiresAt.map { UnixTime(secondsSince1970: $0) })
            }
        } catch {
            self.host.logger.warning("\(self.prefix): cannot read the stored access token (\(error)); the customer is authorized afresh")
        }
        let machine = ChatStateMachine(stored: stored, configuration: self.configuration.machine)
        if !stored.outbox.isEmpty {
            self.host.logger.info("\(self.prefix): \(stored.outbox.count) message(s) wait in the outbox from before; they go out once connected")
        }
        self.state.withLock { state in
            guard state.machine == nil else { return }
            state.machine = machine
            state.contactThreads = contactThreads
        }
    }

    func persist(_ value: ChatStateMachine.StoredValue) async {
        do {
            switch value {
            case .visitorID(let id):
                try await self.host.store.setValue(id, forKey: Key.visitorID)
            case .customerID(let id):
                try await self.host.store.setValue(id, forKey: Key.customerID)
            case .threadIDs(let ids):
                let text = String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)
                try await self.host.store.setValue(text, forKey: Key.threadIDs)
            case .shownMessages(let threadID, let shown):
                let text = String(decoding: try JSONEncoder().encode(StoredShownMessages(shown)), as: UTF8.self)
                try await self.host.store.setValue(text, forKey: Key.shownPrefix + threadID.lowercased())
            case .accessToken(let token):
                let text = try token.map { String(decoding: try JSONEncoder().encode(StoredToken(value: $0.value, expiresAt: $0.expiresAt?.secondsSince1970)), as: UTF8.self) }
                try await self.host.secrets.setSecret(text, forKey: Key.accessToken)
            }
        } catch {
            self.host.logger.error("\(self.prefix): could not store the chat's \(Self.name(of: value)): \(error)")
        }
    }

    func persist(_ entry: ChatStateMachine.OutboxEntry) async {
        do {
            // The worker does the machine's actions in order, so a confirmation's removeFromOutbox comes
            // after this and finds the entry.
            try await self.outbox.add(StoredOutboxEntry(entry))
        } catch {
            self.host.logger.error("\(self.prefix): could not keep message \(entry.messageID) in the outbox: \(error); it is sent but would be lost if the daemon stopped now")
        }
    }

    func removeFromOutbox(_ messageID: String) async {
        do {
            try await self.outbox.remove(messageID.lowercased())
        } catch {
            self.host.logger.error("\(self.prefix): could not remove message \(messageID) from the outbox: \(error)")
        }
    }

    static func name(of value: ChatStateMachine.StoredValue) -> String {
        switch value {
        case .visitorID: "visitor id"
        case .customerID: "customer id"
        case .threadIDs: "thread ids"
        case .shownMessages: "shown message ids"
        case .accessToken: "access token"
        }
    }
}
