import AttendantPluginAPI
import AttendantPluginKit
import CXoneCore

// What the chat keeps across restarts (CXoneCore's ``ChatStorage`` decides where and in what form, and
// ``ChatSession/loaded(_:configuration:settings:)`` what the session is of it): ids and thread marks in the
// channel's store, unconfirmed messages in its outbox, the customer's access token in its secrets (never
// in the state database). Here are only the reads and writes.
extension CXoneChatChannel {
    /// Makes the session from what is stored, once.
    func loadIfNeeded() async throws {
        guard !self.driver.isLoaded else { return }
        let values: [String: String]
        let (entries, unreadable): ([ChatStorage.OutboxRecord], [Int64])
        do {
            values = try await self.host.store.allValues()
            (entries, unreadable) = try await self.outbox.load()
            try await self.outbox.discard(unreadable)
        } catch {
            throw ChannelError(.transient, "\(self.prefix): cannot read the channel's state: \(error)")
        }
        let secret: Result<String?, any Error>
        do {
            secret = .success(try await self.host.secrets.secret(forKey: ChatStorage.Key.accessToken))
        } catch {
            secret = .failure(error)
        }
        let stored = ChatSession.Stored(values: values, outbox: entries, unreadable: unreadable, secret: secret)
        let (session, log) = ChatSession.loaded(stored, configuration: self.configuration.machine, settings: self.settings)
        for line in log { self.host.logger.log(level: line.level, "\(line.message)") }
        self.driver.load(session)
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
