public import Systemd

/// The daemon's D-Bus API on the session bus, shared by the daemon (server) and `attendantctl` (client).
///
/// ```
/// bus name   org.attendant.Attendant1   (owned exclusively: one daemon per user)
/// object     /org/attendant/Attendant1
/// interface  org.attendant.Attendant1
///
/// GetStatus() → a{sv} status                      Version s, Status s, PID u, DoNotDisturb b,
///                                                  NotificationServer b, Channels u, Listening u
/// ListChannels() → aa{sv} channels                ChannelRecord keys (Failure only on failed channels)
/// ListContacts(u limit) → aa{sv} contacts         ContactRecord keys, newest first
/// Accept(s channel, s contact)                    channel "" = find the channel by contact id
/// Decline(s channel, s contact)
/// RenewToken(s channel)
/// Reload() → s status                             re-reads the configuration, like SIGHUP
/// SetDoNotDisturb(b on)
/// GetMetrics() → s text                           the daemon's figures in the Prometheus text format 0.0.4
///
/// ChatPrepare(s channel)                                          the chat requests (ChannelRequest)
/// ChatConnect(s channel)
/// ChatViewPage(s channel, s title, s url)
/// ChatListThreads(s channel) → aa{sv} threads      ChatThreadRecord keys
/// ChatOpenThread(s channel, s thread) → a{sv} thread
/// ChatCreateThread(s channel, a{ss} fields) → a{sv} thread       fields: the thread's custom fields
/// ChatSendMessage(s channel, s thread, s text) → a{ss} delivery   thread "" = the channel's current thread;
///                                                  delivery: sent|queued, message, thread, reason (queued)
/// ChatEndConversation(s channel, s thread)        thread "" = the channel's current thread
/// ChatChoose(s channel, s thread, s message, s choice)             answers a message with one of its Choices
/// ChatMarkRead(s channel, s thread, s message)    the person has seen up to message ("" = all)
/// ChatLoadOlder(s channel, s thread) → a{sv} thread                its LastMessages: the page before those
///                                                  given so far, oldest first; none when there are no more
/// ChatSaveAttachment(s channel, s thread, s message, s attachment, h file) → a{sv} saved
///                                                  writes the attachment into file (a new regular file the
///                                                  caller made); saved: Name s, MimeType s, Size x
/// ChatSendFile(s channel, s thread, s name, s mimeType, h file) → a{ss} delivery
///                                                  sends what file (a regular file) holds, as ChatSendMessage
/// ChatSendTranscript(s channel, s thread, s email) e-mails the thread's transcript, where the channel allows it
/// ChannelRequest(s channel, s command, a{ss} arguments) → a{ss} fields     a plugin's own request
///                                                  (`registration`, `chat-status`, `actions-view`, …)
/// SetURLHandler(s name)                            the bus name asked ShouldOpenURL before every link a
///                                                  channel opens ("" = none); see URLHandlerInterface
///
/// signal ChannelEvent(s channel, s event, a{sv} details)       every channel event (EventRecord keys)
/// signal ChannelStateChanged(s channel, s state, s detail)
/// signal DoNotDisturbChanged(b on)
/// signal ActionReceived(s channel, s action, s json)           an in-app action to show, whole, as the
///                                                              service sent it (for viewers that render it)
/// signal ActionWillAppear(s channel, s action, s campaign, s shorten, s reason)   reason "" for appear
/// signal ActionDidAppear(s channel, s action, s campaign, s shorten, s reason)
/// signal ActionWillDisappear(s channel, s action, s campaign, s shorten, s reason) reason soft, click,
/// signal ActionDidDisappear(s channel, s action, s campaign, s shorten, s reason)  dismiss or hard
/// signal ActionWindowPresented(s channel)                      the channel's first action opened
/// signal ActionWindowDismissed(s channel)                      the channel's last action closed
/// ```
///
/// Errors are `org.attendant.Attendant1.Error.*` (see ``ControlError``), with a message for people.
public enum ControlInterface {
    public static let busName = "org.attendant.Attendant1"
    public static let objectPath = "/org/attendant/Attendant1"
    public static let interface = "org.attendant.Attendant1"

    public enum Method {
        public static let getStatus = "GetStatus"
        public static let listChannels = "ListChannels"
        public static let listContacts = "ListContacts"
        public static let accept = "Accept"
        public static let decline = "Decline"
        public static let renewToken = "RenewToken"
        public static let reload = "Reload"
        public static let setDoNotDisturb = "SetDoNotDisturb"
        /// The daemon's figures, as `[metrics] listen` serves them at `/metrics`.
        public static let getMetrics = "GetMetrics"

        public static let chatPrepare = "ChatPrepare"
        public static let chatConnect = "ChatConnect"
        public static let chatViewPage = "ChatViewPage"
        public static let chatListThreads = "ChatListThreads"
        public static let chatOpenThread = "ChatOpenThread"
        public static let chatCreateThread = "ChatCreateThread"
        public static let chatSendMessage = "ChatSendMessage"
        public static let chatEndConversation = "ChatEndConversation"
        public static let chatChoose = "ChatChoose"
        public static let chatMarkRead = "ChatMarkRead"
        public static let chatLoadOlder = "ChatLoadOlder"
        public static let chatSaveAttachment = "ChatSaveAttachment"
        public static let chatSendFile = "ChatSendFile"
        public static let chatSendTranscript = "ChatSendTranscript"
        /// The largest file ChatSaveAttachment writes and ChatSendFile reads.
        public static let largestFile = 64 << 20
        /// A plugin's own request (`registration`, `chat-status`, `pre-chat-form`, …), answered as fields.
        public static let channelRequest = "ChannelRequest"
        /// Registers the bus name that ``URLHandlerInterface`` `ShouldOpenURL` is asked on.
        public static let setURLHandler = "SetURLHandler"
    }

    public enum Signal {
        public static let channelEvent = "ChannelEvent"
        public static let channelStateChanged = "ChannelStateChanged"
        public static let doNotDisturbChanged = "DoNotDisturbChanged"
        public static let actionReceived = "ActionReceived"
        public static let actionWillAppear = "ActionWillAppear"
        public static let actionDidAppear = "ActionDidAppear"
        public static let actionWillDisappear = "ActionWillDisappear"
        public static let actionDidDisappear = "ActionDidDisappear"
        public static let actionWindowPresented = "ActionWindowPresented"
        public static let actionWindowDismissed = "ActionWindowDismissed"
    }
}

/// What a URL handler serves, on its own bus name, for the daemon to ask before it opens a link
/// (the desktop form of the KARTE SDKs' `shouldOpenURL`):
///
/// ```
/// object     /org/attendant/URLHandler1
/// interface  org.attendant.URLHandler1
/// ShouldOpenURL(s url) → b open      false: the handler takes care of the link; true: open it
/// ```
///
/// The daemon waits `[links] handler-timeout` (2 s) for the answer; no answer means open.
public enum URLHandlerInterface {
    public static let objectPath = "/org/attendant/URLHandler1"
    public static let interface = "org.attendant.URLHandler1"

    public enum Method {
        public static let shouldOpenURL = "ShouldOpenURL"
    }
}

/// The error names the API replies with.
public enum ControlError {
    public static let prefix = "org.attendant.Attendant1.Error."
    /// No channel of that name is configured and running.
    public static let noSuchChannel = prefix + "NoSuchChannel"
    /// No contact with that id (or it is ambiguous without a channel).
    public static let noSuchContact = prefix + "NoSuchContact"
    /// The channel refused or failed the request; the message is the channel's.
    public static let channelFailed = prefix + "ChannelFailed"
    /// The channel does not handle this request.
    public static let unsupported = prefix + "Unsupported"
    /// The request does not fit the channel's state (a chat `connect` before `prepare`); the message is
    /// the channel's.
    public static let illegalState = prefix + "IllegalState"
    /// The channel's server answered the request with an error; the message is the channel's.
    public static let serverError = prefix + "ServerError"
    /// The request's input was refused (a bad event field name, values that are not a JSON object); the
    /// message says which and why.
    public static let invalidArgument = prefix + "InvalidArgument"
    /// The configuration could not be re-read; the daemon keeps the running one.
    public static let reloadFailed = prefix + "ReloadFailed"
    /// The token could not be renewed.
    public static let tokenRenewalFailed = prefix + "TokenRenewalFailed"
}

/// `GetStatus` as a value.
public struct StatusRecord: Sendable, Hashable, Codable {
    public var version: String
    public var status: String
    public var pid: UInt32
    public var doNotDisturb: Bool
    public var notificationServer: Bool
    public var channels: UInt32
    public var listening: UInt32

    public init(version: String, status: String, pid: UInt32, doNotDisturb: Bool, notificationServer: Bool, channels: UInt32, listening: UInt32) {
        self.version = version
        self.status = status
        self.pid = pid
        self.doNotDisturb = doNotDisturb
        self.notificationServer = notificationServer
        self.channels = channels
        self.listening = listening
    }

    public var busValue: BusValue {
        .vardict([
            "Version": .string(self.version), "Status": .string(self.status), "PID": .uint32(self.pid),
            "DoNotDisturb": .boolean(self.doNotDisturb), "NotificationServer": .boolean(self.notificationServer),
            "Channels": .uint32(self.channels), "Listening": .uint32(self.listening),
        ])
    }

    public init?(_ value: BusValue) {
        guard let d = value.stringDictionary else { return nil }
        self.version = d["Version"]?.string ?? ""
        self.status = d["Status"]?.string ?? ""
        self.pid = d["PID"]?.uint32 ?? 0
        self.doNotDisturb = d["DoNotDisturb"]?.bool ?? false
        self.notificationServer = d["NotificationServer"]?.bool ?? false
        self.channels = d["Channels"]?.uint32 ?? 0
        self.listening = d["Listening"]?.uint32 ?? 0
    }
}

/// One entry of `ListChannels`.
public struct ChannelRecord: Sendable, Hashable, Codable {
    public var name: String
    public var plugin: String
    /// starting, listening, background (a chat disconnected in the background), recovering, failed, stopping, stopped
    public var state: String
    /// The last error or why the channel failed; empty when none.
    public var detail: String
    public var onProbation: Bool
    /// Why a `failed` channel gave up (D-Bus key `Failure`, absent otherwise and from daemons before it).
    public var failure: FailureReason?
    /// Seconds until the token expires (negative: expired); nil when the channel has no token source
    /// or the token does not say.
    public var tokenExpiresIn: Int64?
    /// Unix seconds of the last renewal; nil if never.
    public var tokenLastRenewal: Int64?
    /// Why the last renewal failed; nil when it worked.
    public var tokenLastError: String?
    public var tokenFailures: UInt32

    /// Why a channel failed, as a word for programs: `sign-in-needed`, `configuration`, or one a newer
    /// daemon knows.
    public struct FailureReason: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The credentials were refused and a new token did not help: the user has to sign in again.
        public static let signInNeeded = FailureReason(rawValue: "sign-in-needed")
        /// The settings or the plugin do not work: the configuration has to change.
        public static let configuration = FailureReason(rawValue: "configuration")

        public var description: String { self.rawValue }
    }

    public init(
        name: String,
        plugin: String,
        state: String,
        detail: String = "",
        onProbation: Bool = false,
        failure: FailureReason? = nil,
        tokenExpiresIn: Int64? = nil,
        tokenLastRenewal: Int64? = nil,
        tokenLastError: String? = nil,
        tokenFailures: UInt32 = 0
    ) {
        self.name = name
        self.plugin = plugin
        self.state = state
        self.detail = detail
        self.onProbation = onProbation
        self.failure = failure
        self.tokenExpiresIn = tokenExpiresIn
        self.tokenLastRenewal = tokenLastRenewal
        self.tokenLastError = tokenLastError
        self.tokenFailures = tokenFailures
    }

    public var busValue: BusValue {
        var d: [String: BusValue] = [
            "Name": .string(self.name), "Plugin": .string(self.plugin), "State": .string(self.state),
            "Detail": .string(self.detail), "OnProbation": .boolean(self.onProbation), "TokenFailures": .uint32(self.tokenFailures),
        ]
        if let v = self.failure { d["Failure"] = .string(v.rawValue) }
        if let v = self.tokenExpiresIn { d["TokenExpiresIn"] = .int64(v) }
        if let v = self.tokenLastRenewal { d["TokenLastRenewal"] = .int64(v) }
        if let v = self.tokenLastError { d["TokenLastError"] = .string(v) }
        return .vardict(d)
    }

    public init?(_ value: BusValue) {
        guard let d = value.stringDictionary, let name = d["Name"]?.string else { return nil }
        self.name = name
        self.plugin = d["Plugin"]?.string ?? ""
        self.state = d["State"]?.string ?? ""
        self.detail = d["Detail"]?.string ?? ""
        self.onProbation = d["OnProbation"]?.bool ?? false
        self.failure = d["Failure"]?.string.map(FailureReason.init(rawValue:))
        self.tokenExpiresIn = d["TokenExpiresIn"]?.int64
        self.tokenLastRenewal = d["TokenLastRenewal"]?.int64
        self.tokenLastError = d["TokenLastError"]?.string
        self.tokenFailures = d["TokenFailures"]?.uint32 ?? 0
    }
}

/// One entry of `ListContacts`.
public struct ContactRecord: Sendable, Hashable, Codable {
    public var channel: String
    public var id: String
    /// call, chat, action
    public var kind: String
    public var from: String
    public var fromAddress: String
    public var summary: String
    /// Unix seconds.
    public var receivedAt: Int64
    public var endedAt: Int64?
    /// answered, answered-elsewhere, declined, missed, completed; nil while open.
    public var outcome: String?
    /// Whether from and fromAddress are what the network asserted (SIP P-Asserted-Identity from the
    /// registrar), not the caller's own word.
    public var fromAsserted = false
    /// Who forwarded the contact here (name, address, reason); nil when it was not forwarded.
    public var divertedFrom: String?
    public var divertedFromAddress: String?
    public var diversionReason: String?

    public init(
        channel: String,
        id: String,
        kind: String,
        from: String,
        fromAddress: String,
        summary: String,
        receivedAt: Int64,
        endedAt: Int64? = nil,
        outcome: String? = nil
    ) {
        self.channel = channel
        self.id = id
        self.kind = kind
        self.from = from
        self.fromAddress = fromAddress
        self.summary = summary
        self.receivedAt = receivedAt
        self.endedAt = endedAt
        self.outcome = outcome
    }

    public var busValue: BusValue {
        var d: [String: BusValue] = [
            "Channel": .string(self.channel), "ID": .string(self.id), "Kind": .string(self.kind),
            "From": .string(self.from), "FromAddress": .string(self.fromAddress), "Summary": .string(self.summary),
            "ReceivedAt": .int64(self.receivedAt),
        ]
        if let v = self.endedAt { d["EndedAt"] = .int64(v) }
        if let v = self.outcome { d["Outcome"] = .string(v) }
        if self.fromAsserted { d["FromAsserted"] = .boolean(true) }
        if let v = self.divertedFromAddress {
            d["DivertedFromAddress"] = .string(v)
            d["DivertedFrom"] = .string(self.divertedFrom ?? "")
            d["DiversionReason"] = .string(self.diversionReason ?? "")
        }
        return .vardict(d)
    }

    public init?(_ value: BusValue) {
        guard let d = value.stringDictionary, let id = d["ID"]?.string else { return nil }
        self.channel = d["Channel"]?.string ?? ""
        self.id = id
        self.kind = d["Kind"]?.string ?? ""
        self.from = d["From"]?.string ?? ""
        self.fromAddress = d["FromAddress"]?.string ?? ""
        self.summary = d["Summary"]?.string ?? ""
        self.receivedAt = d["ReceivedAt"]?.int64 ?? 0
        self.endedAt = d["EndedAt"]?.int64
        self.outcome = d["Outcome"]?.string
        self.fromAsserted = d["FromAsserted"]?.bool ?? false
        self.divertedFromAddress = d["DivertedFromAddress"]?.string
        self.divertedFrom = self.divertedFromAddress == nil ? nil : d["DivertedFrom"]?.string ?? ""
        self.diversionReason = self.divertedFromAddress == nil ? nil : d["DiversionReason"]?.string ?? ""
    }
}
