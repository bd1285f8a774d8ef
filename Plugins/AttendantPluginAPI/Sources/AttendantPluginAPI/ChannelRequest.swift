// MARK: - Plugin SPI: user operations

/// A user operation the host passes to ``Channel/perform(_:)``, from `attendantctl`, the D-Bus API or a
/// notification button. New cases are added in minor versions; channels answer the ones they do not
/// know with ``ChannelError/Code/unsupported`` (the default ``Channel/perform(_:)`` does).
public enum ChannelRequest: Sendable, Hashable {
    // Contacts (all kinds)
    case accept(contactID: String)
    case decline(contactID: String)

    // Chat
    case prepare
    case connect
    case viewPage(title: String, url: String)
    case listThreads
    case createThread(customFields: [String: String])
    case openThread(threadID: String)
    case sendMessage(threadID: String?, text: String)
    case endConversation(threadID: String?)
    /// The person at the desk started or stopped typing in a thread (nil: the current one); the channel
    /// tells the agent (CXone SenderTypingStarted/Ended, GMS startTyping/stopTyping; since API 1.5).
    case typing(threadID: String?, started: Bool)

    // In-app actions
    case dismiss(actionID: String?)
    case suppress
    case unsuppress

    /// A plugin-specific operation, such as the Loopback plugin's `ring`.
    case custom(command: String, arguments: [String: String])

    /// The operation's name, as used by `attendantctl` and in error messages.
    public var name: String {
        switch self {
        case .accept: "accept"
        case .decline: "decline"
        case .prepare: "prepare"
        case .connect: "connect"
        case .viewPage: "view-page"
        case .listThreads: "list-threads"
        case .createThread: "create-thread"
        case .openThread: "open-thread"
        case .sendMessage: "send-message"
        case .endConversation: "end-conversation"
        case .typing: "typing"
        case .dismiss: "dismiss"
        case .suppress: "suppress"
        case .unsuppress: "unsuppress"
        case .custom(let command, _): command
        }
    }
}

/// What a channel answers to a request.
public enum ChannelReply: Sendable, Hashable {
    /// Done; nothing to report.
    case done
    /// A contact (for example the one a request created).
    case contact(Contact)
    /// A chat thread (created or opened).
    case thread(ChatThread)
    /// Chat threads (for ``ChannelRequest/listThreads``).
    case threads([ChatThread])
    /// Plugin-specific key-value results.
    case fields([String: String])
}
