import AttendantPluginAPI

/// The Loopback channel's in-memory chat: the chat requests as a state machine that answers each with a
/// reply and the events a chat channel emits, with no I/O and no clock of its own (times come in).
///
/// ```
/// initial ──prepare──▶ prepared ──connect──▶ ready    (threads, messages, page views)
/// ```
/// Requests out of that order fail with `.illegalState` and say what to do first.
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
    /// How many messages a thread keeps.
    static let keptMessages = 20

    private(set) var state = ChatState.initial
    /// In the order they were created.
    private(set) var threads: [ChatThread] = []
    /// Where a send or end without a thread goes: the thread created or opened last.
    private(set) var currentThread: String?
    private(set) var lastPage: (title: String, url: String)?
    private var nextThread = 1
    private var nextMessage = 1

    /// Whether `request` is one of the chat requests.
    static func handles(_ request: ChannelRequest) -> Bool {
        switch request {
        case .prepare, .connect, .viewPage, .listThreads, .createThread, .openThread, .sendMessage, .endConversation: true
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
            return Outcome(reply: .threads(self.threads))
        case .createThread(let fields):
            try self.requireReady(request)
            let number = self.nextThread
            self.nextThread += 1
            let thread = ChatThread(id: "thread-\(number)", name: fields["name"] ?? "Loopback thread \(number)", state: .ready)
            self.threads.append(thread)
            self.currentThread = thread.id
            return Outcome(reply: .thread(thread), events: [.threadUpdated(thread)])
        case .openThread(let id):
            try self.requireReady(request)
            let thread = self.threads[try self.index(id)]
            self.currentThread = id
            return Outcome(reply: .thread(thread))
        case .sendMessage(let id, let text):
            try self.requireReady(request)
            let index = try self.openThread(id, request)
            let message = ChatMessage(
                id: self.messageID(),
                threadID: self.threads[index].id,
                direction: .toAgent,
                sender: Self.customer,
                text: text,
                sentAt: now
            )
            self.append(message, to: index)
            return Outcome(reply: .done, events: [.threadUpdated(self.threads[index])], sent: message)
        case .endConversation(let id):
            try self.requireReady(request)
            let index = try self.openThread(id, request)
            self.threads[index].state = .closed
            return Outcome(reply: .done, events: [.threadUpdated(self.threads[index])])
        default:
            return nil
        }
    }

    /// The scripted agent's answer to `message`; nil when its thread has closed meanwhile.
    mutating func agentReply(to message: ChatMessage, now: UnixTime) -> [ChannelEvent] {
        guard let index = self.threads.firstIndex(where: { $0.id == message.threadID }), self.threads[index].state != .closed else { return [] }
        let reply = ChatMessage(
            id: self.messageID(),
            threadID: message.threadID,
            direction: .fromAgent,
            sender: Self.agent,
            text: "Echo: \(message.text)",
            sentAt: now
        )
        self.append(reply, to: index)
        return [.messageReceived(reply), .threadUpdated(self.threads[index])]
    }

    private func requireReady(_ request: ChannelRequest) throws(ChannelError) {
        guard self.state == .ready else {
            let first = self.state == .initial ? "prepare and connect the chat first" : "connect the chat first"
            throw ChannelError(.illegalState, "loopback: \(request.name) before connect (the chat is \(self.state)); \(first)")
        }
    }

    private func index(_ id: String) throws(ChannelError) -> Int {
        guard let index = self.threads.firstIndex(where: { $0.id == id }) else {
            let known = self.threads.isEmpty ? "there are no threads yet" : "threads: " + self.threads.map(\.id).joined(separator: ", ")
            throw ChannelError(.server, "loopback: no thread \"\(id)\"; \(known)")
        }
        return index
    }

    /// The index of the thread `id` names (or the current one) if it is open.
    private func openThread(_ id: String?, _ request: ChannelRequest) throws(ChannelError) -> Int {
        guard let id = id ?? self.currentThread else {
            throw ChannelError(.illegalState, "loopback: \(request.name) without a thread, and none was created or opened; create a thread first")
        }
        let index = try self.index(id)
        guard self.threads[index].state != .closed else {
            throw ChannelError(.illegalState, "loopback: \(request.name) on thread \(id), which is closed; create a new thread")
        }
        return index
    }

    private mutating func append(_ message: ChatMessage, to index: Int) {
        self.threads[index].lastMessages.append(message)
        self.threads[index].lastMessages = Array(self.threads[index].lastMessages.suffix(Self.keptMessages))
    }

    private mutating func messageID() -> String {
        defer { self.nextMessage += 1 }
        return "message-\(self.nextMessage)"
    }
}
