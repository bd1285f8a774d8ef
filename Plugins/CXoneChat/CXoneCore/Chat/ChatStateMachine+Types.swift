package import AttendantPluginAPI
import AttendantPluginKit

extension ChatStateMachine {
    /// How the machine behaves; the defaults are the CXone SDK's.
    package struct Configuration: Sendable, Hashable {
        /// A heartbeat goes out this long after the socket opened and after each pong (10 s).
        package var heartbeatInterval: Duration = .seconds(10)
        /// A heartbeat not answered with a pong within this long means the connection is dead (5 s).
        package var pongTimeout: Duration = .seconds(5)
        /// How long an answer to AuthorizeCustomer, ReconnectCustomer, RecoverThread, FetchThreadList or
        /// LoadThreadMetadata may take (10 s, as the SDK's event timeout).
        package var responseTimeout: Duration = .seconds(10)
        /// Reconnect attempts after the connection is lost, before the machine gives up (20).
        package var maximumReconnectAttempts: Int = 20
        /// The longest wait between reconnect attempts (30 s).
        package var maximumBackoff: Duration = .seconds(30)
        /// A visit lasts this long after the last page view (30 min).
        package var visitLifetime: Duration = .seconds(1800)
        /// How many of a thread's latest messages the machine keeps in ``ChatThread/lastMessages``.
        package var lastMessagesLimit: Int = 50
        /// How many shown agent message ids the machine keeps per thread (see ``ShownMessages``).
        package var shownMessagesLimit: Int = 200
        /// The OAuth authorization code and PKCE code verifier sent with AuthorizeCustomer, when the
        /// channel has authorization enabled and no access token is stored.
        package var authorizationCode: String?
        package var codeVerifier: String?

        package init() {}
    }

    /// The channel configuration the driver fetched (`GET {chat}/1.0/brand/{brandId}/channel/{channelId}`),
    /// the parts the machine needs.
    package struct ChannelConfiguration: Sendable, Hashable {
        /// `isLiveChat`: live chat (asks availability before connecting; one thread at a time).
        package var isLiveChat: Bool
        /// `isAuthorizationEnabled`: OAuth; the customer identity comes from the server.
        package var isAuthorizationEnabled: Bool
        /// `settings.hasMultipleThreadsPerEndUser`.
        package var multiThread: Bool
        /// The pre-chat form to show before a thread is created, if the channel has one.
        package var preContactForm: PreChatForm?
        /// `settings.fileRestrictions`: what files a message may carry; nil when the channel says nothing.
        package var fileRestrictions: FileRestrictions?
        /// `settings.liveChatAllowTranscript`: SendTranscript is allowed (for every chat mode, as the SDK's
        /// `ChannelSettingsDTO.isSendTranscriptEnabled` reads it; off when absent).
        package var allowsTranscript = false
        /// The feature `securedSessions` (SDK 3.2.0): the socket needs a transaction token, which
        /// authorizes the customer (``ChatStateMachine/TransactionTokenRequest``).
        package var securedSessions = false
        /// `isSecuredCookieEnabled`: the customer is known by the token server's cookie.
        package var isSecuredCookieEnabled = false

        package init(
            isLiveChat: Bool = false,
            isAuthorizationEnabled: Bool = false,
            multiThread: Bool = false,
            preContactForm: PreChatForm? = nil,
            fileRestrictions: FileRestrictions? = nil
        ) {
            self.fileRestrictions = fileRestrictions
            self.isLiveChat = isLiveChat
            self.isAuthorizationEnabled = isAuthorizationEnabled
            self.multiThread = multiThread
            self.preContactForm = preContactForm
        }

        /// Live chat if `isLiveChat`, else multi-thread if `multiThread`, else single-thread (DESIGN.md 5).
        package var mode: ChatMode {
            if self.isLiveChat { return .liveChat }
            return self.multiThread ? .multiThread : .singleThread
        }
    }

    /// Single-thread, multi-thread or live chat.
    package enum ChatMode: String, Sendable, Hashable {
        case singleThread = "single-thread"
        case multiThread = "multi-thread"
        case liveChat = "live-chat"
    }

    /// A pre-chat form: what the user fills in before a thread is created; the answers go to
    /// ``ChatStateMachine/createThread(customFields:)``.
    package struct PreChatForm: Sendable, Hashable {
        package var name: String
        package var fields: [Field]

        package init(name: String, fields: [Field]) {
            self.name = name
            self.fields = fields
        }

        package struct Field: Sendable, Hashable {
            /// The custom field's key (`ident`).
            package var ident: String
            package var label: String
            package var isRequired: Bool
            /// The choices of a selector field; empty for a text field.
            package var options: [String]

            package init(ident: String, label: String, isRequired: Bool = false, options: [String] = []) {
                self.ident = ident
                self.label = label
                self.isRequired = isRequired
                self.options = options
            }
        }
    }

    /// The customer identity (`idOnExternalPlatform`, with names); with OAuth the server assigns it.
    package struct CustomerIdentity: Sendable, Hashable {
        package var id: String
        package var firstName: String?
        package var lastName: String?

        package init(id: String, firstName: String? = nil, lastName: String? = nil) {
            self.id = id
            self.firstName = firstName
            self.lastName = lastName
        }
    }

    /// What the driver stored for this channel, handed back when a machine is made (after a restart).
    package struct StoredValues: Sendable, Hashable {
        package var visitorID: String?
        package var customerID: String?
        package var accessToken: ChannelToken?
        /// The known thread ids (single-thread and live chat: the one to recover).
        package var threadIDs: [String]
        /// Messages written but not yet confirmed by the server, oldest first.
        package var outbox: [OutboxEntry]
        /// Per thread (lower-cased id), the agent messages shown: a recovered agent message not among
        /// them arrived while the daemon was not running (or asleep) and is shown once.
        package var shownMessages: [String: ShownMessages]
        /// When the channel last had the customer's thread list (multi-thread; the daemon's clock). A
        /// thread on a later list that the channel never met appeared after it: its messages since are news.
        package var threadsListedAt: UnixTime?

        package init(
            visitorID: String? = nil,
            customerID: String? = nil,
            accessToken: ChannelToken? = nil,
            threadIDs: [String] = [],
            outbox: [OutboxEntry] = [],
            shownMessages: [String: ShownMessages] = [:],
            threadsListedAt: UnixTime? = nil
        ) {
            self.visitorID = visitorID
            self.customerID = customerID
            self.accessToken = accessToken
            self.threadIDs = threadIDs
            self.outbox = outbox
            self.shownMessages = shownMessages
            self.threadsListedAt = threadsListedAt
        }
    }

    /// One persistent value for the driver to store (``Action/store(_:)``); `nil` removes it.
    package enum StoredValue: Sendable, Hashable {
        case visitorID(String)
        case customerID(String)
        case accessToken(ChannelToken?)
        case threadIDs([String])
        /// The agent messages shown in a thread (see ``StoredValues/shownMessages``).
        case shownMessages(threadID: String, ShownMessages)
        /// See ``StoredValues/threadsListedAt``.
        case threadsListedAt(UnixTime)
    }

    /// A message the user wrote that the server has not confirmed yet. The driver keeps these
    /// (``Action/persistOutbox(_:)``, ``Action/removeFromOutbox(messageID:)``) and hands them back in
    /// ``StoredValues/outbox`` after a restart; each is sent again with the same id until its
    /// MessageCreated arrives or a recovered thread holds it.
    package struct OutboxEntry: Sendable, Hashable {
        package var messageID: String
        package var threadID: String
        package var text: String
        /// A welcome message (SendOutbound) rather than the user's own (SendMessage).
        package var isWelcome: Bool
        /// Contact custom fields (the pre-chat form's answers), sent with a new thread's first message.
        package var customFields: [String: String]
        package var writtenAt: UnixTime
        /// The answer to a rich message or an inactivity popup this message is (its text is the chosen
        /// button's); nil for a message the user wrote.
        package var answer: Answer?
        /// Files uploaded for the message, which it carries.
        package var attachments: [SentFile]

        package init(
            messageID: String,
            threadID: String,
            text: String,
            isWelcome: Bool = false,
            customFields: [String: String] = [:],
            writtenAt: UnixTime,
            answer: Answer? = nil,
            attachments: [SentFile] = []
        ) {
            self.attachments = attachments
            self.messageID = messageID
            self.threadID = threadID
            self.text = text
            self.isWelcome = isWelcome
            self.customFields = customFields
            self.writtenAt = writtenAt
            self.answer = answer
        }
    }

    /// What makes a message an answer to a choice the agent side offered: the chosen button's postback
    /// (`OutboundMessage(text:postback:)`), and for an inactivity popup the SDK's
    /// `isInactivityPopupAnswer` parameter (`ProactiveActionService.trigger(_:)`).
    package struct Answer: Sendable, Hashable {
        package var postback: String
        package var isInactivityPopupAnswer: Bool

        package init(postback: String, isInactivityPopupAnswer: Bool = false) {
            self.postback = postback
            self.isInactivityPopupAnswer = isInactivityPopupAnswer
        }
    }

    /// What the driver sends over the WebSocket, in CXone's terms; the wire codec makes the frame.
    package enum Command: Sendable, Hashable {
        /// AuthorizeCustomer (`"action": "register"`), with the OAuth code and verifier if any.
        case authorizeCustomer(code: String?, verifier: String?)
        /// ReconnectCustomer with the stored access token.
        case reconnectCustomer(token: String)
        /// RefreshToken: a new access token for the current one, before it expires.
        case refreshToken(token: String)
        /// RecoverThread; `nil` asks the server for the customer's thread.
        case recoverThread(threadID: String?)
        /// RecoverLivechat; `nil` asks the server for the customer's live chat.
        case recoverLivechat(threadID: String?)
        case fetchThreadList
        case loadThreadMetadata(threadID: String)
        /// SendMessage; `customFields` go with a new thread's first message.
        case sendMessage(threadID: String, messageID: String, text: String, customFields: [String: String])
        /// SendMessage with files uploaded before (their text may be empty).
        case sendFiles(threadID: String, messageID: String, text: String, customFields: [String: String], [SentFile])
        /// SendMessage answering a choice: the chosen button's text with its postback.
        case sendAnswer(threadID: String, messageID: String, text: String, Answer)
        /// SendOutbound: the welcome message, before the user's first message.
        case sendOutbound(threadID: String, messageID: String, text: String)
        /// EndContact for the thread's case (contact).
        case endContact(threadID: String, caseID: String)
        /// The text frame `{"action":"heartbeat"}`.
        case heartbeat
        /// SenderTypingStarted (`started`) or SenderTypingEnded: the customer types in the thread.
        case senderTyping(threadID: String, started: Bool)
        /// MessageSeenByCustomer: the thread's messages were shown to the customer.
        case messageSeenByCustomer(threadID: String)
        /// LoadMoreMessages: the page of the thread's messages before `oldestMessageAt`, with the scroll
        /// token the last page (ThreadRecovered's `messagesScrollToken`, MoreMessagesLoaded's `scrollToken`) gave.
        case loadMoreMessages(threadID: String, scrollToken: String, oldestMessageAt: UnixTime)
        /// SendTranscript: the transcript of the thread whose case (contact) is `caseID`, e-mailed to `email`.
        case sendTranscript(caseID: String, email: String)
    }

    /// A web-analytics event (`POST .../visitors/{visitorId}/events`).
    package enum AnalyticsEvent: Sendable, Hashable {
        /// VisitorVisit: a new visit started.
        case visitorVisit(visitID: String, at: UnixTime)
        /// PageView.
        case pageView(visitID: String, title: String, url: String, at: UnixTime)
        /// The diagrams' pageViewEnded, sent as TimeSpentOnPage.
        case pageViewEnded(visitID: String, title: String, url: String, secondsSpent: Int, at: UnixTime)
    }

    /// What the machine tells the host (the SDK's delegate calls).
    package enum Report: Sendable, Hashable {
        /// `onChatUpdated`: the chat state changed.
        case stateChanged(ChatState)
        /// `onThreadUpdated`: a thread was created, loaded, changed state or got messages.
        case threadUpdated(ChatThread)
        /// A message arrived or was delivered; each message id is reported once.
        case messageReceived(ChatMessage)
        /// `onError`: something failed that the user should know about.
        case error(ChatError)
    }

    /// A contact's (case's) status, as in CaseStatusChanged.
    package struct CaseStatus: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: String
        package init(_ rawValue: String) { self.rawValue = rawValue.lowercased() }
        package var description: String { self.rawValue }

        package static let new = CaseStatus("new")
        package static let open = CaseStatus("open")
        package static let pending = CaseStatus("pending")
        package static let escalated = CaseStatus("escalated")
        package static let resolved = CaseStatus("resolved")
        package static let closed = CaseStatus("closed")
    }
}
