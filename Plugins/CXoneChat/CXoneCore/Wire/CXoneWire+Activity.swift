extension CXoneWire {
    /// SenderTypingStarted / SenderTypingEnded as the gateway pushes them (the SDK's `AgentTypingEventDataDTO`):
    /// the agent (`user`) started or stopped typing in `thread`.
    package struct SenderTyping: Sendable, Hashable, Codable {
        package var brand: Brand?
        package var channel: Channel?
        package var thread: ThreadReference
        package var user: Agent?

        package init(brand: Brand? = nil, channel: Channel? = nil, thread: ThreadReference, user: Agent? = nil) {
            self.brand = brand
            self.channel = channel
            self.thread = thread
            self.user = user
        }
    }

    /// SetPositionInQueue (the SDK's `SetPositionInQueueEventDataDTO`): the customer's place in the queue of
    /// a contact (case), `{"consumerContact": {"id"}, "positionInQueue"}`.
    package struct PositionInQueue: Sendable, Hashable, Codable {
        package var consumerContact: Reference
        package var positionInQueue: Int

        package init(consumerContact: Reference, positionInQueue: Int) {
            self.consumerContact = consumerContact
            self.positionInQueue = positionInQueue
        }
    }

    /// CaseInboxAssigneeChanged (the SDK's `ContactInboxAssigneeChangedDataDTO`): the agent now assigned to
    /// a contact (`case`), none when it was unassigned.
    package struct InboxAssigneeChanged: Sendable, Hashable, Codable {
        package var brand: Brand?
        package var channel: Channel?
        package var contact: Reference
        package var inboxAssignee: Agent?
        package var previousInboxAssignee: Agent?

        package init(contact: Reference, inboxAssignee: Agent?, previousInboxAssignee: Agent? = nil) {
            self.contact = contact
            self.inboxAssignee = inboxAssignee
            self.previousInboxAssignee = previousInboxAssignee
        }

        enum CodingKeys: String, CodingKey {
            case brand, channel
            case contact = "case"
            case inboxAssignee, previousInboxAssignee
        }
    }

    /// MessageReadChanged (the SDK's `MessageReadByAgentEventDataDTO`): a message with its new
    /// `userStatistics` (`readAt`, `seenAt`): the agent read it.
    package struct MessageReadChanged: Sendable, Hashable, Codable {
        package var brand: Brand?
        package var message: Message

        package init(brand: Brand? = nil, message: Message) {
            self.brand = brand
            self.message = message
        }
    }
}
