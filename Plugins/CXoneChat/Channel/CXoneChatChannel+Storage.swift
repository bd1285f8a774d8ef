import AttendantPluginAPI
import AttendantPluginKit
import CXoneCore
import Synchronization

// What the chat keeps across restarts (CXoneCore's ``ChatStorage`` decides where and in what form): ids and
// thread marks in the channel's store, unconfirmed messages in its outbox, the customer's access token in
// its secrets (never in the state database).
extension CXoneChatChannel {
    /// Makes the machine from what is stored, once.
    func loadIfNeeded() async throws {
        guard !self.driver.isLoaded else { return }
        var (stored, contacts): (ChatStateMachine.StoredValues, ChatContactHistory)
        do {
            (stored, contacts) = ChatStorage.read(try await self.host.store.allValues())
            let (entries, unreadable) = try await self.outbox.load()
            for id in unreadable { self.host.logger.warning("\(self.prefix): dropped an outbox entry that cannot be read (id \(id))") }
            try await self.outbox.discard(unreadable)
            stored.outbox = entries.map(\.entry)
        } catch {
            throw ChannelError(.transient, "\(self.prefix): cannot read the channel's state: \(error)")
        }
        do {
            stored.accessToken = try await self.host.secrets.secret(forKey: ChatStorage.Key.accessToken).flatMap(ChatStorage.accessToken(fromSecret:))
        } catch {
            self.host.logger.warning("\(self.prefix): cannot read the stored access token (\(error)); the customer is authorized afresh")
        }
        let machine = ChatStateMachine(stored: stored, configuration: self.configuration.machine)
        if !stored.outbox.isEmpty {
            self.host.logger.info("\(self.prefix): \(stored.outbox.count) message(s) wait in the outbox from before; they go out once connected")
        }
        self.driver.load(ChatSession(machine: machine, contacts: contacts, settings: self.settings))
    }

    func persist(_ entry: ChatStateMachine.OutboxEntry) async {
        do {
            // The worker does the machine's actions in order, so a confirmation's removeFromOutbox comes
            // after this and finds the entry.
            try await self.outbox.add(ChatStorage.OutboxRecord(entry))
        } catch {
            self.host.logger.error(
                "\(self.prefix): could not keep message \(entry.messageID) in the outbox: \(error); it is sent but would be lost if the daemon stopped now"
            )
        }
    }

    func removeFromOutbox(_ messageID: String) async {
        do {
            try await self.outbox.remove(messageID.lowercased())
        } catch {
            self.host.logger.error("\(self.prefix): could not remove message \(messageID) from the outbox: \(error)")
        }
    }
}
