import AttendantPluginAPI

// Answering from the desktop (issue 33): choices, read receipts, older messages and files, each a small
// step of the chat like the requests before them.
extension LoopbackChat {
    /// The largest file `send-file` takes (the chat keeps it in memory).
    static let largestFile = 1 << 20

    /// Carries out one of the requests of API 1.13, `idle` or `chat-status`; nil for any other.
    mutating func answer(_ request: ChannelRequest, now: UnixTime) throws(ChannelError) -> Outcome? {
        switch request {
        case .choose(let thread, let messageID, let choiceID):
            try self.requireReady(request)
            return try self.choose(choiceID, of: messageID, in: self.openThread(thread, request), now: now)
        case .markRead(let thread, let messageID):
            try self.requireReady(request)
            let index = try self.thread(thread, request)
            let messages = self.threads[index].lastMessages
            guard let seen = messageID ?? messages.last?.id else { return Outcome(reply: .done) }
            guard messages.contains(where: { $0.id == seen }) else { throw self.noMessage(seen, in: index) }
            self.readUpTo[self.threads[index].id] = seen
            return Outcome(reply: .done)
        case .loadOlderMessages(let thread):
            try self.requireReady(request)
            return Outcome(reply: .thread(self.olderPage(of: try self.thread(thread, request))))
        case .downloadAttachment(let thread, let messageID, let attachmentID):
            try self.requireReady(request)
            let index = try self.thread(thread, request)
            guard let message = self.threads[index].lastMessages.first(where: { $0.id == messageID }) else {
                throw self.noMessage(messageID, in: index)
            }
            guard let file = self.files[Self.fileKey(message: messageID, attachment: attachmentID)] else {
                let listed = message.attachments.isEmpty ? "it has none" : "it has " + message.attachments.map(\.id).joined(separator: ", ")
                throw ChannelError(.invalidArgument, "loopback: message \(messageID) has no attachment \"\(attachmentID)\"; \(listed)")
            }
            return Outcome(reply: .file(file))
        case .sendFile(let thread, let file):
            try self.requireReady(request)
            let index = try self.openThread(thread, request)
            guard file.bytes.count <= Self.largestFile else {
                throw ChannelError(
                    .invalidArgument,
                    "loopback: \(file.name) is \(file.bytes.count) bytes; the loopback chat takes files of up to \(Self.largestFile) bytes"
                )
            }
            var message = ChatMessage(text: "")
            message.attachments = [Self.attachment(file)]
            var outcome = self.send(message, to: index, now: now)
            let sent = outcome.sent!
            self.keep(file, message: sent.id)
            outcome.reply = .fields(["message": sent.id, "thread": sent.threadID])
            return outcome
        case .custom("idle", let arguments):
            // The contact centre's inactivity prompt, on request.
            try self.requireReady(request)
            let index = try self.openThread(arguments["thread"], request)
            return Outcome(reply: .done, events: self.agentSays(LoopbackAgent.idlePrompt, in: index, now: now))
        case .custom("chat-status", _):
            return Outcome(reply: .fields(self.status))
        default:
            return nil
        }
    }

    /// What `chat-status` answers: the chat's state, its threads, the current one and, per thread, the
    /// last message read.
    var status: [String: String] {
        var fields = [
            "state": self.state.rawValue, "threads": String(self.threads.count),
            "open-threads": String(self.threads.filter { $0.state != .closed }.count),
        ]
        if let current = self.currentThread { fields["current-thread"] = current }
        for (thread, message) in self.readUpTo { fields["read.\(thread)"] = message }
        return fields
    }

    static func fileKey(message: String, attachment: String) -> String { message + "/" + attachment }

    /// A message's only attachment, `file`.
    static func attachment(_ file: ChatFile) -> ChatAttachment {
        ChatAttachment(id: "attachment-1", name: file.name, mimeType: file.mimeType, size: file.bytes.count)
    }

    /// Keeps `file` as the attachment of message `id`, for `download-attachment`.
    mutating func keep(_ file: ChatFile, message id: String) {
        self.files[Self.fileKey(message: id, attachment: Self.attachment(file).id)] = file
    }

    /// Answers as the SDKs do: a quick reply is a message of the person with the choice's label (CXone's
    /// postback message; the agent answers it); the inactivity prompt's "End the chat" ends the chat. A link
    /// choice opens its page and answers nothing, so choosing one is refused.
    private mutating func choose(_ choiceID: String, of messageID: String, in index: Int, now: UnixTime) throws(ChannelError) -> Outcome {
        guard let message = self.threads[index].lastMessages.first(where: { $0.id == messageID }) else {
            throw self.noMessage(messageID, in: index)
        }
        guard let choice = message.choices.first(where: { $0.id == choiceID }) else {
            let offered = message.choices.isEmpty ? "it offers none" : "it offers " + message.choices.map(\.id).joined(separator: ", ")
            throw ChannelError(.invalidArgument, "loopback: message \(messageID) offers no choice \"\(choiceID)\"; \(offered)")
        }
        if let url = choice.url {
            throw ChannelError(.invalidArgument, "loopback: choice \"\(choiceID)\" of message \(messageID) is a link to open (\(url)), not an answer")
        }
        if message.kind == .idleAlert, choice.id == LoopbackAgent.endChat {
            return Outcome(reply: .done, events: self.close(index))
        }
        return self.send(ChatMessage(text: choice.label), to: index, now: now)
    }

    /// The page of up to ``pageSize`` messages before the oldest given of thread `index`, oldest first;
    /// no messages when the start is given already.
    private mutating func olderPage(of index: Int) -> ChatThread {
        let history = self.threads[index].lastMessages
        let id = self.threads[index].id
        let end = self.oldestGiven[id] ?? max(0, history.count - Self.pageSize)
        let start = max(0, end - Self.pageSize)
        self.oldestGiven[id] = start
        var page = self.threads[index]
        page.lastMessages = Array(history[start..<end])
        return page
    }

    private func noMessage(_ id: String, in index: Int) -> ChannelError {
        ChannelError(.server, "loopback: no message \"\(id)\" in thread \(self.threads[index].id)")
    }
}
