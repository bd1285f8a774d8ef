package import FoundationEssentials

// The data of the events the client sends (field names from the SDK's `Sources/Models/Internal/*/Sent`).
extension CXoneWire {
    /// AuthorizeCustomer: `{"authorization": {"authorizationCode", "codeVerifier"}?, "disableChannelInfo",
    /// "sdkPlatform", "sdkVersion"}`; the authorization member is left out without OAuth.
    package struct AuthorizeCustomer: Sendable, Hashable, Codable {
        package var authorizationCode: CXoneSecret?
        package var codeVerifier: CXoneSecret?
        package var disableChannelInfo: Bool
        package var sdkPlatform: String
        package var sdkVersion: String

        package init(
            authorizationCode: CXoneSecret? = nil,
            codeVerifier: CXoneSecret? = nil,
            disableChannelInfo: Bool = true,
            sdkPlatform: String = "linux",
            sdkVersion: String
        ) {
            self.authorizationCode = authorizationCode
            self.codeVerifier = codeVerifier
            self.disableChannelInfo = disableChannelInfo
            self.sdkPlatform = sdkPlatform
            self.sdkVersion = sdkVersion
        }

        enum CodingKeys: String, CodingKey { case authorization, disableChannelInfo, sdkPlatform, sdkVersion }
        enum OAuthKeys: String, CodingKey { case authorizationCode, codeVerifier }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.disableChannelInfo = try container.decodeIfPresent(Bool.self, forKey: .disableChannelInfo) ?? true
            self.sdkPlatform = try container.decodeIfPresent(String.self, forKey: .sdkPlatform) ?? ""
            self.sdkVersion = try container.decodeIfPresent(String.self, forKey: .sdkVersion) ?? ""
            if container.contains(.authorization), try !container.decodeNil(forKey: .authorization) {
                let oauth = try container.nestedContainer(keyedBy: OAuthKeys.self, forKey: .authorization)
                self.authorizationCode = try oauth.decodeIfPresent(CXoneSecret.self, forKey: .authorizationCode)
                self.codeVerifier = try oauth.decodeIfPresent(CXoneSecret.self, forKey: .codeVerifier)
            } else {
                self.authorizationCode = nil
                self.codeVerifier = nil
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.disableChannelInfo, forKey: .disableChannelInfo)
            try container.encode(self.sdkPlatform, forKey: .sdkPlatform)
            try container.encode(self.sdkVersion, forKey: .sdkVersion)
            if self.authorizationCode != nil || self.codeVerifier != nil {
                var oauth = container.nestedContainer(keyedBy: OAuthKeys.self, forKey: .authorization)
                try oauth.encodeIfPresent(self.authorizationCode, forKey: .authorizationCode)
                try oauth.encodeIfPresent(self.codeVerifier, forKey: .codeVerifier)
            }
        }
    }

    /// `{"thread": {"idOnExternalPlatform", "threadName"?}}`: RecoverThread, RecoverLivechat,
    /// LoadThreadMetadata, MessageSeenByCustomer, SenderTypingStarted/Ended.
    package struct ThreadData: Sendable, Hashable, Codable {
        package var thread: ThreadReference
        package init(thread: ThreadReference) { self.thread = thread }
        package init(threadId: CXoneID) { self.thread = ThreadReference(idOnExternalPlatform: threadId) }
    }

    /// SendMessage: the customer's message (its `idOnExternalPlatform` is a fresh UUID the echo in
    /// MessageCreated carries back).
    package struct SendMessage: Sendable, Hashable, Codable {
        package var thread: ThreadReference
        package var messageContent: MessageContent
        package var idOnExternalPlatform: CXoneID
        package var customer: CustomFields?
        package var contact: CustomFields?
        package var attachments: [Attachment]
        package var deviceFingerprint: DeviceFingerprint?
        package var accessToken: TokenData.Token?

        package init(
            thread: ThreadReference,
            messageContent: MessageContent,
            idOnExternalPlatform: CXoneID = .random(),
            customer: CustomFields? = CustomFields(customFields: []),
            contact: CustomFields? = CustomFields(customFields: []),
            attachments: [Attachment] = [],
            deviceFingerprint: DeviceFingerprint? = DeviceFingerprint(),
            accessToken: CXoneSecret? = nil
        ) {
            self.thread = thread
            self.messageContent = messageContent
            self.idOnExternalPlatform = idOnExternalPlatform
            self.customer = customer
            self.contact = contact
            self.attachments = attachments
            self.deviceFingerprint = deviceFingerprint
            self.accessToken = accessToken.map { TokenData.Token(token: $0) }
        }

        enum CodingKeys: String, CodingKey {
            case thread, messageContent, idOnExternalPlatform, customer, contact, attachments, deviceFingerprint, accessToken
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.thread = try container.decode(ThreadReference.self, forKey: .thread)
            self.messageContent = try container.decode(MessageContent.self, forKey: .messageContent)
            self.idOnExternalPlatform = try container.decode(CXoneID.self, forKey: .idOnExternalPlatform)
            self.customer = try container.decodeIfPresent(CustomFields.self, forKey: .customer)
            self.contact = try container.decodeIfPresent(CustomFields.self, forKey: .contact)
            self.attachments = try container.decodeIfPresent([Attachment].self, forKey: .attachments) ?? []
            self.deviceFingerprint = try container.decodeIfPresent(DeviceFingerprint.self, forKey: .deviceFingerprint)
            self.accessToken = try container.decodeIfPresent(TokenData.Token.self, forKey: .accessToken)
        }
    }

    /// SendOutbound: a message shown as the agent's (the welcome message, sent just before the customer's
    /// first message).
    package struct SendOutbound: Sendable, Hashable, Codable {
        package var thread: ThreadReference
        package var messageContent: MessageContent
        package var idOnExternalPlatform: CXoneID
        package var consumerContact: CustomFields?
        package var attachments: [Attachment]
        package var browserFingerprint: DeviceFingerprint?
        package var accessToken: TokenData.Token?

        package init(
            thread: ThreadReference,
            messageContent: MessageContent,
            idOnExternalPlatform: CXoneID = .random(),
            consumerContact: CustomFields? = CustomFields(customFields: []),
            attachments: [Attachment] = [],
            browserFingerprint: DeviceFingerprint? = DeviceFingerprint(),
            accessToken: CXoneSecret? = nil
        ) {
            self.thread = thread
            self.messageContent = messageContent
            self.idOnExternalPlatform = idOnExternalPlatform
            self.consumerContact = consumerContact
            self.attachments = attachments
            self.browserFingerprint = browserFingerprint
            self.accessToken = accessToken.map { TokenData.Token(token: $0) }
        }

        enum CodingKeys: String, CodingKey {
            case thread, messageContent, idOnExternalPlatform, consumerContact, attachments, browserFingerprint, accessToken
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.thread = try container.decode(ThreadReference.self, forKey: .thread)
            self.messageContent = try container.decode(MessageContent.self, forKey: .messageContent)
            self.idOnExternalPlatform = try container.decode(CXoneID.self, forKey: .idOnExternalPlatform)
            self.consumerContact = try container.decodeIfPresent(CustomFields.self, forKey: .consumerContact)
            self.attachments = try container.decodeIfPresent([Attachment].self, forKey: .attachments) ?? []
            self.browserFingerprint = try container.decodeIfPresent(DeviceFingerprint.self, forKey: .browserFingerprint)
            self.accessToken = try container.decodeIfPresent(TokenData.Token.self, forKey: .accessToken)
        }
    }

    /// EndContact: `{"thread": {"idOnExternalPlatform"}, "contact": {"id"}}` (the contact id is the
    /// `case.id` of MessageCreated or ThreadRecovered).
    package struct EndContact: Sendable, Hashable, Codable {
        package var thread: ThreadReference
        package var contact: Reference

        package init(threadId: CXoneID, contactId: CXoneID) {
            self.thread = ThreadReference(idOnExternalPlatform: threadId)
            self.contact = Reference(id: contactId)
        }
    }

    /// LoadMoreMessages: the page before the oldest message the client has.
    package struct LoadMoreMessages: Sendable, Hashable, Codable {
        package var scrollToken: String
        package var thread: ThreadReference
        package var oldestMessageDatetime: Date

        package init(scrollToken: String, thread: ThreadReference, oldestMessageDatetime: Date) {
            self.scrollToken = scrollToken
            self.thread = thread
            self.oldestMessageDatetime = oldestMessageDatetime
        }
    }

    /// SetContactCustomFields: `{"thread", "customFields", "contact": {"id"}}`.
    package struct SetContactCustomFields: Sendable, Hashable, Codable {
        package var thread: ThreadReference
        package var customFields: [CustomField]
        package var contact: Reference

        package init(thread: ThreadReference, customFields: [CustomField], contactId: CXoneID) {
            self.thread = thread
            self.customFields = customFields
            self.contact = Reference(id: contactId)
        }
    }

    /// SendTranscript: `{"consumerContact": {"id"}, "consumerRecipients": [{"idOnExternalPlatform": email}]}`,
    /// the SDK's `SendTranscriptDataDTO` (the thread's contact, and one e-mail address to send it to).
    package struct SendTranscript: Sendable, Hashable, Codable {
        package var consumerContact: Reference
        package var consumerRecipients: [Recipient]

        package struct Recipient: Sendable, Hashable, Codable {
            package var idOnExternalPlatform: String
            package init(idOnExternalPlatform: String) { self.idOnExternalPlatform = idOnExternalPlatform }
        }

        package init(contactId: CXoneID, email: String) {
            self.consumerContact = Reference(id: contactId)
            self.consumerRecipients = [Recipient(idOnExternalPlatform: email)]
        }
    }

    /// StoreVisitorEvents: `{"visitorEvents": [...]}`, the analytics events sent over the socket.
    package struct StoreVisitorEvents: Sendable, Hashable, Codable {
        package var visitorEvents: [AnalyticsEvent]
        package init(visitorEvents: [AnalyticsEvent]) { self.visitorEvents = visitorEvents }
    }
}
