import AttendantPluginAPI
import AttendantPluginKit
import GMSCore
import Synchronization

// What the chat keeps across restarts: its local thread id and the highest transcript position shown in the
// channel's store; GMS's keys of the chat in its secrets (never in the state database).
extension GMSChatChannel {
    enum SecretKey {
        static let secureKey = "secure-key"
        static let chatID = "chat-id"
        static let userID = "user-id"
        static let alias = "alias"
        static let serviceID = "service-id"
    }

    /// Reads what the store and the secrets hold, once.
    func loadIfNeeded() async throws {
        guard !self.driver.isLoaded else { return }
        let stored: Session.Stored
        do {
            let store = self.host.store
            let secrets = self.host.secrets
            stored = Session.Stored(
                position: try await store.value(forKey: Session.StoreKey.position).flatMap { Int($0) } ?? 0,
                threadID: try await store.value(forKey: Session.StoreKey.thread),
                phase: try await store.value(forKey: Session.StoreKey.phase).flatMap(Session.Phase.init(rawValue:)) ?? .none,
                keys: GMSChatKeys(
                    secureKey: try await secrets.secret(forKey: SecretKey.secureKey),
                    chatID: try await secrets.secret(forKey: SecretKey.chatID),
                    userID: try await secrets.secret(forKey: SecretKey.userID),
                    alias: try await secrets.secret(forKey: SecretKey.alias),
                    serviceID: try await secrets.secret(forKey: SecretKey.serviceID)
                )
            )
        } catch {
            throw ChannelError(.transient, "\(self.prefix): could not read the chat's stored state: \(error)")
        }
        let settings = Session.Settings(
            apiVersion: self.configuration.apiVersion, service: self.configuration.service, serverDescription: self.serverDescription,
            networkDelay: self.configuration.machine.networkDelay, makeThreadID: Self.newThreadID
        )
        let session = Session(settings: settings, stored: stored)
        if self.driver.load(session), session.phase == .active {
            self.host.logger.info("\(self.prefix): resuming the chat with \(self.serverDescription) after transcript position \(stored.position)")
        }
    }

    func persist(_ value: String?, key: String) async {
        do {
            try await self.host.store.setValue(value, forKey: key)
        } catch {
            self.host.logger.error("\(self.prefix): could not store \(key): \(error)")
        }
    }

    func persistKeys(_ keys: GMSChatKeys?) async {
        let secrets = self.host.secrets
        do {
            try await secrets.setSecret(keys?.secureKey, forKey: SecretKey.secureKey)
            try await secrets.setSecret(keys?.chatID, forKey: SecretKey.chatID)
            try await secrets.setSecret(keys?.userID, forKey: SecretKey.userID)
            try await secrets.setSecret(keys?.alias, forKey: SecretKey.alias)
            try await secrets.setSecret(keys?.serviceID, forKey: SecretKey.serviceID)
        } catch {
            self.host.logger.error("\(self.prefix): could not keep the chat's keys in the secrets file: \(error)")
        }
    }

    /// A new local id for a chat's thread.
    static func newThreadID() -> String {
        var random = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return "gms-" + String((0..<16).map { _ in digits[Int(random.next() % 16)] })
    }
}
