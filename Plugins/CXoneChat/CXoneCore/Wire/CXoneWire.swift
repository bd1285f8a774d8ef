public import FoundationEssentials

/// The CXone wire's value types (DTOs), named after the fields of the public CXone mobile SDK
/// (nice-devone/nice-cxone-mobile-sdk-ios, `Sources/Models/Internal`). They decode and encode in both
/// directions: the plugin sends and reads them, the loopback simulator reads and sends them.
public enum CXoneWire {}

extension CXoneWire {
    /// `{"id": 1086}`: the tenant.
    public struct Brand: Sendable, Hashable, Codable {
        public var id: Int
        public init(id: Int) { self.id = id }
    }

    /// `{"id": "chat_..."}`: the chat channel.
    public struct Channel: Sendable, Hashable, Codable {
        public var id: String
        public init(id: String) { self.id = id }
    }

    /// `{"id": ...}`: a reference to a visitor, destination (thread) or contact.
    public struct Reference: Sendable, Hashable, Codable {
        public var id: CXoneID
        public init(id: CXoneID) { self.id = id }
    }

    /// The customer (the SDK's `CustomerIdentityDTO`). With OAuth the server assigns a new one in
    /// ConsumerAuthorized, and every later frame must carry that one.
    public struct CustomerIdentity: Sendable, Hashable, Codable {
        public var idOnExternalPlatform: CXoneID
        public var firstName: String?
        public var lastName: String?

        public init(idOnExternalPlatform: CXoneID, firstName: String? = nil, lastName: String? = nil) {
            self.idOnExternalPlatform = idOnExternalPlatform
            self.firstName = firstName
            self.lastName = lastName
        }
    }

    /// A thread as a request names it: `{"idOnExternalPlatform", "threadName"?}`.
    public struct ThreadReference: Sendable, Hashable, Codable {
        public var idOnExternalPlatform: CXoneID
        public var threadName: String?

        public init(idOnExternalPlatform: CXoneID, threadName: String? = nil) {
            self.idOnExternalPlatform = idOnExternalPlatform
            self.threadName = threadName
        }
    }

    /// A thread as the server describes it (ThreadRecovered, ThreadListFetched, MessageCreated).
    public struct Thread: Sendable, Hashable, Codable {
        public var idOnExternalPlatform: CXoneID
        public var id: String?
        public var channelId: String?
        public var threadName: String?
        public var canAddMoreMessages: Bool?

        public init(
            idOnExternalPlatform: CXoneID,
            id: String? = nil,
            channelId: String? = nil,
            threadName: String? = nil,
            canAddMoreMessages: Bool? = nil
        ) {
            self.idOnExternalPlatform = idOnExternalPlatform
            self.id = id
            self.channelId = channelId
            self.threadName = threadName
            self.canAddMoreMessages = canAddMoreMessages
        }
    }

    /// An agent (`authorUser`, `inboxAssignee`, `ownerAssignee`).
    public struct Agent: Sendable, Hashable, Codable {
        public var id: Int
        public var firstName: String?
        public var surname: String?
        public var nickname: String?
        public var isBotUser: Bool?
        public var isSurveyUser: Bool?
        public var publicImageUrl: String?

        public init(
            id: Int,
            firstName: String? = nil,
            surname: String? = nil,
            nickname: String? = nil,
            isBotUser: Bool? = nil,
            isSurveyUser: Bool? = nil,
            publicImageUrl: String? = nil
        ) {
            self.id = id
            self.firstName = firstName
            self.surname = surname
            self.nickname = nickname
            self.isBotUser = isBotUser
            self.isSurveyUser = isSurveyUser
            self.publicImageUrl = publicImageUrl
        }

        /// The nickname, else first name and surname, else `nil`.
        public var displayName: String? {
            if let nickname, !nickname.isEmpty { return nickname }
            let name = [self.firstName, self.surname].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
            return name.isEmpty ? nil : name
        }
    }

    /// A custom field value: `{"ident", "value", "updatedAt"?}`.
    public struct CustomField: Sendable, Hashable, Codable {
        public var ident: String
        public var value: String
        public var updatedAt: Date?

        public init(ident: String, value: String, updatedAt: Date? = nil) {
            self.ident = ident
            self.value = value
            self.updatedAt = updatedAt
        }
    }

    /// The contact (the wire's `case`): its `id` is what EndContact names.
    public struct Contact: Sendable, Hashable, Codable {
        public var id: CXoneID
        public var threadIdOnExternalPlatform: CXoneID?
        /// `new`, `open`, `pending`, `escalated`, `resolved`, `closed`, or another the service adds.
        public var status: String?
        public var createdAt: Date?
        public var customFields: [CustomField]?

        public init(
            id: CXoneID,
            threadIdOnExternalPlatform: CXoneID? = nil,
            status: String? = nil,
            createdAt: Date? = nil,
            customFields: [CustomField]? = nil
        ) {
            self.id = id
            self.threadIdOnExternalPlatform = threadIdOnExternalPlatform
            self.status = status
            self.createdAt = createdAt
            self.customFields = customFields
        }

        /// Whether the status means the contact is over.
        public var isClosed: Bool { self.status == "closed" || self.status == "resolved" }
    }

    /// `{"customFields": [...]}` with an optional `id`: the `customer`, `contact` and `consumerContact`
    /// members of SendMessage and SendOutbound.
    public struct CustomFields: Sendable, Hashable, Codable {
        public var id: CXoneID?
        public var customFields: [CustomField]?

        public init(id: CXoneID? = nil, customFields: [CustomField]? = nil) {
            self.id = id
            self.customFields = customFields
        }
    }

    /// An attachment of a message.
    public struct Attachment: Sendable, Hashable, Codable {
        public var url: String
        public var friendlyName: String?
        public var mimeType: String?
        public var fileName: String?

        public init(url: String, friendlyName: String? = nil, mimeType: String? = nil, fileName: String? = nil) {
            self.url = url
            self.friendlyName = friendlyName
            self.mimeType = mimeType
            self.fileName = fileName
        }
    }

    /// When the agent or the customer saw and read a message.
    public struct UserStatistics: Sendable, Hashable, Codable {
        public var seenAt: Date?
        public var readAt: Date?

        public init(seenAt: Date? = nil, readAt: Date? = nil) {
            self.seenAt = seenAt
            self.readAt = readAt
        }
    }

    /// The device description the SDK sends (`deviceFingerprint` in SendMessage, `browserFingerprint` in
    /// SendOutbound and the visitor body).
    public struct DeviceFingerprint: Sendable, Hashable, Codable {
        public var country: String?
        public var ipAddress: String?
        public var language: String?
        public var location: String?
        public var applicationType: String?
        public var operatingSystem: String?
        public var osVersion: String?
        public var deviceType: String?
        public var deviceToken: String?

        public init(
            country: String? = nil,
            ipAddress: String? = nil,
            language: String? = nil,
            location: String? = nil,
            applicationType: String? = "native",
            operatingSystem: String? = "Linux",
            osVersion: String? = nil,
            deviceType: String? = "desktop",
            deviceToken: String? = nil
        ) {
            self.country = country
            self.ipAddress = ipAddress
            self.language = language
            self.location = location
            self.applicationType = applicationType
            self.operatingSystem = operatingSystem
            self.osVersion = osVersion
            self.deviceType = deviceType
            self.deviceToken = deviceToken
        }

        enum CodingKeys: String, CodingKey {
            case country, language, location, applicationType, osVersion, deviceType, deviceToken
            case ipAddress = "ip"
            case operatingSystem = "os"
        }
    }

    /// An access token as ConsumerAuthorized and TokenRefreshed carry it: `{"token", "expiresIn"}`.
    public struct AccessToken: Sendable, Hashable, Codable {
        public var token: CXoneSecret
        /// Lifetime in seconds from when it was issued.
        public var expiresIn: Int
        public var currentDate: Date?

        public init(token: CXoneSecret, expiresIn: Int, currentDate: Date? = nil) {
            self.token = token
            self.expiresIn = expiresIn
            self.currentDate = currentDate
        }
    }

    /// `{"accessToken": {"token"}}`: the data of ReconnectCustomer and RefreshToken.
    public struct TokenData: Sendable, Hashable, Codable {
        public var accessToken: Token

        public init(token: CXoneSecret) { self.accessToken = Token(token: token) }

        public struct Token: Sendable, Hashable, Codable {
            public var token: CXoneSecret
            public init(token: CXoneSecret) { self.token = token }
        }
    }
}
