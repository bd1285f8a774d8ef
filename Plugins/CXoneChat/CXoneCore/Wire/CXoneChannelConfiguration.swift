/// `GET {chat}/1.0/brand/{brandId}/channel/{channelId}`: how the channel is set up.
public struct CXoneChannelConfiguration: CXoneRESTBody {
    public static var subject: String { "channel configuration" }

    public var isLiveChat: Bool
    /// OAuth: AuthorizeCustomer carries an authorization code and code verifier.
    public var isAuthorizationEnabled: Bool
    public var preContactForm: PreContactForm?
    public var settings: Settings

    public init(isLiveChat: Bool = false, isAuthorizationEnabled: Bool = false, preContactForm: PreContactForm? = nil, settings: Settings = Settings()) {
        self.isLiveChat = isLiveChat
        self.isAuthorizationEnabled = isAuthorizationEnabled
        self.preContactForm = preContactForm
        self.settings = settings
    }

    /// How the channel's conversations are organised.
    public enum ChatMode: String, Sendable, Hashable {
        case liveChat
        case multiThread
        case singleThread
    }

    /// Live chat if `isLiveChat`, else multi-thread if `hasMultipleThreadsPerEndUser`, else single-thread.
    public var chatMode: ChatMode {
        if self.isLiveChat { return .liveChat }
        return self.settings.hasMultipleThreadsPerEndUser ? .multiThread : .singleThread
    }

    public struct Settings: Sendable, Hashable, Codable {
        public var hasMultipleThreadsPerEndUser: Bool
        public var isProactiveChatEnabled: Bool?
        public var fileRestrictions: FileRestrictions?
        /// Feature toggles; a toggle not listed counts as on (the SDK's rule).
        public var features: [String: Bool]

        public init(hasMultipleThreadsPerEndUser: Bool = false, isProactiveChatEnabled: Bool? = nil, fileRestrictions: FileRestrictions? = nil, features: [String: Bool] = [:]) {
            self.hasMultipleThreadsPerEndUser = hasMultipleThreadsPerEndUser
            self.isProactiveChatEnabled = isProactiveChatEnabled
            self.fileRestrictions = fileRestrictions
            self.features = features
        }

        /// Whether a feature toggle is on (absent toggles are on).
        public func isEnabled(_ feature: String) -> Bool { self.features[feature] ?? true }

        enum CodingKeys: String, CodingKey { case hasMultipleThreadsPerEndUser, isProactiveChatEnabled, fileRestrictions, features }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.hasMultipleThreadsPerEndUser = try container.decode(Bool.self, forKey: .hasMultipleThreadsPerEndUser)
            self.isProactiveChatEnabled = try container.decodeIfPresent(Bool.self, forKey: .isProactiveChatEnabled)
            self.fileRestrictions = try container.decodeIfPresent(FileRestrictions.self, forKey: .fileRestrictions)
            self.features = try container.decodeIfPresent([String: Bool].self, forKey: .features) ?? [:]
        }
    }

    /// What may be attached. `allowedFileSize` (MB) comes as a string; a number is accepted too.
    public struct FileRestrictions: Sendable, Hashable, Codable {
        public var allowedFileSize: Int
        public var allowedFileTypes: [FileType]
        public var isAttachmentsEnabled: Bool

        public init(allowedFileSize: Int, allowedFileTypes: [FileType] = [], isAttachmentsEnabled: Bool) {
            self.allowedFileSize = allowedFileSize
            self.allowedFileTypes = allowedFileTypes
            self.isAttachmentsEnabled = isAttachmentsEnabled
        }

        public struct FileType: Sendable, Hashable, Codable {
            public var mimeType: String
            public var description: String?
            public init(mimeType: String, description: String? = nil) {
                self.mimeType = mimeType
                self.description = description
            }
        }

        enum CodingKeys: String, CodingKey { case allowedFileSize, allowedFileTypes, isAttachmentsEnabled }

        public init(from decoder: any Decoder) throws {
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

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(String(self.allowedFileSize), forKey: .allowedFileSize)
            try container.encode(self.allowedFileTypes, forKey: .allowedFileTypes)
            try container.encode(self.isAttachmentsEnabled, forKey: .isAttachmentsEnabled)
        }
    }

    /// The pre-chat form: its name and fields (kept as JSON; the plugin shows them, it does not validate).
    public struct PreContactForm: Sendable, Hashable, Codable {
        public var name: String
        public var customFields: [CXoneJSON]

        public init(name: String, customFields: [CXoneJSON] = []) {
            self.name = name
            self.customFields = customFields
        }
    }
}

/// `GET {chat}/1.0/brand/{brandId}/channel/{channelId}/availability`: `{"status": "online" | "offline"}`.
public struct CXoneAvailability: CXoneRESTBody {
    public static var subject: String { "availability" }
    public var status: String

    public init(status: String) { self.status = status }
    public init(isOnline: Bool) { self.status = isOnline ? "online" : "offline" }

    /// Only `online` means agents are there.
    public var isOnline: Bool { self.status == "online" }
}
