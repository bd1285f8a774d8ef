import AttendantPluginAPI
import AttendantPluginKit
import GMSCore
import Synchronization

// What the chat keeps across restarts: its local thread id and the highest transcript position shown in the
// channel's store; GMS's keys of the chat in its secrets (never in the state database).
extension GMSChatChannel {
    static let positionKey = "transcript-position"
    static let threadKey = "thread-id"
    static let phaseKey = "chat-phase"

    enum SecretKey {
        static let secureKey = "secure-key"
        static let chatID = "chat-id"
        static let userID = "user-id"
        static let alias = "alias"
        static let serviceID = "service-id"
    }

    /// Reads what the store and the secrets hold, once.
    func loadIfNeeded() async throws {
        guard !self.state.withLock({ $0.loaded }) else { return }
        let position: Int
        let threadID: String?
        let phase: Phase
        let keys: GMSChatKeys
        do {
            position = try await self.host.store.value(forKey: Self.positionKey).flatMap { Int($0) } ?? 0
            threadID = try await self.host.store.value(forKey: Self.threadKey)
            phase = try await self.host.store.value(forKey: Self.phaseKey).flatMap(Phase.init(rawValue:)) ?? .none
            let secrets = self.host.secrets
            keys = GMSChatKeys(
                secureKey: try await secrets.secret(forKey: SecretKey.secureKey),
                chatID: try await secrets.secret(forKey: SecretKey.chatID),
                userID: try await secrets.secret(forKey: SecretKey.userID),
                alias: try await secrets.secret(forKey: SecretKey.alias),
                serviceID: try await secrets.secret(forKey: SecretKey.serviceID)
            )
        } catch {
            throw ChannelError(.transient, "\(self.prefix): could not read the chat's stored state: \(error)")
        }
        // A chat is resumable with its keys: v2 needs the secure key, v1 its service as well.
        let resumable = phase == .active && keys.secureKey != nil && (self.configuration.apiVersion == 2 || keys.serviceID != nil)
        self.state.withLock { state in
            guard !state.loaded else { return }
            state.loaded = true
            state.ledger = TranscriptLedger(shown: position)
            state.storedPosition = position
            if resumable {
                state.phase = .active
                state.keys = keys
                state.threadID = threadID
                state.contactRecorded = true
            }
        }
        if resumable {
            self.host.logger.info("\(self.prefix): resuming the chat with \(self.serverDescription) after transcript position \(position)")
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
