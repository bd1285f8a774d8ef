package import AttendantPluginAPI

/// What attendantctl and D-Bus clients ask of a CXoneChat channel, read from the API's request: the
/// chat's operations (``ChatOperation``) with the timeouts the configuration gives them, and what is
/// answered from the session as it is.
package enum ChatCommand {
    case operation(ChatOperation)
    case listThreads
    /// `chat-status`: the session's fields.
    case status
    /// `pre-chat-form`: the form's fields.
    case preChatForm
    /// Answers a message with one of its choices: the session knows what each sends (``ChatSession/choose(_:id:)``).
    case choose(Choose)
    /// Fetches one of a message's files: the session knows where it is (``ChatSession/fileCall(_:_:)``).
    case downloadAttachment(threadID: String?, messageID: String, attachmentID: String)
    /// The page of a thread's messages before those given (``ChatSession/loadOlder(threadID:timeout:id:)``).
    case loadOlder(threadID: String?, timeout: Duration)
    /// Uploads a file and sends it as a message (``ChatSession/fileCall(_:_:)``), once the channel's
    /// restrictions say it takes it.
    case sendFile(threadID: String?, ChatFile)
    /// E-mails a thread's transcript (``ChatSession/sendTranscript(threadID:email:timeout:id:)``).
    case sendTranscript(threadID: String?, email: String, timeout: Duration)

    /// A choice to answer with, and how the answer is sent.
    package struct Choose: Sendable {
        package var threadID: String?
        package var messageID: String
        package var choiceID: String
        package var now: UnixTime
        package var timeout: Duration
        package var gateway: String

        package init(threadID: String?, messageID: String, choiceID: String, now: UnixTime, timeout: Duration, gateway: String) {
            self.threadID = threadID
            self.messageID = messageID
            self.choiceID = choiceID
            self.now = now
            self.timeout = timeout
            self.gateway = gateway
        }
    }

    /// What the configuration says about the operations.
    package struct Settings: Sendable {
        package var brandID: Int
        package var channelID: String
        /// A REST call's time limit.
        package var requestTimeout: Duration
        /// How long the gateway has to answer an event.
        package var responseTimeout: Duration
        /// Where the socket goes, for messages.
        package var gatewayDescription: String
        /// The largest attachment fetched (`max-attachment-size`, bytes).
        package var maximumAttachmentSize: Int

        package init(
            brandID: Int,
            channelID: String,
            requestTimeout: Duration,
            responseTimeout: Duration,
            gatewayDescription: String,
            maximumAttachmentSize: Int = 25 << 20
        ) {
            self.brandID = brandID
            self.channelID = channelID
            self.requestTimeout = requestTimeout
            self.responseTimeout = responseTimeout
            self.gatewayDescription = gatewayDescription
            self.maximumAttachmentSize = maximumAttachmentSize
        }

        /// Fetches the channel configuration (three REST calls at most) and stores the visitor.
        package var prepare: ChatOperation {
            .prepare(brandID: self.brandID, channelID: self.channelID, timeout: self.requestTimeout * 3)
        }

        /// Connects and waits until the chat is ready (authorize, threads, their metadata, a REST call).
        package var connect: ChatOperation {
            .connect(channelDescription: "brand \(self.brandID), channel \(self.channelID)", timeout: self.responseTimeout * 4 + self.requestTimeout)
        }

        /// A heartbeat now, over when its pong comes (the machine's pong timeout ends it sooner).
        package var checkConnection: ChatOperation {
            .checkConnection(timeout: self.responseTimeout)
        }
    }

    /// Reads `request` (at `now`), or says what is wrong with it.
    package init(_ request: ChannelRequest, settings: Settings, now: UnixTime) throws(ChannelError) {
        let timeout = settings.responseTimeout
        switch request {
        case .prepare: self = .operation(settings.prepare)
        case .connect: self = .operation(settings.connect)
        case .viewPage(let title, let url): self = .operation(.viewPage(title: title, url: url, at: now))
        case .listThreads: self = .listThreads
        case .createThread(let fields): self = .operation(.createThread(customFields: fields))
        case .openThread(let threadID): self = .operation(.openThread(threadID, timeout: timeout))
        case .endConversation(let threadID): self = .operation(.endConversation(threadID, timeout: timeout))
        case .sendMessage(let threadID, let text):
            self = .operation(try .sendMessage(text, to: threadID, at: now, timeout: timeout, gateway: settings.gatewayDescription))
        case .typing(let threadID, let started):
            var arguments = ["state": started ? "started" : "stopped"]
            arguments["thread"] = threadID
            self = .operation(try .typing(arguments))
        case .choose(let threadID, let messageID, let choiceID):
            self = .choose(
                Choose(threadID: threadID, messageID: messageID, choiceID: choiceID, now: now, timeout: timeout, gateway: settings.gatewayDescription)
            )
        case .markRead(let threadID, _): self = .operation(.markRead(threadID))
        case .loadOlderMessages(let threadID): self = .loadOlder(threadID: threadID, timeout: timeout)
        case .downloadAttachment(let threadID, let messageID, let attachmentID):
            self = .downloadAttachment(threadID: threadID, messageID: messageID, attachmentID: attachmentID)
        case .sendFile(let threadID, let file): self = .sendFile(threadID: threadID, file)
        case .sendTranscript(let threadID, let email): self = .sendTranscript(threadID: threadID, email: email, timeout: timeout)
        case .custom("chat-typing", let arguments): self = .operation(try .typing(arguments))
        case .custom("chat-status", _): self = .status
        case .custom("pre-chat-form", _): self = .preChatForm
        default:
            throw ChannelError(
                .unsupported,
                "\(ChatSession.prefix): no \(request.name) requests here; it knows prepare, connect, view-page, list-threads, create-thread, open-thread, send-message, end-conversation, typing, choose, mark-read, load-older-messages, download-attachment, send-file, send-transcript, chat-status, chat-typing and pre-chat-form"
            )
        }
    }
}
