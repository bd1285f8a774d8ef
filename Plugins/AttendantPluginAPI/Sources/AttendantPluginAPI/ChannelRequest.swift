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
    /// Answers a message with one of its ``ChatMessage/choices`` (a quick reply's postback, the answer to
    /// an inactivity prompt), as the vendor's SDK answers it (since API 1.13).
    case choose(threadID: String?, messageID: String, choiceID: String)
    /// The person has seen the thread's messages up to `messageID` (nil: all of them): the channel tells
    /// the agent where its protocol can (CXone MessageSeenByCustomer; since API 1.13).
    case markRead(threadID: String?, messageID: String?)
    /// Older messages of the thread than the channel has given so far, answered as a ``ChannelReply/thread(_:)``
    /// whose `lastMessages` are those older messages, oldest first, empty when there are no more (CXone
    /// LoadMoreMessages; since API 1.13).
    case loadOlderMessages(threadID: String?)
    /// Fetches one of a message's ``ChatMessage/attachments``, answered as ``ChannelReply/file(_:)`` (since
    /// API 1.13). The channel keeps the file's address (often a signed URL) to itself; the host stores the
    /// file where the person asked, under a safe name.
    case downloadAttachment(threadID: String?, messageID: String, attachmentID: String)
    /// Sends a file on a thread (nil: the current one), as the vendor's SDK uploads one; a type or a size
    /// the channel does not take fails with ``ChannelError/Code/invalidArgument`` saying what it takes
    /// (since API 1.13).
    case sendFile(threadID: String?, file: ChatFile)
    /// E-mails the thread's transcript (nil: the current thread) to `email`, where the channel allows it
    /// (CXone SendTranscript; since API 1.13). A channel that does not allow it fails with
    /// ``ChannelError/Code/unsupported``, an address it does not take with ``ChannelError/Code/invalidArgument``.
    case sendTranscript(threadID: String?, email: String)

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
        case .choose: "choose"
        case .markRead: "mark-read"
        case .loadOlderMessages: "load-older-messages"
        case .downloadAttachment: "download-attachment"
        case .sendFile: "send-file"
        case .sendTranscript: "send-transcript"
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
    /// A file (``ChannelRequest/downloadAttachment(threadID:messageID:attachmentID:)``; since API 1.13).
    case file(ChatFile)
}

/// A whole file, to send or as received (since API 1.13).
public struct ChatFile: Sendable, Hashable {
    /// The file's name, without folders.
    public var name: String
    public var mimeType: String
    public var bytes: [UInt8]

    public init(name: String, mimeType: String, bytes: [UInt8]) {
        self.name = name
        self.mimeType = mimeType
        self.bytes = bytes
    }
}
