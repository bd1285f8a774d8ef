/// `GET {chat}/1.0/brand/{brandId}/channel/{channelId}`: how the channel is set up.
package struct CXoneChannelConfiguration: CXoneRESTBody {
    package static var subject: String { "channel configuration" }

    package var isLiveChat: Bool
    /// OAuth: AuthorizeCustomer carries an authorization code and code verifier.
    package var isAuthorizationEnabled: Bool
    /// Secured sessions know the customer by the token server's cookie (the SDK's `AuthenticationType.securedCookie`).
    package var isSecuredCookieEnabled: Bool?
    package var preContactForm: PreContactForm?
    package var settings: Settings

    package init(
        isLiveChat: Bool = false,
        isAuthorizationEnabled: Bool = false,
        preContactForm: PreContactForm? = nil,
        settings: Settings = Settings()
    ) {
        self.isLiveChat = isLiveChat
        self.isAuthorizationEnabled = isAuthorizationEnabled
        self.preContactForm = preContactForm
        self.settings = settings
    }

    /// How the channel's conversations are organised.
    package enum ChatMode: String, Sendable, Hashable {
        case liveChat
        case multiThread
        case singleThread
    }

    /// Whether the feature `securedSessions` (SDK 3.2.0) is on: the socket needs a transaction token. As
    /// every toggle, on when the configuration does not list it (`ChannelSettingsDTO.isEnabled(feature:)`).
    package var hasSecuredSessions: Bool { self.settings.isEnabled("securedSessions") }

    /// Live chat if `isLiveChat`, else multi-thread if `hasMultipleThreadsPerEndUser`, else single-thread.
    package var chatMode: ChatMode {
        if self.isLiveChat { return .liveChat }
        return self.settings.hasMultipleThreadsPerEndUser ? .multiThread : .singleThread
    }

    package struct Settings: Sendable, Hashable, Codable {
        package var hasMultipleThreadsPerEndUser: Bool
        package var isProactiveChatEnabled: Bool?
        package var fileRestrictions: FileRestrictions?
        /// Whether SendTranscript is allowed (the SDK's `isSendTranscriptEnabled`: for live chat and
        /// messaging alike, off when absent).
        package var liveChatAllowTranscript: Bool?
        /// Feature toggles; a toggle not listed counts as on (the SDK's rule).
        package var features: [String: Bool]

        package init(
            hasMultipleThreadsPerEndUser: Bool = false,
            isProactiveChatEnabled: Bool? = nil,
            fileRestrictions: FileRestrictions? = nil,
            liveChatAllowTranscript: Bool? = nil,
            features: [String: Bool] = [:]
        ) {
            self.hasMultipleThreadsPerEndUser = hasMultipleThreadsPerEndUser
            self.isProactiveChatEnabled = isProactiveChatEnabled
            self.fileRestrictions = fileRestrictions
            self.liveChatAllowTranscript = liveChatAllowTranscript
            self.features = features
        }

        /// Whether a feature toggle is on (absent toggles are on).
        package func isEnabled(_ feature: String) -> Bool { self.features[feature] ?? true }

        enum CodingKeys: String, CodingKey {
            case hasMultipleThreadsPerEndUser, isProactiveChatEnabled, fileRestrictions, liveChatAllowTranscript, features
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.hasMultipleThreadsPerEndUser = try container.decode(Bool.self, forKey: .hasMultipleThreadsPerEndUser)
            self.isProactiveChatEnabled = try container.decodeIfPresent(Bool.self, forKey: .isProactiveChatEnabled)
            self.fileRestrictions = try container.decodeIfPresent(FileRestrictions.self, forKey: .fileRestrictions)
            self.liveChatAllowTranscript = try container.decodeIfPresent(Bool.self, forKey: .liveChatAllowTranscript)
            self.features = try container.decodeIfPresent([String: Bool].self, forKey: .features) ?? [:]
        }
    }

    /// What may be attached. `allowedFileSize` (MB) comes as a string; a number is accepted too.
    package struct FileRestrictions: Sendable, Hashable, Codable {
        package var allowedFileSize: Int
        package var allowedFileTypes: [FileType]
        package var isAttachmentsEnabled: Bool

        package init(allowedFileSize: Int, allowedFileTypes: [FileType] = [], isAttachmentsEnabled: Bool) {
            self.allowedFileSize = allowedFileSize
            self.allowedFileTypes = allowedFileTypes
            self.isAttachmentsEnabled = isAttachmentsEnabled
        }

        package struct FileType: Sendable, Hashable, Codable {
            package var mimeType: String
            package var description: String?
            package init(mimeType: String, description: String? = nil) {
                self.mimeType = mimeType
                self.description = description
            }
        }

        enum CodingKeys: String, CodingKey { case allowedFileSize, allowedFileTypes, isAttachmentsEnabled }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let text = try? container.decode(String.self, forKey: .allowedFileSize) {
                guard let size = Int(text) else {
                    throw CXoneInvalidValue(codingPath: container.codingPath + [CodingKeys.allowedFileSize], what: "is not a whole number")
                }
                self.allowedFileSize = size
            } else {
                self.allowedFileSize = try container.decode(Int.self, forKey: .allowedFileSize)
            }
            self.allowedFileTypes = try container.decodeIfPresent([FileType].self, forKey: .allowedFileTypes) ?? []
            self.isAttachmentsEnabled = try container.decodeIfPresent(Bool.self, forKey: .isAttachmentsEnabled) ?? false
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(String(self.allowedFileSize), forKey: .allowedFileSize)
            try container.encode(self.allowedFileTypes, forKey: .allowedFileTypes)
            try container.encode(self.isAttachmentsEnabled, forKey: .isAttachmentsEnabled)
        }
    }

    /// The pre-chat form: its name and fields (kept as JSON; the plugin shows them, it does not validate).
    package struct PreContactForm: Sendable, Hashable, Codable {
        package var name: String
        package var customFields: [CXoneJSON]

        package init(name: String, customFields: [CXoneJSON] = []) {
            self.name = name
            self.customFields = customFields
        }
    }
}

/// `GET {chat}/1.0/brand/{brandId}/channel/{channelId}/availability`: `{"status": "online" | "offline"}`.
package struct CXoneAvailability: CXoneRESTBody {
    package static var subject: String { "availability" }
    package var status: String

    package init(status: String) { self.status = status }
    package init(isOnline: Bool) { self.status = isOnline ? "online" : "offline" }

    /// Only `online` means agents are there.
    package var isOnline: Bool { self.status == "online" }
}
