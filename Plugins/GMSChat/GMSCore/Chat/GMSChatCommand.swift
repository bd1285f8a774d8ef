package import AttendantPluginAPI

/// What attendantctl and D-Bus clients ask of a GMSChat channel, read from the API's request and checked
/// against the chat API version before anything is sent.
package enum GMSChatCommand: Sendable, Hashable {
    /// `prepare` and `connect`: starts a chat unless one is active.
    case start
    case listThreads
    /// `open-thread`: the chat's thread with its last messages.
    case openThread(String)
    /// `load-older-messages`: the page before those given.
    case loadOlder(String?)
    /// `download-attachment`: a file of a message (v2 `fileDownload`).
    case download(messageID: String, attachmentID: String)
    /// `send-file` (v2 `fileGetLimits`, then `fileUpload`).
    case sendFile(ChatFile)
    /// `chat-status`: the session's and the Bayeux client's fields.
    case status
    /// An operation of the chat, with the chat's keys.
    case operate(GMSChatOperation)

    /// Reads `request` for a channel on chat API `apiVersion`, or says what is wrong with it.
    package init(_ request: ChannelRequest, apiVersion: Int) throws(ChannelError) {
        switch request {
        case .prepare, .connect:
            self = .start
        case .listThreads:
            self = .listThreads
        case .openThread(let threadID):
            self = .openThread(threadID)
        case .loadOlderMessages(let threadID):
            self = .loadOlder(threadID)
        case .downloadAttachment(_, let messageID, let attachmentID):
            try Self.filesNeedV2(apiVersion)
            self = .download(messageID: messageID, attachmentID: attachmentID)
        case .sendFile(_, let file):
            try Self.filesNeedV2(apiVersion)
            self = .sendFile(file)
        case .sendMessage(_, let text):
            self = .operate(GMSChatOperation(v2: "sendMessage", v1: "send", fields: ["message": text], reply: .done, startsChat: true))
        case .typing(_, let started):
            self = .typing(started)
        case .custom("chat-typing", let arguments):
            self = .typing((arguments["state"] ?? "started") == "started")
        case .endConversation:
            self = .operate(GMSChatOperation(v2: "disconnect", v1: "disconnect", reply: .done))
        case .custom("chat-status", _):
            self = .status
        case .custom("chat-nickname", let arguments):
            self = try Self.v2Only("updateNickname", ["nickname": arguments["nickname"] ?? ""], "a nickname change", apiVersion: apiVersion)
        case .custom("chat-push-url", let arguments):
            self = try Self.v2Only("pushUrl", ["pushUrl": arguments["url"] ?? ""], "a pushed URL", apiVersion: apiVersion)
        case .custom("chat-notice", let arguments):
            self = try Self.v2Only("customNotice", ["message": arguments["text"] ?? ""], "a custom notice", apiVersion: apiVersion)
        default:
            throw ChannelError(
                .unsupported,
                "\(GMSChatSession.prefix): no \(request.name) requests here; it knows prepare, connect, list-threads, open-thread, load-older-messages, download-attachment, send-file, send-message, typing, end-conversation, chat-status, chat-nickname, chat-push-url and chat-notice"
            )
        }
    }

    /// Whether a chat is started first when there is none: to start one, to send a file or a message.
    package var startsChat: Bool {
        switch self {
        case .start, .sendFile: true
        case .operate(let operation): operation.startsChat
        case .listThreads, .openThread, .loadOlder, .download, .status: false
        }
    }

    /// An operation only chat API v2 has (v1's HTTP operations have no customer side for it), with
    /// `fields` that must not be empty.
    static func v2Only(_ name: String, _ fields: [String: String], _ what: String, apiVersion: Int) throws(ChannelError) -> GMSChatCommand {
        guard apiVersion == 2 else {
            throw ChannelError(
                .unsupported,
                "\(GMSChatSession.prefix): GMS chat API v1 has no customer operation for \(what); it needs api-version = 2"
            )
        }
        guard fields.values.allSatisfy({ !$0.isEmpty }) else {
            throw ChannelError(.illegalState, "\(GMSChatSession.prefix): \(what) needs \(fields.keys.sorted().joined(separator: " and "))")
        }
        return .operate(GMSChatOperation(v2: name, v1: name, fields: fields, reply: .fields(["operation": name])))
    }

    /// Files are chat API v2's (its HTTP file management); v1 has no file operations for the customer.
    static func filesNeedV2(_ apiVersion: Int) throws(ChannelError) {
        guard apiVersion == 2 else {
            throw ChannelError(.unsupported, "\(GMSChatSession.prefix): GMS chat API v1 has no file operations; files need api-version = 2")
        }
    }

    static func typing(_ started: Bool) -> GMSChatCommand {
        let name = started ? "startTyping" : "stopTyping"
        return .operate(GMSChatOperation(v2: name, v1: name, reply: .fields(["typing": started ? "started" : "stopped"])))
    }
}

/// A chat operation: a v2 publish on the service channel, or a v1 POST to `…/ixn/chat/<v1>`.
package struct GMSChatOperation: Sendable, Hashable {
    /// v2's `operation`.
    package var v2: String
    /// v1's path under `…/ixn/chat/`.
    package var v1: String
    /// The operation's own fields, as strings (the chat's keys are added when it is sent).
    package var fields: [String: String]
    /// What the caller hears once the operation went through.
    package var reply: ChannelReply
    /// A chat is started first when there is none (sending a message).
    package var startsChat: Bool

    package init(v2: String, v1: String, fields: [String: String] = [:], reply: ChannelReply, startsChat: Bool = false) {
        self.v2 = v2
        self.v1 = v1
        self.fields = fields
        self.reply = reply
        self.startsChat = startsChat
    }
}
