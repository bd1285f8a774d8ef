package import AttendantPluginAPI
import AttendantPluginKit

// What happens around the messages: the agent typing, the queue, the assigned agent, read receipts; and
// the customer's own typing and read events, sent where the SDK sends them.
extension ChatStateMachine {
    /// What the agent side is doing in a thread (``activity(threadID:)``).
    package struct ThreadActivity: Sendable, Hashable {
        /// The agent typing now (between SenderTypingStarted and SenderTypingEnded or their message).
        package var typingAgent: Party?
        /// The customer's place in the queue (SetPositionInQueue), until an agent is assigned.
        package var positionInQueue: Int?
        /// The agent assigned to the thread's contact (ThreadRecovered's or CaseInboxAssigneeChanged's).
        package var assignedAgent: Party?
        /// The newest of the customer's messages the agent has read (MessageReadChanged).
        package var readByAgentThrough: String?

        package init(typingAgent: Party? = nil, positionInQueue: Int? = nil, assignedAgent: Party? = nil, readByAgentThrough: String? = nil) {
            self.typingAgent = typingAgent
            self.positionInQueue = positionInQueue
            self.assignedAgent = assignedAgent
            self.readByAgentThrough = readByAgentThrough
        }
    }

    package func activity(threadID: String) -> ThreadActivity {
        let key = threadID.lowercased()
        return ThreadActivity(
            typingAgent: self.activity.typingAgent(inThread: key),
            positionInQueue: self.known.positionInQueue(ofThread: key),
            assignedAgent: self.known.assignedAgent(ofThread: key),
            readByAgentThrough: self.activity.readByAgentThrough(inThread: key)
        )
    }

    // MARK: The customer's events

    /// `reportTypingStart(_:)`: SenderTypingStarted or SenderTypingEnded for the thread. Legal while the
    /// chat is ready and the thread is not closed (the SDK's `illegalThreadState`).
    package mutating func reportTyping(threadID: String, started: Bool) throws(ChatError) -> [Action] {
        guard self.state == .ready, self.isSocketOpen else {
            throw .illegalState("report typing", self.state, expected: "connect and wait until the chat is ready")
        }
        guard let index = self.known.index(of: threadID) else {
            throw ChatError(.invalidThread, "there is no chat thread \(threadID); list the threads to see which exist")
        }
        guard self.known[index].state != .closed else {
            throw ChatError(.invalidThread, "the conversation in thread \(self.known[index].id) is closed")
        }
        return [.send(.senderTyping(threadID: self.known[index].id, started: started))]
    }

    /// `markRead()`: MessageSeenByCustomer once the thread's messages were shown. As the SDK, nothing for a
    /// thread that exists only here (pending) or is closed, or while the chat is not ready.
    package mutating func markRead(threadID: String) -> [Action] {
        guard self.state == .ready, self.isSocketOpen, let index = self.known.index(of: threadID) else { return [] }
        guard ![.pending, .closed].contains(self.known[index].state) else { return [] }
        return [.send(.messageSeenByCustomer(threadID: self.known[index].id))]
    }

    // MARK: The agent's events

    mutating func agentTyping(threadID: String, started: Bool, agent: Party?, at time: UnixTime) -> [Action] {
        guard self.isSocketOpen, let index = self.known.index(of: threadID) else { return [] }
        let key = self.known[index].id.lowercased()
        let typist = agent ?? self.activity(threadID: key).assignedAgent ?? Party(displayName: "Agent", address: "")
        let changed = started ? self.activity.typingStarted(typist, inThread: key) : self.activity.typingEnded(inThread: key)
        guard changed else { return [] }
        let notice = ChatMessage(
            id: self.random.uuid(),
            threadID: self.known[index].id,
            kind: started ? .typingStarted : .typingStopped,
            direction: .notice,
            sender: typist,
            text: "",
            sentAt: time
        )
        return [.report(.messageReceived(notice))]
    }

    mutating func positionInQueue(caseID: String, position: Int) -> [Action] {
        guard self.isSocketOpen, self.known.setPositionInQueue(position, ofCase: caseID) else { return [] }
        return self.reportThread(ofCase: caseID)
    }

    mutating func assigneeChanged(caseID: String, agent: Party?) -> [Action] {
        guard self.isSocketOpen else { return [] }
        self.known.assign(agent, toCase: caseID)
        return self.reportThread(ofCase: caseID)
    }

    mutating func messageRead(_ message: ChatMessage) -> [Action] {
        guard self.isSocketOpen, message.direction == .toAgent, let index = self.known.index(of: message.threadID) else { return [] }
        guard self.activity.agentRead(message.id, inThread: self.known[index].id) else { return [] }
        if let position = self.known[index].lastMessages.firstIndex(where: { Self.sameID($0.id, message.id) }) {
            self.known[index].lastMessages[position].readByAgentAt = message.readByAgentAt ?? message.sentAt
        }
        return [.report(.threadUpdated(self.known[index]))]
    }

    /// threadUpdated for the thread of a case, if it is known, with its activity brought up to date.
    mutating func reportThread(ofCase caseID: String) -> [Action] {
        guard let index = self.known.index(ofCase: caseID) else { return [] }
        self.known.refreshAgentSide(at: index)
        return [.report(.threadUpdated(self.known[index]))]
    }
}
