import Synchronization

/// The scripted agent: what tests and the control API make it do. Each action is a transcript row
/// (the agent joins first if it has not), pushed live to the customer unless the customer is away.
extension GMSChatServer {
    /// The agent writes a message in a chat (nil: the newest open chat).
    package func agentSays(_ text: String, chatID: String? = nil) throws(SimulatorError) {
        try self.agentActs(chatID, [RowEntry(kind: .message, party: .agent, text: text)])
    }

    /// The agent starts or stops typing.
    package func agentTyping(started: Bool, chatID: String? = nil) throws(SimulatorError) {
        try self.agentActs(chatID, [RowEntry(kind: started ? .typingStarted : .typingStopped, party: .agent)])
    }

    /// The agent pushes a URL to the customer.
    package func agentPushesURL(_ url: String, chatID: String? = nil) throws(SimulatorError) {
        try self.agentActs(chatID, [RowEntry(kind: .pushURL, party: .agent, text: url)])
    }

    /// The agent sends a custom notice (v2 CustomNotice, v1 Notice.Custom) that the customer sees.
    package func agentCustomNotice(_ text: String, chatID: String? = nil) throws(SimulatorError) {
        try self.agentActs(chatID, [RowEntry(kind: .customNotice, party: .agent, text: text)])
    }

    /// The agent sends a file (a v2 `FileUploaded` row whose `userData` names it); its id.
    package func agentSendsFile(name: String, mimeType: String, bytes: [UInt8], chatID: String? = nil) throws(SimulatorError) -> String {
        let file = GMSChatFile(id: GMSIdentifiers.random(12), name: name, mimeType: mimeType, bytes: bytes)
        try self.agentActs(chatID, [RowEntry(kind: .fileUploaded, party: .agent, text: name, file: file)])
        return file.id
    }

    /// The agent leaves (ParticipantLeft / Notice.Left); the chat stays open until ``endChat(chatID:)``.
    package func agentLeaves(chatID: String? = nil) throws(SimulatorError) {
        try self.agentActs(chatID, [RowEntry(kind: .left, party: .agent)], joinFirst: false) { $0.agentLeft = true }
    }

    /// The chat ends: the agent leaves if still there, and the event says `chatEnded:true` (v2) or
    /// `chatIxnState:"DISCONNECTED"` (v1).
    package func endChat(chatID: String? = nil) throws(SimulatorError) {
        let result: Result<[GMSEffect], SimulatorError> = self.state.withLock { state in
            guard let id = Self.chatID(chatID, in: state), var chat = state.chats[id], !chat.isEnded else {
                return .failure(Self.noOpenChat(chatID))
            }
            let leaves = chat.agentJoined && !chat.agentLeft
            chat.isEnded = true
            chat.agentLeft = true
            state.chats[id] = chat
            if leaves { return .success(self.record([RowEntry(kind: .left, party: .agent)], chat: id, except: nil, &state).1) }
            return .success(self.pushLive([], chat: chat, except: nil, &state))
        }
        self.perform(try result.get())
    }

    /// The greeting timer: the agent joins and says the greeting, unless it has joined already.
    func agentGreets(chatID: String) {
        let effects = self.state.withLock { state -> [GMSEffect] in
            guard let chat = state.chats[chatID], !chat.isEnded, !chat.agentJoined else { return [] }
            state.chats[chatID]?.agentJoined = true
            var entries = [RowEntry(kind: .joined, party: .agent)]
            if let greeting = self.settings.greeting { entries.append(RowEntry(kind: .message, party: .agent, text: greeting)) }
            return self.record(entries, chat: chatID, except: nil, &state).1
        }
        self.perform(effects)
    }

    private func agentActs(
        _ chatID: String?,
        _ entries: [RowEntry],
        joinFirst: Bool = true,
        update: (inout GMSChatRecord) -> Void = { _ in }
    ) throws(SimulatorError) {
        let result: Result<[GMSEffect], SimulatorError> = self.state.withLock { state in
            guard let id = Self.chatID(chatID, in: state), var chat = state.chats[id], !chat.isEnded else {
                return .failure(Self.noOpenChat(chatID))
            }
            var all = entries
            if joinFirst && !chat.agentJoined {
                all.insert(RowEntry(kind: .joined, party: .agent), at: 0)
                chat.agentJoined = true
            }
            update(&chat)
            state.chats[id] = chat
            return .success(self.record(all, chat: id, except: nil, &state).1)
        }
        self.perform(try result.get())
    }

    static func noOpenChat(_ chatID: String?) -> SimulatorError {
        if let chatID {
            return SimulatorError(.callState, "GMS has no open chat \(chatID); see GET /control/gms/chats for the chats and whether they ended")
        }
        return SimulatorError(.callState, "GMS has no open chat; a customer must start one first (requestChat, or v1 ixn/chat)")
    }
}
