package import AttendantPluginAPI

/// What attendantctl and D-Bus clients ask of a genesys-messaging channel, read from the API's request with
/// the names and reply shapes of the other chat channels.
package enum GenesysChatCommand: Sendable, Hashable {
    /// `prepare` and `connect`: the session is configured by `listen()`; nothing to do.
    case ready
    /// `create-thread`: a new chat, after the conversation went read-only.
    case newChat
    case listThreads
    case openThread(String?)
    case send(String)
    /// `typing` and `chat-typing`.
    case typing(started: Bool)
    /// `choose`: a quick reply or a card's button.
    case choose(messageID: String, choiceID: String)
    case endConversation
    /// `chat-status`: the session's fields.
    case status
    /// `download-attachment`: a file the agent sent.
    case download(messageID: String, attachmentID: String)
    /// `send-file`.
    case sendFile(ChatFile)

    package init(_ request: ChannelRequest) throws(ChannelError) {
        switch request {
        case .prepare, .connect:
            self = .ready
        case .createThread:
            self = .newChat
        case .listThreads:
            self = .listThreads
        case .openThread(let threadID):
            self = .openThread(threadID)
        case .sendMessage(_, let text):
            guard !text.isEmpty else { throw ChannelError(.invalidArgument, "\(GenesysChatSession.prefix): a message needs text") }
            self = .send(text)
        case .typing(_, let started):
            self = .typing(started: started)
        case .custom("chat-typing", let arguments):
            self = .typing(started: (arguments["state"] ?? "started") == "started")
        case .choose(_, let messageID, let choiceID):
            self = .choose(messageID: messageID, choiceID: choiceID)
        case .endConversation:
            self = .endConversation
        case .custom("chat-status", _):
            self = .status
        case .downloadAttachment(_, let messageID, let attachmentID):
            self = .download(messageID: messageID, attachmentID: attachmentID)
        case .sendFile(_, let file):
            self = .sendFile(file)
        default:
            throw ChannelError(
                .unsupported,
                "\(GenesysChatSession.prefix): no \(request.name) requests here; it knows prepare, connect, create-thread, list-threads, open-thread, send-message, typing, choose, download-attachment, send-file, end-conversation and chat-status"
            )
        }
    }
}
