import AttendantPluginAPI

/// The Loopback channel's in-memory chat: the chat requests as a state machine that answers each with a
/// reply and the events a chat channel emits, with no I/O and no clock of its own (times come in).
///
/// ```
/// initial ──prepare──▶ prepared ──connect──▶ ready    (threads, messages, page views)
/// ```
/// Requests out of that order fail with `.illegalState` and say what to do first. A thread keeps its whole
/// history; what a request or an event gives of it is the last ``pageSize`` messages, and
/// `load-older-messages` pages back from there (``LoopbackChat+Answers.swift``).
struct LoopbackChat: Sendable {
    /// What a request did: the reply, the events to emit, and the customer's message an echoing agent
    /// answers.
    struct Outcome: Sendable {
        var reply: ChannelReply
        var events: [ChannelEvent] = []
        var sent: ChatMessage?
    }

    static let customer = Party(displayName: "You", address: "loopback:customer")
    static let agent = Party(displayName: "Loopback Agent", address: "loopback:agent")
    /// How many messages a thread's `lastMessages` and a page of older ones hold.
    static let pageSize = 20

    private(set) var state = ChatState.initial
    /// In the order they were created, each with its whole history as `lastMessages` (``given(_:)`` is what
    /// a reply holds).
    private(set) var threads: [ChatThread] = []
    /// Where a send or end without a thread goes: the thread created or opened last.
    private(set) var currentThread: String?
    private(set) var lastPage: (title: String, url: String)?
    /// Per thread, the place in its history of the oldest message given since it was last listed or opened:
    /// the next page of older messages ends there.
    var oldestGiven: [String: Int] = [:]
    /// Per thread, the last message the person has seen (`mark-read`).
    var readUpTo: [String: String] = [:]
    /// The files of the messages' attachments, by ``fileKey(message:attachment:)``.
    var files: [String: ChatFile] = [:]
    private var nextThread = 1
    private var nextMessage = 1

    /// Whether `request` is one of the chat requests.
    static func handles(_ request: ChannelRequest) -> Bool {
        switch request {
        case .prepare, .connect, .viewPage, .listThreads, .createThread, .openThread, .sendMessage, .endConversation: true
        case .choose, .markRead, .loadOlderMessages, .downloadAttachment, .sendFile, .custom("idle", _), .custom("chat-status", _): true
        default: false
        }
    }

    /// Carries out a chat request; nil when `request` is not one.
    mutating func handle(_ request: ChannelRequest, now: UnixTime) throws(ChannelError) -> Outcome? {
        switch request {
        case .prepare:
            switch self.state {
            case .initial:
                self.state = .prepared
                return Outcome(reply: .done, events: [.chatStateChanged(.prepared)])
            case .prepared:
                return Outcome(reply: .done)
            default:
                throw ChannelError(.illegalState, "loopback: prepare while the chat is \(self.state); it is prepared already")
            }
        case .connect:
            switch self.state {
            case .initial:
                throw ChannelError(.illegalState, "loopback: connect before prepare (the chat is initial); prepare the chat first")
            case .prepared:
                self.state = .ready
                return Outcome(reply: .done, events: [.chatStateChanged(.connecting), .chatStateChanged(.ready)])
            default:
                return Outcome(reply: .done)
            }
        case .viewPage(let title, let url):
            guard self.state != .initial else {
                throw ChannelError(.illegalState, "loopback: view-page before prepare (the chat is initial); prepare the chat first")
            }
            self.lastPage = (title, url)
            return Outcome(reply: .done)
        case .listThreads:
            try self.requireReady(request)
            return Outcome(reply: .threads(self.threads.indices.map { self.give($0) }))
        case .createThread(let fields):
            try self.requireReady(request)
            let number = self.nextThread
            self.nextThread += 1
            let thread = ChatThread(id: "thread-\(number)", name: fields["name"] ?? "Loopback thread \(number)", state: .ready)
            self.threads.append(thread)
            self.currentThread = thread.id
            return Outcome(reply: .thread(self.give(self.threads.count - 1)), events: [.threadUpdated(thread)])
        case .openThread(let id):
            try self.requireReady(request)
            let index = try self.index(id)
            self.currentThread = id
            return Outcome(reply: .thread(self.give(index)))
        case .sendMessage(let id, let text):
            try self.requireReady(request)
            let index = try self.openThread(id, request)
            return self.send(ChatMessage(text: text), to: index, now: now)
        case .endConversation(let id):
            try self.requireReady(request)
            let index = try self.openThread(id, request)
            return Outcome(reply: .done, events: self.close(index))
        default:
            return try self.answer(request, now: now)
        }
    }

    /// The scripted agent's answer to `message` (``LoopbackAgent``); nothing when its thread has closed
    /// meanwhile.
    mutating func agentReply(to message: ChatMessage, now: UnixTime) -> [ChannelEvent] {
        guard let index = self.threads.firstIndex(where: { $0.id == message.threadID }), self.threads[index].state != .closed else { return [] }
        return self.agentSays(LoopbackAgent.answer(to: message), in: index, now: now)
    }

    /// The agent's message on thread `index`, with its file kept for `download-attachment`.
    mutating func agentSays(_ answer: LoopbackAgent.Answer, in index: Int, now: UnixTime) -> [ChannelEvent] {
        var reply = ChatMessage(
            id: self.messageID(),
            threadID: self.threads[index].id,
            kind: answer.kind,
            direction: answer.kind == .message ? .fromAgent : .notice,
            sender: Self.agent,
            text: answer.text,
            sentAt: now
        )
        reply.choices = answer.choices
        if let file = answer.file {
            reply.attachments = [Self.attachment(file)]
            self.keep(file, message: reply.id)
        }
        self.threads[index].lastMessages.append(reply)
        return [.messageReceived(reply), .threadUpdated(self.given(index))]
    }

    // MARK: Helpers

    /// Sends the person's `message` (its id, thread, sender and time filled in) on thread `index`.
    mutating func send(_ message: ChatMessage, to index: Int, now: UnixTime) -> Outcome {
        var message = message
        message.id = self.messageID()
        message.threadID = self.threads[index].id
        message.sentAt = now
        self.threads[index].lastMessages.append(message)
        return Outcome(reply: .done, events: [.threadUpdated(self.given(index))], sent: message)
    }

    /// Closes thread `index`.
    mutating func close(_ index: Int) -> [ChannelEvent] {
        self.threads[index].state = .closed
        return [.threadUpdated(self.given(index))]
    }

    /// Thread `index` as a reply or an event holds it: its last ``pageSize`` messages.
    func given(_ index: Int) -> ChatThread {
        var thread = self.threads[index]
        thread.lastMessages = Array(thread.lastMessages.suffix(Self.pageSize))
        return thread
    }

    /// Thread `index` as a list or an open gives it: older pages are counted from its last messages again.
    private mutating func give(_ index: Int) -> ChatThread {
        let thread = self.given(index)
        self.oldestGiven[thread.id] = self.threads[index].lastMessages.count - thread.lastMessages.count
        return thread
    }

    func requireReady(_ request: ChannelRequest) throws(ChannelError) {
        guard self.state == .ready else {
            let first = self.state == .initial ? "prepare and connect the chat first" : "connect the chat first"
            throw ChannelError(.illegalState, "loopback: \(request.name) before connect (the chat is \(self.state)); \(first)")
        }
    }

    func index(_ id: String) throws(ChannelError) -> Int {
        guard let index = self.threads.firstIndex(where: { $0.id == id }) else {
            let known = self.threads.isEmpty ? "there are no threads yet" : "threads: " + self.threads.map(\.id).joined(separator: ", ")
            throw ChannelError(.server, "loopback: no thread \"\(id)\"; \(known)")
        }
        return index
    }

    /// The index of the thread `id` names, or the current one, open or closed.
    func thread(_ id: String?, _ request: ChannelRequest) throws(ChannelError) -> Int {
        guard let id = id ?? self.currentThread else {
            throw ChannelError(.illegalState, "loopback: \(request.name) without a thread, and none was created or opened; create a thread first")
        }
        return try self.index(id)
    }

    /// The index of the thread `id` names (or the current one) if it is open.
    func openThread(_ id: String?, _ request: ChannelRequest) throws(ChannelError) -> Int {
        let index = try self.thread(id, request)
        guard self.threads[index].state != .closed else {
            throw ChannelError(.illegalState, "loopback: \(request.name) on thread \(self.threads[index].id), which is closed; create a new thread")
        }
        return index
    }

    private mutating func messageID() -> String {
        defer { self.nextMessage += 1 }
        return "message-\(self.nextMessage)"
    }
}

extension ChatMessage {
    /// A message of the person at the desk, before the chat gives it an id, a thread and a time.
    init(text: String) {
        self.init(id: "", threadID: "", direction: .toAgent, sender: LoopbackChat.customer, text: text, sentAt: UnixTime(secondsSince1970: 0))
    }
}
