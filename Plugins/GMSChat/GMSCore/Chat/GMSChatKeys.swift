public import AttendantPluginAPI

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
}
