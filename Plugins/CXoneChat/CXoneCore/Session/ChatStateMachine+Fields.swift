import AttendantPluginAPI

// What `chat status` and `chat pre-chat-form` show of the machine, and which thread the user works in.
extension ChatStateMachine {
    /// The chat's state, threads, outbox and reconnection, and the agent side of `current`'s thread.
    package func statusFields(current: String?) -> [String: String] {
        var fields: [String: String] = [
            "state": self.state.rawValue,
            "threads": String(self.threads.count),
            "outbox": String(self.outbox.count),
        ]
        if let mode = self.mode { fields["mode"] = mode.rawValue }
        if self.reconnectAttempt > 0 { fields["reconnect-attempt"] = String(self.reconnectAttempt) }
        fields.merge(self.activityFields(current: current)) { current, _ in current }
        return fields
    }

    /// The agent side of the thread the user works in.
    package func activityFields(current: String?) -> [String: String] {
        guard let thread = self.workingThread(current: current) else { return [:] }
        let activity = self.activity(threadID: thread)
        var fields = ["thread": thread.lowercased()]
        if let agent = activity.assignedAgent { fields["agent"] = agent.displayName }
        if let typist = activity.typingAgent { fields["agent-typing"] = typist.displayName }
        if let position = activity.positionInQueue { fields["queue-position"] = String(position) }
        if let read = activity.readByAgentThrough { fields["read-by-agent-through"] = read }
        return fields
    }

    /// The pre-chat form the channel configuration asks for: its name, and each field's label, whether it
    /// is required and its options.
    package var preChatFormFields: [String: String] {
        guard let form = self.preChatForm else { return [:] }
        var fields = ["form": form.name]
        for field in form.fields {
            var text = field.label + (field.isRequired ? " (required)" : "")
            if !field.options.isEmpty { text += ": " + field.options.joined(separator: " | ") }
            fields["field." + field.ident] = text
        }
        return fields
    }

    /// The thread the user works in: `current` (the one created or opened last) while it is open, else
    /// the newest open one.
    package func workingThread(current: String?) -> String? {
        let open = self.threads.filter { $0.state != .closed }
        if let current, open.contains(where: { $0.id.lowercased() == current.lowercased() }) { return current }
        return open.last?.id
    }
}
