import AttendantPluginAPI
package import AttendantPluginKit

/// The chat's keys, which let anyone holding them act as the customer: kept only in the secrets file.
package struct GMSChatKeys: Sendable, Hashable {
    package var secureKey: String?
    package var chatID: String?
    package var userID: String?
    package var alias: String?
    /// v1: the service GMS made for the chat (`request-chat`'s `_id`).
    package var serviceID: String?

    package init(secureKey: String? = nil, chatID: String? = nil, userID: String? = nil, alias: String? = nil, serviceID: String? = nil) {
        self.secureKey = secureKey
        self.chatID = chatID
        self.userID = userID
        self.alias = alias
        self.serviceID = serviceID
    }

    /// Their names in the channel's secrets.
    package enum SecretKey {
        package static let secureKey = "secure-key"
        package static let chatID = "chat-id"
        package static let userID = "user-id"
        package static let alias = "alias"
        package static let serviceID = "service-id"
    }

    /// Every key with its name in the secrets, for writing them and reading them back.
    static var fields: [(name: String, field: WritableKeyPath<GMSChatKeys, String?>)] {
        [
            (SecretKey.secureKey, \.secureKey), (SecretKey.chatID, \.chatID), (SecretKey.userID, \.userID),
            (SecretKey.alias, \.alias), (SecretKey.serviceID, \.serviceID),
        ]
    }

    /// The names the keys are kept under in the secrets.
    package static var secretNames: [String] { Self.fields.map(\.name) }

    /// The keys as the secrets hold them, by ``secretNames``.
    package init(secrets: [String: String]) {
        self.init()
        for (name, field) in Self.fields { self[keyPath: field] = secrets[name] }
    }

    /// Writes that keep `keys` in the secrets, or (nil) remove them.
    package static func writes(_ keys: GMSChatKeys?) -> [StoreWrite] {
        Self.fields.map { name, field in StoreWrite(.secrets, key: name, value: keys?[keyPath: field], what: "the chat's \(name)") }
    }
}
