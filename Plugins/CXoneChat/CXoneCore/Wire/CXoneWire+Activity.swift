extension CXoneWire {
    /// SenderTypingStarted / SenderTypingEnded as the gateway pushes them (the SDK's `AgentTypingEventDataDTO`):
    /// the agent (`user`) started or stopped typing in `thread`.
    public struct SenderTyping: Sendable, Hashable, Codable {
        public var brand: Brand?
        public var channel: Channel?
        public var thread: ThreadReference
        public var user: Agent?

        public init(brand: Brand? = nil, channel: Channel? = nil, thread: ThreadReference, user: Agent? = nil) {
            self.brand = brand
            self.channel = channel
            self.thread = thread
            self.user = user
        }
    }

    /// SetPositionInQueue (the SDK's `SetPositionInQueueEventDataDTO`): the customer's place in the queue of
    /// a contact (case), `{"consumerContact": {"id"}, "positionInQueue"}`.
    public struct PositionInQueue: Sendable, Hashable, Codable {
        public var consumerContact: Reference
        public var positionInQueue: Int

        public init(consumerContact: Reference, positionInQueue: Int) {
            self.consumerContact = consumerContact
            self.positionInQueue = positionInQueue
        }
    }

    /// CaseInboxAssigneeChanged (the SDK's `ContactInboxAssigneeChangedDataDTO`): the agent now assigned to
    /// a contact (`case`), none when it was unassigned.
    public struct InboxAssigneeChanged: Sendable, Hashable, Codable {
        public var brand: Brand?
        public var channel: Channel?
        public var contact: Reference
        public var inboxAssignee: Agent?
        public var previousInboxAssignee: Agent?

        public init(contact: Reference, inboxAssignee: Agent?, previousInboxAssignee: Agent? = nil) {
            self.contact = contact
            self.inboxAssignee = inboxAssignee
            self.previousInboxAssignee = previousInboxAssignee
        }

        enum CodingKeys: String, CodingKey {
            case brand, channel, contact = "case", inboxAssignee, previousInboxAssignee
        }
    }

    /// MessageReadChanged (the SDK's `MessageReadByAgentEventDataDTO`): a message with its new
    /// `userStatistics` (`readAt`, `seenAt`): the agent read it.
    public struct MessageReadChanged: Sendable, Hashable, Codable {
        public var brand: Brand?
        public var message: Message

        public init(brand: Brand? = nil, message: Message) {
            self.brand = brand
            self.message = message
        }
    }
}
