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
        let caseID = self.caseIDs[key]
        return ThreadActivity(
            typingAgent: self.typingAgents[key],
            positionInQueue: caseID.flatMap { self.queuePositions[$0] },
            assignedAgent: self.agents[key] ?? caseID.flatMap { self.caseAgents[$0] },
            readByAgentThrough: self.readByAgent[key]
        )
    }

    // MARK: The customer's events

    /// `reportTypingStart(_:)`: SenderTypingStarted or SenderTypingEnded for the thread. Legal while the
    /// chat is ready and the thread is not closed (the SDK's `illegalThreadState`).
    package mutating func reportTyping(threadID: String, started: Bool) throws(ChatError) -> [Action] {
        guard self.state == .ready, self.socketOpen else {
            throw .illegalState("report typing", self.state, expected: "connect and wait until the chat is ready")
        }
        guard let index = self.threadIndex(threadID) else {
            throw ChatError(.invalidThread, "there is no chat thread \(threadID); list the threads to see which exist")
        }
        guard self.threads[index].state != .closed else {
            throw ChatError(.invalidThread, "the conversation in thread \(self.threads[index].id) is closed")
        }
        return [.send(.senderTyping(threadID: self.threads[index].id, started: started))]
    }

    /// `markRead()`: MessageSeenByCustomer once the thread's messages were shown. As the SDK, nothing for a
    /// thread that exists only here (pending) or is closed, or while the chat is not ready.
    package mutating func markRead(threadID: String) -> [Action] {
        guard self.state == .ready, self.socketOpen, let index = self.threadIndex(threadID) else { return [] }
        guard ![.pending, .closed].contains(self.threads[index].state) else { return [] }
        return [.send(.messageSeenByCustomer(threadID: self.threads[index].id))]
    }

    // MARK: The agent's events

    mutating func agentTyping(threadID: String, started: Bool, agent: Party?, at time: UnixTime) -> [Action] {
        guard self.socketOpen, let index = self.threadIndex(threadID) else { return [] }
        let key = self.threads[index].id.lowercased()
        let typist = agent ?? self.activity(threadID: key).assignedAgent ?? Party(displayName: "Agent", address: "")
        if started {
            guard self.typingAgents[key] == nil else { return [] }
            self.typingAgents[key] = typist
        } else {
            guard self.typingAgents.removeValue(forKey: key) != nil else { return [] }
        }
        let notice = ChatMessage(
            id: self.random.uuid(),
            threadID: self.threads[index].id,
            kind: started ? .typingStarted : .typingStopped,
            direction: .notice,
            sender: typist,
            text: "",
            sentAt: time
        )
        return [.report(.messageReceived(notice))]
    }

    mutating func positionInQueue(caseID: String, position: Int) -> [Action] {
        guard self.socketOpen, self.queuePositions[caseID] != position else { return [] }
        self.queuePositions[caseID] = position
        return self.reportThread(ofCase: caseID)
    }

    /// Copies the thread's assigned agent and queue position into ``threads`` (what `listThreads` shows).
    mutating func refreshActivity(at index: Int) {
        let activity = self.activity(threadID: self.threads[index].id)
        self.threads[index].assignedAgent = activity.assignedAgent
        self.threads[index].positionInQueue = activity.positionInQueue
    }

    mutating func assigneeChanged(caseID: String, agent: Party?) -> [Action] {
        guard self.socketOpen else { return [] }
        self.caseAgents[caseID] = agent
        if agent != nil { self.queuePositions[caseID] = nil }
        if let key = self.caseIDs.first(where: { Self.sameID($0.value, caseID) })?.key { self.agents[key] = agent }
        return self.reportThread(ofCase: caseID)
    }

    mutating func messageRead(_ message: ChatMessage) -> [Action] {
        guard self.socketOpen, message.direction == .toAgent, let index = self.threadIndex(message.threadID) else { return [] }
        let key = self.threads[index].id.lowercased()
        guard self.readByAgent[key] != message.id else { return [] }
        self.readByAgent[key] = message.id
        if let position = self.threads[index].lastMessages.firstIndex(where: { Self.sameID($0.id, message.id) }) {
            self.threads[index].lastMessages[position].readByAgentAt = message.readByAgentAt ?? message.sentAt
        }
        return [.report(.threadUpdated(self.threads[index]))]
    }

    /// threadUpdated for the thread of a case, if it is known, with its activity brought up to date.
    mutating func reportThread(ofCase caseID: String) -> [Action] {
        guard let key = self.caseIDs.first(where: { Self.sameID($0.value, caseID) })?.key, let index = self.threadIndex(key) else { return [] }
        self.refreshActivity(at: index)
        return [.report(.threadUpdated(self.threads[index]))]
    }
}
