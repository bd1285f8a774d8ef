// The data of the events the gateway sends (postbacks and pushes).
extension CXoneWire {
    /// ConsumerAuthorized (the reply to AuthorizeCustomer) and ConsumerReconnected (to ReconnectCustomer).
    package struct ConsumerAuthorized: Sendable, Hashable, Codable {
        /// The identity every later frame must carry (with OAuth the server assigns a new one).
        package var consumerIdentity: CustomerIdentity?
        package var accessToken: AccessToken?

        package init(consumerIdentity: CustomerIdentity? = nil, accessToken: AccessToken? = nil) {
            self.consumerIdentity = consumerIdentity
            self.accessToken = accessToken
        }
    }

    /// TokenRefreshed: `{"accessToken": {"token", "expiresIn"}}`.
    package struct TokenRefreshed: Sendable, Hashable, Codable {
        package var accessToken: AccessToken
        package init(accessToken: AccessToken) { self.accessToken = accessToken }
    }

    /// ThreadRecovered and LivechatRecovered: the thread, its latest messages, the assigned agent and the
    /// contact (its id is what EndContact names).
    package struct ThreadRecovered: Sendable, Hashable, Codable {
        /// `contact`, or `consumerContact` in older services.
        package var contact: Contact?
        package var messages: [Message]
        package var inboxAssignee: Agent?
        package var previousInboxAssignee: Agent?
        package var thread: Thread
        /// For LoadMoreMessages.
        package var messagesScrollToken: String?
        package var customer: CustomFields?

        package init(
            contact: Contact? = nil,
            messages: [Message] = [],
            inboxAssignee: Agent? = nil,
            previousInboxAssignee: Agent? = nil,
            thread: Thread,
            messagesScrollToken: String? = nil,
            customer: CustomFields? = nil
        ) {
            self.contact = contact
            self.messages = messages
            self.inboxAssignee = inboxAssignee
            self.previousInboxAssignee = previousInboxAssignee
            self.thread = thread
            self.messagesScrollToken = messagesScrollToken
            self.customer = customer
        }

        enum CodingKeys: String, CodingKey {
            case contact, consumerContact, messages, inboxAssignee, previousInboxAssignee, thread, messagesScrollToken, customer
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.contact =
                try container.decodeIfPresent(Contact.self, forKey: .contact)
                ?? container.decodeIfPresent(Contact.self, forKey: .consumerContact)
            self.messages = try container.decodeIfPresent([Message].self, forKey: .messages) ?? []
            self.inboxAssignee = try container.decodeIfPresent(Agent.self, forKey: .inboxAssignee)
            self.previousInboxAssignee = try container.decodeIfPresent(Agent.self, forKey: .previousInboxAssignee)
            self.thread = try container.decode(Thread.self, forKey: .thread)
            self.messagesScrollToken = try container.decodeIfPresent(String.self, forKey: .messagesScrollToken)
            self.customer = try container.decodeIfPresent(CustomFields.self, forKey: .customer)
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(self.contact, forKey: .contact)
            try container.encode(self.messages, forKey: .messages)
            try container.encodeIfPresent(self.inboxAssignee, forKey: .inboxAssignee)
            try container.encodeIfPresent(self.previousInboxAssignee, forKey: .previousInboxAssignee)
            try container.encode(self.thread, forKey: .thread)
            try container.encodeIfPresent(self.messagesScrollToken, forKey: .messagesScrollToken)
            try container.encodeIfPresent(self.customer, forKey: .customer)
        }
    }

    /// ThreadListFetched: `{"threads": [...]}`.
    package struct ThreadList: Sendable, Hashable, Codable {
        package var threads: [Thread]
        package init(threads: [Thread]) { self.threads = threads }

        enum CodingKeys: String, CodingKey { case threads }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.threads = try container.decodeIfPresent([Thread].self, forKey: .threads) ?? []
        }
    }

    /// ThreadMetadataLoaded: the thread's owner and last message.
    package struct ThreadMetadata: Sendable, Hashable, Codable {
        package var ownerAssignee: Agent?
        package var lastMessage: Message?

        package init(ownerAssignee: Agent? = nil, lastMessage: Message? = nil) {
            self.ownerAssignee = ownerAssignee
            self.lastMessage = lastMessage
        }
    }

    /// MessageCreated: a message in a thread, with the contact (`case`) it belongs to.
    package struct MessageCreated: Sendable, Hashable, Codable {
        package var brand: Brand?
        package var channel: Channel?
        /// The contact; its `id` is what EndContact names.
        package var contact: Contact
        package var thread: Thread
        package var message: Message

        package init(brand: Brand? = nil, channel: Channel? = nil, contact: Contact, thread: Thread, message: Message) {
            self.brand = brand
            self.channel = channel
            self.contact = contact
            self.thread = thread
            self.message = message
        }

        enum CodingKeys: String, CodingKey {
            case brand, channel, thread, message
            case contact = "case"
        }
    }

    /// MoreMessagesLoaded: older messages and the token for the next page.
    package struct MoreMessagesLoaded: Sendable, Hashable, Codable {
        package var messages: [Message]
        package var scrollToken: String?

        package init(messages: [Message], scrollToken: String? = nil) {
            self.messages = messages
            self.scrollToken = scrollToken
        }
    }

    /// CaseCreated and CaseStatusChanged: the contact (`case`), with its status.
    package struct CaseEvent: Sendable, Hashable, Codable {
        package var brand: Brand?
        package var channel: Channel?
        package var contact: Contact
        package var thread: Thread?

        package init(brand: Brand? = nil, channel: Channel? = nil, contact: Contact, thread: Thread? = nil) {
            self.brand = brand
            self.channel = channel
            self.contact = contact
            self.thread = thread
        }

        enum CodingKeys: String, CodingKey {
            case brand, channel, thread
            case contact = "case"
        }
    }
}
