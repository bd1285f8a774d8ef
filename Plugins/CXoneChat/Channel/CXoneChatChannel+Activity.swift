import AttendantPluginAPI
import CXoneCore

// The customer's typing and read events, and what the agent side is doing, for `chat typing` and
// `chat status`.
extension CXoneChatChannel {
    /// `chat-typing` (`state` started or stopped, `thread` or the current thread): SenderTypingStarted/Ended.
    func reportTyping(_ arguments: [String: String]) throws -> ChannelReply {
        let state = arguments["state"] ?? "started"
        guard state == "started" || state == "stopped" else {
            throw ChannelError(.illegalState, "\(self.prefix): typing state \"\(state)\" is neither started nor stopped")
        }
        var target = ""
        try self.operation { machine, chat throws(ChatError) in
            guard let thread = arguments["thread"] ?? Self.currentThread(machine, chat) else {
                throw ChatError(.invalidThread, "there is no open chat thread to type in; create or open one first")
            }
            target = thread.lowercased()
            return try machine.reportTyping(threadID: thread, started: state == "started")
        }
        return .fields(["typing": state, "thread": target])
    }

    /// MessageSeenByCustomer for a thread whose messages were shown (opened).
    func markShown(_ threadID: String) {
        self.feed { machine, _ in machine.markRead(threadID: threadID) }
    }

    /// The thread the user works in: the one created or opened last, else the newest open one.
    static func currentThread(_ machine: ChatStateMachine, _ state: State) -> String? {
        let open = machine.threads.filter { $0.state != .closed }
        if let current = state.currentThread, open.contains(where: { $0.id.lowercased() == current.lowercased() }) { return current }
        return open.last?.id
    }

    /// The agent side of the current thread, for `chat status`.
    static func activityFields(_ machine: ChatStateMachine, _ state: State) -> [String: String] {
        guard let thread = Self.currentThread(machine, state) else { return [:] }
        let activity = machine.activity(threadID: thread)
        var fields = ["thread": thread.lowercased()]
        if let agent = activity.assignedAgent { fields["agent"] = agent.displayName }
        if let typist = activity.typingAgent { fields["agent-typing"] = typist.displayName }
        if let position = activity.positionInQueue { fields["queue-position"] = String(position) }
        if let read = activity.readByAgentThrough { fields["read-by-agent-through"] = read }
        return fields
    }
}
