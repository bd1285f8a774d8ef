package import FoundationEssentials

/// The CXone wire's value types (DTOs), named after the fields of the public CXone mobile SDK
/// (nice-devone/nice-cxone-mobile-sdk-ios, `Sources/Models/Internal`). They decode and encode in both
/// directions: the plugin sends and reads them, the loopback simulator reads and sends them.
package enum CXoneWire {}

extension CXoneWire {
    /// `{"id": 1086}`: the tenant.
    package struct Brand: Sendable, Hashable, Codable {
        package var id: Int
        package init(id: Int) { self.id = id }
    }

    /// `{"id": "chat_..."}`: the chat channel.
    package struct Channel: Sendable, Hashable, Codable {
        package var id: String
        package init(id: String) { self.id = id }
    }

    /// `{"id": ...}`: a reference to a visitor, destination (thread) or contact.
    package struct Reference: Sendable, Hashable, Codable {
        package var id: CXoneID
        package init(id: CXoneID) { self.id = id }
    }

    /// The customer (the SDK's `CustomerIdentityDTO`). With OAuth the server assigns a new one in
    /// ConsumerAuthorized, and every later frame must carry that one.
    package struct CustomerIdentity: Sendable, Hashable, Codable {
        package var idOnExternalPlatform: CXoneID
        package var firstName: String?
        package var lastName: String?

        package init(idOnExternalPlatform: CXoneID, firstName: String? = nil, lastName: String? = nil) {
            self.idOnExternalPlatform = idOnExternalPlatform
            self.firstName = firstName
            self.lastName = lastName
        }
    }

    /// A thread as a request names it: `{"idOnExternalPlatform", "threadName"?}`.
    package struct ThreadReference: Sendable, Hashable, Codable {
        package var idOnExternalPlatform: CXoneID
        package var threadName: String?

        package init(idOnExternalPlatform: CXoneID, threadName: String? = nil) {
            self.idOnExternalPlatform = idOnExternalPlatform
            self.threadName = threadName
        }
    }

    /// A thread as the server describes it (ThreadRecovered, ThreadListFetched, MessageCreated).
    package struct Thread: Sendable, Hashable, Codable {
        package var idOnExternalPlatform: CXoneID
        package var id: String?
        package var channelId: String?
        package var threadName: String?
        package var canAddMoreMessages: Bool?

        package init(
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
    package struct Agent: Sendable, Hashable, Codable {
        package var id: Int
        package var firstName: String?
        package var surname: String?
        package var nickname: String?
        package var isBotUser: Bool?
        package var isSurveyUser: Bool?
        package var publicImageUrl: String?

        package init(
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
        package var displayName: String? {
            if let nickname, !nickname.isEmpty { return nickname }
            let name = [self.firstName, self.surname].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
            return name.isEmpty ? nil : name
        }
    }

    /// A custom field value: `{"ident", "value", "updatedAt"?}`.
    package struct CustomField: Sendable, Hashable, Codable {
        package var ident: String
        package var value: String
        package var updatedAt: Date?

        package init(ident: String, value: String, updatedAt: Date? = nil) {
            self.ident = ident
            self.value = value
            self.updatedAt = updatedAt
        }
    }

    /// The contact (the wire's `case`): its `id` is what EndContact names.
    package struct Contact: Sendable, Hashable, Codable {
        package var id: CXoneID
        package var threadIdOnExternalPlatform: CXoneID?
        /// `new`, `open`, `pending`, `escalated`, `resolved`, `closed`, or another the service adds.
        package var status: String?
        package var createdAt: Date?
        package var customFields: [CustomField]?

        package init(
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
        package var isClosed: Bool { self.status == "closed" || self.status == "resolved" }
    }

    /// `{"customFields": [...]}` with an optional `id`: the `customer`, `contact` and `consumerContact`
    /// members of SendMessage and SendOutbound.
    package struct CustomFields: Sendable, Hashable, Codable {
        package var id: CXoneID?
        package var customFields: [CustomField]?

        package init(id: CXoneID? = nil, customFields: [CustomField]? = nil) {
            self.id = id
            self.customFields = customFields
        }
    }

    /// An attachment of a message.
    package struct Attachment: Sendable, Hashable, Codable {
        package var url: String
        package var friendlyName: String?
        package var mimeType: String?
        package var fileName: String?

        package init(url: String, friendlyName: String? = nil, mimeType: String? = nil, fileName: String? = nil) {
            self.url = url
            self.friendlyName = friendlyName
            self.mimeType = mimeType
            self.fileName = fileName
        }
    }

    /// When the agent or the customer saw and read a message.
    package struct UserStatistics: Sendable, Hashable, Codable {
        package var seenAt: Date?
        package var readAt: Date?

        package init(seenAt: Date? = nil, readAt: Date? = nil) {
            self.seenAt = seenAt
            self.readAt = readAt
        }
    }

    /// The device description the SDK sends (`deviceFingerprint` in SendMessage, `browserFingerprint` in
    /// SendOutbound and the visitor body).
    package struct DeviceFingerprint: Sendable, Hashable, Codable {
        package var country: String?
        package var ipAddress: String?
        package var language: String?
        package var location: String?
        package var applicationType: String?
        package var operatingSystem: String?
        package var osVersion: String?
        package var deviceType: String?
        package var deviceToken: String?

        package init(
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
    package struct AccessToken: Sendable, Hashable, Codable {
        package var token: CXoneSecret
        /// Lifetime in seconds from when it was issued.
        package var expiresIn: Int
        package var currentDate: Date?

        package init(token: CXoneSecret, expiresIn: Int, currentDate: Date? = nil) {
            self.token = token
            self.expiresIn = expiresIn
            self.currentDate = currentDate
        }
    }

    /// `{"accessToken": {"token"}}`: the data of ReconnectCustomer and RefreshToken.
    package struct TokenData: Sendable, Hashable, Codable {
        package var accessToken: Token

        package init(token: CXoneSecret) { self.accessToken = Token(token: token) }

        package struct Token: Sendable, Hashable, Codable {
            package var token: CXoneSecret
            package init(token: CXoneSecret) { self.token = token }
        }
    }
}
