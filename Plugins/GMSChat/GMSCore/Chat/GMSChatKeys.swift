public import AttendantPluginAPI
public import AttendantPluginKit

/// The chat's keys, which let anyone holding them act as the customer: kept only in the secrets file.
public struct GMSChatKeys: Sendable, Hashable {
    public var secureKey: String?
    public var chatID: String?
    public var userID: String?
    public var alias: String?
    /// v1: the service GMS made for the chat (`request-chat`'s `_id`).
    public var serviceID: String?

    public init(secureKey: String? = nil, chatID: String? = nil, userID: String? = nil, alias: String? = nil, serviceID: String? = nil) {
        self.secureKey = secureKey
        self.chatID = chatID
        self.userID = userID
        self.alias = alias
        self.serviceID = serviceID
    }

    /// Their names in the channel's secrets.
    public enum SecretKey {
        public static let secureKey = "secure-key"
        public static let chatID = "chat-id"
        public static let userID = "user-id"
        public static let alias = "alias"
        public static let serviceID = "service-id"
    }

    /// Every key with its name in the secrets, for writing them and reading them back.
    static var fields: [(name: String, field: WritableKeyPath<GMSChatKeys, String?>)] {
        [
            (SecretKey.secureKey, \.secureKey), (SecretKey.chatID, \.chatID), (SecretKey.userID, \.userID),
            (SecretKey.alias, \.alias), (SecretKey.serviceID, \.serviceID),
        ]
    }

    /// The names the keys are kept under in the secrets.
    public static var secretNames: [String] { Self.fields.map(\.name) }

    /// The keys as the secrets hold them, by ``secretNames``.
    public init(secrets: [String: String]) {
        self.init()
        for (name, field) in Self.fields { self[keyPath: field] = secrets[name] }
    }

    /// Writes that keep `keys` in the secrets, or (nil) remove them.
    public static func writes(_ keys: GMSChatKeys?) -> [StoreWrite] {
        Self.fields.map { name, field in StoreWrite(.secrets, key: name, value: keys?[keyPath: field], what: "the chat's \(name)") }
    }
}
