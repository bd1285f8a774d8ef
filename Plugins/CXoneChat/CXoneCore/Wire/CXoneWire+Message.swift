package import FoundationEssentials

extension CXoneWire {
    /// Who wrote a message. CXone names directions from the contact centre's side: `inbound` is
    /// customer → agent, `outbound` agent → customer.
    package enum Direction: String, Sendable, Hashable, Codable {
        case inbound
        case outbound

        /// Whether the customer wrote it.
        package var isFromCustomer: Bool { self == .inbound }

        package init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let direction = Direction(rawValue: text) ?? Direction(rawValue: text.lowercased()) else {
                throw CXoneInvalidValue(codingPath: decoder.codingPath, what: "is neither \"inbound\" nor \"outbound\"")
            }
            self = direction
        }
    }

    /// `messageContent`: `{"type": "TEXT", "payload": {"text"}}`, or a rich type (`QUICK_REPLIES`,
    /// `LIST_PICKER`, `RICH_LINK`, `PLUGIN`, ...) whose payload is kept as JSON.
    package struct MessageContent: Sendable, Hashable, Codable {
        package var type: String
        package var payload: CXoneJSON
        package var postback: String?
        package var fallbackText: String?
        package var parameters: CXoneJSON?

        package init(type: String, payload: CXoneJSON, postback: String? = nil, fallbackText: String? = nil, parameters: CXoneJSON? = nil) {
            self.type = type
            self.payload = payload
            self.postback = postback
            self.fallbackText = fallbackText
            self.parameters = parameters
        }

        /// A plain text message.
        package static func text(_ text: String, postback: String? = nil) -> MessageContent {
            MessageContent(type: "TEXT", payload: .object(["text": .string(text)]), postback: postback)
        }

        /// `payload.text` of a `TEXT` message; for other types `fallbackText`, if any.
        package var text: String? {
            self.type == "TEXT" ? self.payload["text"]?.string : (self.fallbackText ?? self.payload["text"]?.string)
        }

        enum CodingKeys: String, CodingKey { case type, payload, postback, fallbackText, parameters }
        enum TextKeys: String, CodingKey { case text }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.type = try container.decode(String.self, forKey: .type)
            if self.type == "TEXT" {
                // A text message without text is malformed; this names the missing field.
                _ = try container.nestedContainer(keyedBy: TextKeys.self, forKey: .payload).decode(String.self, forKey: .text)
            }
            self.payload = try container.decodeIfPresent(CXoneJSON.self, forKey: .payload) ?? .null
            self.postback = try container.decodeIfPresent(String.self, forKey: .postback)
            self.fallbackText = try container.decodeIfPresent(String.self, forKey: .fallbackText)
            self.parameters = try container.decodeIfPresent(CXoneJSON.self, forKey: .parameters)
        }
    }

    /// A message (the SDK's `MessageDTO`).
    package struct Message: Sendable, Hashable, Codable {
        package var idOnExternalPlatform: CXoneID
        package var threadIdOnExternalPlatform: CXoneID
        package var messageContent: MessageContent
        package var createdAt: Date
        package var attachments: [Attachment]
        package var direction: Direction
        package var userStatistics: UserStatistics?
        package var customerStatistics: UserStatistics?
        package var authorUser: Agent?
        package var authorEndUserIdentity: CustomerIdentity?

        package init(
            idOnExternalPlatform: CXoneID,
            threadIdOnExternalPlatform: CXoneID,
            messageContent: MessageContent,
            createdAt: Date,
            attachments: [Attachment] = [],
            direction: Direction,
            userStatistics: UserStatistics? = nil,
            customerStatistics: UserStatistics? = nil,
            authorUser: Agent? = nil,
            authorEndUserIdentity: CustomerIdentity? = nil
        ) {
            self.idOnExternalPlatform = idOnExternalPlatform
            self.threadIdOnExternalPlatform = threadIdOnExternalPlatform
            self.messageContent = messageContent
            self.createdAt = createdAt
            self.attachments = attachments
            self.direction = direction
            self.userStatistics = userStatistics
            self.customerStatistics = customerStatistics
            self.authorUser = authorUser
            self.authorEndUserIdentity = authorEndUserIdentity
        }

        enum CodingKeys: String, CodingKey {
            case idOnExternalPlatform, threadIdOnExternalPlatform, messageContent, createdAt, attachments, direction
            case userStatistics, customerStatistics, authorUser, authorEndUserIdentity
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.idOnExternalPlatform = try container.decode(CXoneID.self, forKey: .idOnExternalPlatform)
            self.threadIdOnExternalPlatform = try container.decode(CXoneID.self, forKey: .threadIdOnExternalPlatform)
            self.messageContent = try container.decode(MessageContent.self, forKey: .messageContent)
            self.createdAt = try container.decode(Date.self, forKey: .createdAt)
            self.attachments = try container.decodeIfPresent([Attachment].self, forKey: .attachments) ?? []
            self.direction = try container.decode(Direction.self, forKey: .direction)
            self.userStatistics = try container.decodeIfPresent(UserStatistics.self, forKey: .userStatistics)
            self.customerStatistics = try container.decodeIfPresent(UserStatistics.self, forKey: .customerStatistics)
            self.authorUser = try container.decodeIfPresent(Agent.self, forKey: .authorUser)
            self.authorEndUserIdentity = try container.decodeIfPresent(CustomerIdentity.self, forKey: .authorEndUserIdentity)
        }
    }
}
