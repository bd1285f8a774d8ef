/// When the conversation view tells the agent that the person is typing: a pure machine on a monotonic
/// clock's instants, fed with edits, sends and ticks.
///
/// Rules:
/// - The first edit that leaves text in the input line sends `started`, and at most one `started` goes
///   out per ``interval`` (5 s): typing again within 5 s of the last `started` waits for the rest of the
///   5 s and sends it then, if the person is still typing.
/// - `stopped` goes out after ``interval`` without an edit, when the message is sent, and when the line is
///   emptied; never without a `started` before it.
///
/// Neither CXone nor GMS rate-limits the typing events itself: the CXone SDKs send `SenderTypingStarted`
/// and `SenderTypingEnded` each time the app reports typing (CXoneChatSDK's `reportTypingStart`), and GMS's
/// chat API v2 takes `startTyping`/`stopTyping` as often as they come. The 5 s are our choice, the figure
/// chat SDKs commonly use (Twilio Conversations sends typing at most once every 5 s; PubNub's Chat SDK
/// times typing out after 5 s).
struct TypingLimiter: Sendable, Hashable {
    typealias Instant = ContinuousClock.Instant

    static let interval = Duration.seconds(5)

    enum Action: Sendable, Hashable {
        case started
        case stopped
    }

    private enum State: Sendable, Hashable {
        /// Not typing; when the last `started` went out.
        case idle(lastStarted: Instant?)
        /// Typing, but the last `started` is less than ``interval`` old: it waits.
        case held(lastStarted: Instant, lastEdit: Instant)
        /// Typing, and the agent was told.
        case typing(started: Instant, lastEdit: Instant)
    }

    private var state = State.idle(lastStarted: nil)

    init() {}

    /// Whether the agent was last told `started`.
    var toldTyping: Bool {
        if case .typing = self.state { true } else { false }
    }

    /// The person changed the input line; `empty` when no text is left.
    mutating func edited(at now: Instant, empty: Bool) -> Action? {
        switch self.state {
        case .idle(let lastStarted):
            guard !empty else { return nil }
            if let lastStarted, now - lastStarted < Self.interval {
                self.state = .held(lastStarted: lastStarted, lastEdit: now)
                return nil
            }
            self.state = .typing(started: now, lastEdit: now)
            return .started
        case .held(let lastStarted, _):
            self.state = empty ? .idle(lastStarted: lastStarted) : .held(lastStarted: lastStarted, lastEdit: now)
            return nil
        case .typing(let started, _):
            if empty {
                self.state = .idle(lastStarted: started)
                return .stopped
            }
            self.state = .typing(started: started, lastEdit: now)
            return nil
        }
    }

    /// The person sent the line.
    mutating func sent(at now: Instant) -> Action? {
        switch self.state {
        case .idle:
            return nil
        case .held(let lastStarted, _):
            self.state = .idle(lastStarted: lastStarted)
            return nil
        case .typing(let started, _):
            self.state = .idle(lastStarted: started)
            return .stopped
        }
    }

    /// Time passed: a held `started` may go out, a pause may end the typing.
    mutating func tick(at now: Instant) -> Action? {
        switch self.state {
        case .idle:
            return nil
        case .held(let lastStarted, let lastEdit):
            if now - lastEdit >= Self.interval {
                self.state = .idle(lastStarted: lastStarted)
                return nil
            }
            guard now - lastStarted >= Self.interval else { return nil }
            self.state = .typing(started: now, lastEdit: lastEdit)
            return .started
        case .typing(let started, let lastEdit):
            guard now - lastEdit >= Self.interval else { return nil }
            self.state = .idle(lastStarted: started)
            return .stopped
        }
    }

    /// When ``tick(at:)`` next has something to do; nil when nothing waits.
    var deadline: Instant? {
        switch self.state {
        case .idle: nil
        case .held(let lastStarted, let lastEdit): min(lastStarted, lastEdit) + Self.interval
        case .typing(_, let lastEdit): lastEdit + Self.interval
        }
    }
}
