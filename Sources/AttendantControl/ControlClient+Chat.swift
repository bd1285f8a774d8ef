import Systemd

// The chat requests (`ChatPrepare` … `ChatEndConversation`): each names the channel; a thread of nil
// means the channel's current thread.

extension ControlClient {
    public func chatPrepare(channel: String) async throws(ControlClientError) {
        _ = try await self.call(ControlInterface.Method.chatPrepare, [.string(channel)])
    }

    public func chatConnect(channel: String) async throws(ControlClientError) {
        _ = try await self.call(ControlInterface.Method.chatConnect, [.string(channel)])
    }

    /// Tells the channel the person is looking at a page (CXone's page-view analytics).
    public func chatViewPage(channel: String, title: String, url: String) async throws(ControlClientError) {
        _ = try await self.call(ControlInterface.Method.chatViewPage, [.string(channel), .string(title), .string(url)])
    }

    public func chatThreads(channel: String) async throws(ControlClientError) -> [ChatThreadRecord] {
        let member = ControlInterface.Method.chatListThreads
        let reply = try await self.call(member, [.string(channel)])
        guard let elements = reply.first?.elements else { throw .malformed(member, reply) }
        var records: [ChatThreadRecord] = []
        for element in elements {
            guard let record = ChatThreadRecord(element) else { throw .malformed(member, reply) }
            records.append(record)
        }
        return records
    }

    public func chatOpenThread(channel: String, thread: String) async throws(ControlClientError) -> ChatThreadRecord {
        try await self.thread(ControlInterface.Method.chatOpenThread, [.string(channel), .string(thread)])
    }

    /// Starts a thread with the given custom fields (CXone's contact custom fields).
    public func chatCreateThread(channel: String, fields: [String: String] = [:]) async throws(ControlClientError) -> ChatThreadRecord {
        let entries = fields.sorted { $0.key < $1.key }.map { BusValue.Entry(.string($0.key), .string($0.value)) }
        return try await self.thread(ControlInterface.Method.chatCreateThread, [.string(channel), .dictionary(key: "s", value: "s", entries)])
    }

    /// Sends a message; the answer says what became of it: `delivery` is `sent` (the server has it) or
    /// `queued` (it waits in the channel's outbox and goes out once connected; `reason` says why), with
    /// the `message` and `thread` ids when the channel gives them. A daemon that answers nothing sent it.
    @discardableResult
    public func chatSendMessage(channel: String, thread: String? = nil, text: String) async throws(ControlClientError) -> [String: String] {
        let member = ControlInterface.Method.chatSendMessage
        let reply = try await self.call(member, [.string(channel), .string(thread ?? ""), .string(text)])
        guard let first = reply.first else { return ["delivery": "sent"] }
        guard let fields = first.stringDictionary else { throw .malformed(member, reply) }
        var result: [String: String] = [:]
        for (key, value) in fields {
            guard let text = value.string else { throw .malformed(member, reply) }
            result[key] = text
        }
        if result["delivery"] == nil { result["delivery"] = "sent" }
        return result
    }

    public func chatEndConversation(channel: String, thread: String? = nil) async throws(ControlClientError) {
        _ = try await self.call(ControlInterface.Method.chatEndConversation, [.string(channel), .string(thread ?? "")])
    }

    /// A plugin's own request with its arguments; the answer's fields.
    public func channelRequest(
        channel: String,
        command: String,
        arguments: [String: String] = [:]
    ) async throws(ControlClientError) -> [String: String] {
        let member = ControlInterface.Method.channelRequest
        let entries = arguments.sorted { $0.key < $1.key }.map { BusValue.Entry(.string($0.key), .string($0.value)) }
        let reply = try await self.call(member, [.string(channel), .string(command), .dictionary(key: "s", value: "s", entries)])
        guard let fields = reply.first?.stringDictionary else { throw .malformed(member, reply) }
        var result: [String: String] = [:]
        for (key, value) in fields {
            guard let text = value.string else { throw .malformed(member, reply) }
            result[key] = text
        }
        return result
    }

    private func thread(_ member: String, _ arguments: [BusValue]) async throws(ControlClientError) -> ChatThreadRecord {
        let reply = try await self.call(member, arguments)
        guard let first = reply.first, let record = ChatThreadRecord(first) else { throw .malformed(member, reply) }
        return record
    }
}

// Answering from the desktop (issue 33): choices, read receipts, older messages, files.
extension ControlClient {
    /// Answers `message` with one of its choices (the choice's id).
    public func chatChoose(channel: String, thread: String? = nil, message: String, choice: String) async throws(ControlClientError) {
        _ = try await self.call(ControlInterface.Method.chatChoose, [.string(channel), .string(thread ?? ""), .string(message), .string(choice)])
    }

    /// Tells the channel the person has seen the thread up to `message` (nil: all of it).
    public func chatMarkRead(channel: String, thread: String? = nil, message: String? = nil) async throws(ControlClientError) {
        _ = try await self.call(ControlInterface.Method.chatMarkRead, [.string(channel), .string(thread ?? ""), .string(message ?? "")])
    }

    /// E-mails the thread's transcript (nil: the current thread) to `email`, where the channel allows it.
    public func chatSendTranscript(channel: String, thread: String? = nil, email: String) async throws(ControlClientError) {
        _ = try await self.call(ControlInterface.Method.chatSendTranscript, [.string(channel), .string(thread ?? ""), .string(email)])
    }

    /// The thread with the page of messages before those given so far as its `lastMessages`.
    public func chatLoadOlder(channel: String, thread: String? = nil) async throws(ControlClientError) -> ChatThreadRecord {
        try await self.thread(ControlInterface.Method.chatLoadOlder, [.string(channel), .string(thread ?? "")])
    }

    /// Has the daemon write an attachment into `file`, a descriptor of a new regular file the caller opened
    /// for writing; returns what was written (`Name`, `MimeType`, `Size`).
    public func chatSaveAttachment(
        channel: String,
        thread: String? = nil,
        message: String,
        attachment: String,
        into file: Int32
    ) async throws(ControlClientError) -> (name: String, mimeType: String, size: Int64) {
        let member = ControlInterface.Method.chatSaveAttachment
        let reply = try await self.call(
            member,
            [.string(channel), .string(thread ?? ""), .string(message), .string(attachment), .unixFD(file)]
        )
        guard let saved = reply.first?.stringDictionary, let size = saved["Size"]?.int64 else { throw .malformed(member, reply) }
        return (saved["Name"]?.string ?? "", saved["MimeType"]?.string ?? "", size)
    }

    /// Sends the regular file open at `file` as `name`; answers as ``chatSendMessage(channel:thread:text:)``.
    @discardableResult
    public func chatSendFile(
        channel: String,
        thread: String? = nil,
        name: String,
        mimeType: String,
        from file: Int32
    ) async throws(ControlClientError) -> [String: String] {
        let member = ControlInterface.Method.chatSendFile
        let reply = try await self.call(member, [.string(channel), .string(thread ?? ""), .string(name), .string(mimeType), .unixFD(file)])
        var result: [String: String] = [:]
        for (key, value) in reply.first?.stringDictionary ?? [:] { result[key] = value.string }
        if result["delivery"] == nil { result["delivery"] = "sent" }
        return result
    }
}
