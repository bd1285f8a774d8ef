package import AttendantPluginAPI

/// What goes on around the messages: per thread, the agent typing and the newest of the customer's
/// messages the agent has read; and which messages were met already, so each is reported once.
///
/// Threads and message ids compare case-insensitively, as CXone's come in mixed case.
package struct ChatActivity: Sendable, Hashable {
    /// The agent typing, by thread.
    private var typing: [String: Party] = [:]
    /// The newest customer message the agent read (its id as the server sent it), by thread.
    private var readThrough: [String: String] = [:]
    /// Message ids reported (or, on the first load, met as history).
    private var seen: Set<String> = []

    package init() {}

    /// The agent typing in a thread now (between SenderTypingStarted and SenderTypingEnded or their
    /// message).
    package func typingAgent(inThread id: String) -> Party? {
        self.typing[id.lowercased()]
    }

    /// SenderTypingStarted: always told, a repeated start too. The SDK tells the app each one
    /// (`ChatThreadListService.processAgentTypingEvent` calls `CXoneChatDelegate.onAgentTyping(true, …)` per
    /// event, iOS SDK 3.3.1), and a view that ends the typing some seconds after the last start when no
    /// SenderTypingEnded comes (`chat talk`) shows it again only if the next start reaches it.
    package mutating func typingStarted(_ agent: Party, inThread id: String) -> Bool {
        self.typing[id.lowercased()] = agent
        return true
    }

    /// SenderTypingEnded, or the agent's message (which ends their typing); false if nobody was typing.
    @discardableResult
    package mutating func typingEnded(inThread id: String) -> Bool {
        self.typing.removeValue(forKey: id.lowercased()) != nil
    }

    /// The newest of the customer's messages the agent read in a thread (MessageReadChanged).
    package func readByAgentThrough(inThread id: String) -> String? {
        self.readThrough[id.lowercased()]
    }

    /// MessageReadChanged: the agent read the customer's message; false if that was known.
    package mutating func agentRead(_ messageID: String, inThread id: String) -> Bool {
        let key = id.lowercased()
        guard self.readThrough[key] != messageID else { return false }
        self.readThrough[key] = messageID
        return true
    }

    /// Notes that a message was met; true the first time only.
    package mutating func firstMeeting(_ messageID: String) -> Bool {
        self.seen.insert(messageID.lowercased()).inserted
    }
}
