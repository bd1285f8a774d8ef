package import AttendantPluginAPI

/// The `[alerts]` table: how desktop alerts behave as a whole.
package struct AlertSettings: Sendable, Equatable {
    /// Chat messages for one thread that arrive within this time of the last shown update are held and
    /// shown together when it ends; the first message after a quiet spell shows at once. Zero shows
    /// every message at once. Calls are never held.
    package var coalesce: Duration = .milliseconds(250)
    /// Whether "do not disturb" is on when the daemon starts.
    package var doNotDisturb = false
    /// Whether a ringing call is heard too (``CallRinger``), repeating until the call ends.
    package var ring = true
    /// The sound file a ringing call plays; nil plays the sound theme's `phone-incoming-call` event.
    package var ringSound: String?
    /// The program (and its first arguments) that runs a command in a new terminal window, the command
    /// following: how a chat notification opens the conversation view. Nil: `xdg-terminal-exec` where it
    /// is installed, otherwise Debian's `x-terminal-emulator -e` (``ConversationOpener``).
    package var terminal: [String]?

    /// The longest ``coalesce`` allowed: longer would make chat alerts late rather than calm.
    package static let longestCoalesce: Duration = .seconds(10)

    package init() {}
}

/// A channel's chat alerts: the `chat-alert-*` keys of its `[[channel]]` table.
///
/// Modelled on Genesys GMS chat push notifications: a filter of transcript event types (by default
/// everything but typing notices), a title ("New message from Agent") and the last transcript lines
/// as the body.
package struct ChatAlertSettings: Sendable, Equatable {
    /// Everything this API version defines except typing notices (GMS's `filtering_chat_events`
    /// default excludes `Notice.TypingStarted` and `Notice.TypingStopped`).
    package static let defaultEvents = Set(ChatMessage.Kind.allKnown).subtracting([.typingStarted, .typingStopped])
    /// How many transcript lines a body may have.
    package static let lineRange = 1...20

    /// The kinds of messages from agents (and notices) that raise or update an alert. Others are not
    /// shown and do not appear in the transcript lines either.
    package var events: Set<ChatMessage.Kind> = Self.defaultEvents
    /// The notification's summary; placeholders ``AlertTemplate/chatPlaceholders``.
    package var title: AlertTemplate = .defaultChatTitle
    /// Whether the channel set `chat-alert-title`; if not, its plugin's default title (if it has one) wins.
    package var titleIsSet = false
    /// How many of the thread's last transcript lines the body shows, as `Sender: text`.
    package var lines = 3

    package init() {}
}
