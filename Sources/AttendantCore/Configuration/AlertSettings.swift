public import AttendantPluginAPI

/// The `[alerts]` table: how desktop alerts behave as a whole.
public struct AlertSettings: Sendable, Equatable {
    /// Chat messages for one thread that arrive within this time of the last shown update are held and
    /// shown together when it ends; the first message after a quiet spell shows at once. Zero shows
    /// every message at once. Calls are never held.
    public var coalesce: Duration = .milliseconds(250)
    /// Whether "do not disturb" is on when the daemon starts.
    public var doNotDisturb = false

    /// The longest ``coalesce`` allowed: longer would make chat alerts late rather than calm.
    public static let longestCoalesce: Duration = .seconds(10)

    public init() {}
}

/// A channel's chat alerts: the `chat-alert-*` keys of its `[[channel]]` table.
///
/// Modelled on Genesys GMS chat push notifications: a filter of transcript event types (by default
/// everything but typing notices), a title ("New message from Agent") and the last transcript lines
/// as the body.
public struct ChatAlertSettings: Sendable, Equatable {
    /// Everything this API version defines except typing notices (GMS's `filtering_chat_events`
    /// default excludes `Notice.TypingStarted` and `Notice.TypingStopped`).
    public static let defaultEvents = Set(ChatMessage.Kind.allKnown).subtracting([.typingStarted, .typingStopped])
    /// How many transcript lines a body may have.
    public static let lineRange = 1...20

    /// The kinds of messages from agents (and notices) that raise or update an alert. Others are not
    /// shown and do not appear in the transcript lines either.
    public var events: Set<ChatMessage.Kind> = Self.defaultEvents
    /// The notification's summary; placeholders ``AlertTemplate/chatPlaceholders``.
    public var title: AlertTemplate = .defaultChatTitle
    /// How many of the thread's last transcript lines the body shows, as `Sender: text`.
    public var lines = 3

    public init() {}
}
