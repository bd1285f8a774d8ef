import AttendantPluginAPI
import AttendantPluginKit
import GMSCore
import Synchronization

// What the chat keeps across restarts, read back at start: its local thread id and the highest transcript
// position shown in the channel's store; GMS's keys of the chat in its secrets (never in the state database).
// The session decides the writes (``GMSChatSession/StoreKey``, ``GMSChatKeys/writes(_:)``), the kit's
// driver does them.
extension GMSChatChannel {
    /// Reads what the store and the secrets hold, once.
    func loadIfNeeded() async throws {
        guard !self.driver.isLoaded else { return }
        let stored: Session.Stored
        do {
            var secrets: [String: String] = [:]
            for name in GMSChatKeys.secretNames { secrets[name] = try await self.host.secrets.secret(forKey: name) }
            stored = Session.Stored(store: try await self.host.store.allValues(), secrets: secrets)
        } catch {
            throw ChannelError(.transient, "\(self.prefix): could not read the chat's stored state: \(error)")
        }
        let settings = Session.Settings(
            apiVersion: self.configuration.apiVersion,
            service: self.configuration.service,
            serverDescription: self.serverDescription,
            networkDelay: self.configuration.machine.networkDelay,
            makeThreadID: Self.newThreadID
        )
        let session = Session(settings: settings, transport: self.bayeux, stored: stored)
        if self.driver.load(session), session.phase == .active {
            self.host.logger.info("\(self.prefix): resuming the chat with \(self.serverDescription) after transcript position \(stored.position)")
        }
    }

    /// A new local id for a chat's thread.
    static func newThreadID() -> String {
        var random = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return "gms-" + String((0..<16).map { _ in digits[Int(random.next() % 16)] })
    }
}
