/// The chat itself, as one state: what exists only while it starts (the callers waiting for it, v1's
/// interaction being created) lives in ``starting(_:)``, and its keys and contact only in ``active(_:)``.
///
/// A start (``start(_:timeout:)``) asks GMS for a chat; v2's reply brings the keys, while v1's
/// `request-chat` makes the chat's service, whose interaction is created once the session is connected
/// (as GMS's clients do) and brings them. A start that fails or does not come in time leaves no chat; one
/// that comes makes the chat active until GMS says it is over.
package enum GMSChat: Sendable, Hashable {
    /// No chat: one starts with `chat connect`, the first `chat send`, or `auto-start`. `lastThread` is
    /// the thread of a chat that ended before a start that failed: still listed, closed.
    case none(lastThread: String?)
    case starting(Starting)
    case active(Active)
    /// GMS said the chat is over: its thread is listed, closed.
    case ended(thread: String)

    /// The chat's phase, as the store keeps it and `chat status` shows it.
    package enum Phase: String, Sendable {
        case none
        case starting
        case active
        case ended
    }

    /// A start under way.
    package struct Starting: Sendable, Hashable {
        /// The thread of the chat before, listed closed meanwhile.
        package var lastThread: String?
        package var step = Step.requesting
        /// The callers waiting, by request id, each with its timeout.
        package var waiting: [UInt64: Duration] = [:]

        package init(lastThread: String?, waiting: [UInt64: Duration] = [:]) {
            self.lastThread = lastThread
            self.waiting = waiting
        }
    }

    /// Where a start is.
    package enum Step: Sendable, Hashable {
        /// GMS is asked for a chat (v2 `requestChat`, whose reply brings the keys; v1 `request-chat`).
        case requesting
        /// v1: `request-chat` made the chat's service; its interaction is created once connected.
        case serviceMade(serviceID: String)
        /// v1: the chat interaction of the service is being created.
        case creating(serviceID: String)
    }

    /// A chat GMS started.
    package struct Active: Sendable, Hashable {
        package var keys: GMSChatKeys
        /// The chat's id for the host (contacts, alerts, D-Bus): a local one, since GMS's are secrets.
        package var thread: String
        package var contact: Contact

        package init(keys: GMSChatKeys, thread: String, contact: Contact) {
            self.keys = keys
            self.thread = thread
            self.contact = contact
        }
    }

    /// The chat's contact, which the agent's first message records and the chat's end ends.
    package enum Contact: Sendable, Hashable {
        case awaitingAgent
        case recorded
    }

    package var phase: Phase {
        switch self {
        case .none: .none
        case .starting: .starting
        case .active: .active
        case .ended: .ended
        }
    }

    /// The thread the host sees: the active chat's, or the last one's (closed).
    package var thread: String? {
        switch self {
        case .none(let lastThread): lastThread
        case .starting(let starting): starting.lastThread
        case .active(let active): active.thread
        case .ended(let thread): thread
        }
    }

    /// The active chat, if there is one.
    package var active: Active? {
        if case .active(let active) = self { return active }
        return nil
    }

    // MARK: Starting

    /// What a start asked for leads to.
    package enum StartOutcome: Sendable, Hashable {
        /// A chat is active: the caller hears so at once.
        case active
        /// The caller waits for the start under way.
        case waiting
        /// The caller waits for a new start: ask GMS for a chat.
        case requestChat
    }

    /// Request `id` waits, for at most `timeout`, for a chat to start (unless one is active); a new start
    /// only if `mayStart`.
    package mutating func start(_ id: UInt64, timeout: Duration, mayStart: Bool) -> StartOutcome? {
        switch self {
        case .active:
            return .active
        case .starting(var starting):
            starting.waiting[id] = timeout
            self = .starting(starting)
            return .waiting
        case .none, .ended:
            guard mayStart else { return nil }
            self = .starting(Starting(lastThread: self.thread, waiting: [id: timeout]))
            return .requestChat
        }
    }

    /// v1: `request-chat` made the chat's service: the service whose interaction to create now, if
    /// `connected` (and none is being created), or nil.
    package mutating func serviceMade(_ serviceID: String, connected: Bool) -> String? {
        guard case .starting(var starting) = self else { return nil }
        if case .creating = starting.step { return nil }
        starting.step = connected ? .creating(serviceID: serviceID) : .serviceMade(serviceID: serviceID)
        self = .starting(starting)
        return connected ? serviceID : nil
    }

    /// A connect succeeded: v1's service whose interaction to create now, if one waits for it.
    package mutating func connected() -> String? {
        guard case .starting(var starting) = self, case .serviceMade(let serviceID) = starting.step else { return nil }
        starting.step = .creating(serviceID: serviceID)
        self = .starting(starting)
        return serviceID
    }

    /// GMS gave the chat's keys: the chat is active with `thread`. The callers that waited, in request
    /// order.
    package mutating func began(_ keys: GMSChatKeys, thread: String) -> [UInt64] {
        let waiting = self.waiting
        self = .active(Active(keys: keys, thread: thread, contact: .awaitingAgent))
        return waiting
    }

    /// The start failed: no chat. The callers that waited, in request order.
    package mutating func startFailed() -> [UInt64] {
        guard case .starting(let starting) = self else { return [] }
        self = .none(lastThread: starting.lastThread)
        return starting.waiting.keys.sorted()
    }

    /// Request `id`'s time is up: its timeout, if it waited for the start.
    package mutating func timeOut(_ id: UInt64) -> Duration? {
        guard case .starting(var starting) = self, let timeout = starting.waiting.removeValue(forKey: id) else { return nil }
        self = .starting(starting)
        return timeout
    }

    /// Request `id`'s caller is gone.
    package mutating func forget(_ id: UInt64) {
        _ = self.timeOut(id)
    }

    /// The callers waiting for the start, in request order.
    var waiting: [UInt64] {
        guard case .starting(let starting) = self else { return [] }
        return starting.waiting.keys.sorted()
    }

    // MARK: The active chat

    /// Changes the active chat; nil (and nothing changes) if none is.
    @discardableResult
    package mutating func modifyActive<Result>(_ body: (inout Active) -> Result) -> Result? {
        guard case .active(var active) = self else { return nil }
        defer { self = .active(active) }
        return body(&active)
    }

    /// GMS said the chat is over: the chat that was active, if one was.
    package mutating func end() -> Active? {
        guard case .active(let active) = self else { return nil }
        self = .ended(thread: active.thread)
        return active
    }
}
