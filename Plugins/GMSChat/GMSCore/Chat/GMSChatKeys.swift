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

    /// Writes that keep `keys` in the secrets, or (nil) remove them.
    public static func writes(_ keys: GMSChatKeys?) -> [StoreWrite] {
        let values = [
            (SecretKey.secureKey, keys?.secureKey), (SecretKey.chatID, keys?.chatID), (SecretKey.userID, keys?.userID),
            (SecretKey.alias, keys?.alias), (SecretKey.serviceID, keys?.serviceID),
        ]
        return values.map { key, value in StoreWrite(.secrets, key: key, value: value, what: "the chat's \(key)") }
    }
}
