// MARK: - Host API: chat

/// The state of a chat session (the CXone SDK's chat states).
public struct ChatState: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let initial = ChatState("initial")
    public static let preparing = ChatState("preparing")
    public static let prepared = ChatState("prepared")
    public static let offline = ChatState("offline")
    public static let connecting = ChatState("connecting")
    public static let connected = ChatState("connected")
    public static let ready = ChatState("ready")
    public static let closed = ChatState("closed")

    public var description: String { self.rawValue }
}

/// A chat thread (a conversation with the contact centre).
public struct ChatThread: Sendable, Hashable {
    public var id: String
    public var name: String
    public var state: ThreadState
    /// The most recent messages, oldest first.
    public var lastMessages: [ChatMessage]
    /// The agent assigned to the thread's contact, when the channel knows it (since API 1.3; nil before).
    public var assignedAgent: Party? = nil
    /// The person's place in the contact centre's queue while waiting for an agent (since API 1.3; nil
    /// when not queued or not known).
    public var positionInQueue: Int? = nil

    public init(id: String, name: String = "", state: ThreadState, lastMessages: [ChatMessage] = []) {
        self.id = id
        self.name = name
        self.state = state
        self.lastMessages = lastMessages
    }
}

/// The state of a chat thread (pending, received, loaded, ready, closed).
public struct ThreadState: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let pending = ThreadState("pending")
    public static let received = ThreadState("received")
    public static let loaded = ThreadState("loaded")
    public static let ready = ThreadState("ready")
    public static let closed = ThreadState("closed")

    public var description: String { self.rawValue }
}

/// One chat message, or one transcript event such as "agent is typing".
public struct ChatMessage: Sendable, Hashable {
    public var id: String
    public var threadID: String
    /// What happened: a message, a typing notice, an agent joining (since API 1.1; `message` before).
    public var kind: Kind
    public var direction: Direction
    public var sender: Party
    /// Plain text as the remote party wrote it; the host escapes it before showing it. May be empty for
    /// notices (typing, joined, left).
    public var text: String
    public var sentAt: UnixTime
    /// When the agent read this message of the person at the desk, when the channel knows it (a read
    /// receipt; since API 1.3; nil before).
    public var readByAgentAt: UnixTime? = nil
    /// The event's place in the conversation's transcript, for channels whose protocol numbers every
    /// event (Genesys GMS's transcript positions; since API 1.5; nil when the protocol has none). A
    /// replayed event keeps its position, so the host can tell it from a new one.
    public var transcriptPosition: Int? = nil
    /// What the agent or a bot offers to answer with: quick replies, a list picker's items, rich links,
    /// the buttons of an "are you still there?" prompt. The person answers with one
    /// (``ChannelRequest/choose(threadID:messageID:choiceID:)``). Empty for a plain message (since API 1.13).
    public var choices: [ChatChoice] = []
    /// The files that came with the message (since API 1.13).
    public var attachments: [ChatAttachment] = []

    public init(
        id: String,
        threadID: String,
        kind: Kind = .message,
        direction: Direction,
        sender: Party,
        text: String,
        sentAt: UnixTime
    ) {
        self.id = id
        self.threadID = threadID
        self.kind = kind
        self.direction = direction
        self.sender = sender
        self.text = text
        self.sentAt = sentAt
    }

    /// The API 1.0 initializer, kept so plugins built against 1.0 keep linking; the kind is `message`.
    public init(id: String, threadID: String, direction: Direction, sender: Party, text: String, sentAt: UnixTime) {
        self.init(id: id, threadID: threadID, kind: .message, direction: direction, sender: sender, text: text, sentAt: sentAt)
    }

    /// What a transcript event is: Genesys GMS's `Message.Text` and `Notice.*` events, which CXone's
    /// messages and typing events map onto. The host's per-channel alert filter names these raw values.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// Text someone wrote (GMS `Message.Text`).
        public static let message = Kind("message")
        /// The other side started typing (GMS `Notice.TypingStarted`).
        public static let typingStarted = Kind("typing-started")
        /// The other side stopped typing (GMS `Notice.TypingStopped`).
        public static let typingStopped = Kind("typing-stopped")
        /// An agent joined the conversation (GMS `Notice.Joined`).
        public static let joined = Kind("joined")
        /// An agent left the conversation (GMS `Notice.Left`).
        public static let left = Kind("left")
        /// The agent pushed a URL to open (GMS `Notice.PushUrl`); the URL is the text.
        public static let pushURL = Kind("push-url")
        /// A server-defined notice (GMS `Notice.Custom`).
        public static let custom = Kind("custom")
        /// The contact centre warns that the conversation is idle and will close, or closed it for
        /// idleness (GMS v2 `IdleAlert`, `IdleClose`; since API 1.5).
        public static let idleAlert = Kind("idle-alert")

        /// Every kind this version of the API defines, in the order above.
        public static let allKnown: [Kind] = [
            .message, .typingStarted, .typingStopped, .joined, .left, .pushURL, .custom, .idleAlert,
        ]

        public var description: String { self.rawValue }
    }

    /// Which way a message went.
    public struct Direction: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// From the person at the desk to the contact centre (CXone "inbound").
        public static let toAgent = Direction("to-agent")
        /// From an agent or a bot to the person at the desk (CXone "outbound").
        public static let fromAgent = Direction("from-agent")
        /// A system notice (agent joined, left, typing).
        public static let notice = Direction("notice")

        public var description: String { self.rawValue }
    }
}

/// One answer a message offers (``ChatMessage/choices``), since API 1.13.
public struct ChatChoice: Sendable, Hashable {
    /// Names the choice within its message (for ``ChannelRequest/choose(threadID:messageID:choiceID:)``).
    public var id: String
    /// What the person sees.
    public var label: String
    /// A link the choice opens instead of answering (a rich link's URL); nil for an answer.
    public var url: String?

    public init(id: String, label: String, url: String? = nil) {
        self.id = id
        self.label = label
        self.url = url
    }
}

/// A file that came with a message (``ChatMessage/attachments``), since API 1.13.
public struct ChatAttachment: Sendable, Hashable {
    /// Names the file within its message (for saving it).
    public var id: String
    /// The file's name as the sender gave it: not a safe path; the host makes one of it.
    public var name: String
    /// Its MIME type, as the sender said (`application/octet-stream` when it did not).
    public var mimeType: String
    /// Its size in bytes, when the protocol says.
    public var size: Int?

    public init(id: String, name: String, mimeType: String, size: Int? = nil) {
        self.id = id
        self.name = name
        self.mimeType = mimeType
        self.size = size
    }
}

// MARK: - Host API: in-app actions

/// Campaign content to show (KARTE-style in-app messaging).
public struct InAppAction: Sendable, Hashable {
    public var id: String
    public var campaignID: String
    public var title: String
    public var body: String
    public var links: [Link]
    /// Show only while the user is still on the screen (the last `view`) that triggered it.
    public var onlyOnSendingScreen: Bool
    /// The campaign's short id (KARTE `action.shorten_id`), for viewers and signals; may be empty (since API 1.6).
    public var shortenID: String = ""
    /// The action as the service sent it, as JSON text, for desktop viewers that render the campaign
    /// themselves (the daemon offers it whole on D-Bus); empty when the channel has none (since API 1.6).
    public var json: String = ""

    public init(
        id: String,
        campaignID: String,
        title: String,
        body: String,
        links: [Link] = [],
        onlyOnSendingScreen: Bool = false
    ) {
        self.id = id
        self.campaignID = campaignID
        self.title = title
        self.body = body
        self.links = links
        self.onlyOnSendingScreen = onlyOnSendingScreen
    }

    public struct Link: Sendable, Hashable {
        public var label: String
        public var url: String
        /// Where the link opens (`_blank`, `_self`, …), as the campaign says; `_blank` keeps the action
        /// shown after a click (since API 1.6).
        public var target: String = "_self"

        public init(label: String, url: String) {
            self.label = label
            self.url = url
        }

        /// A link with its target (since API 1.6).
        public init(label: String, url: String, target: String) {
            self.label = label
            self.url = url
            self.target = target
        }
    }
}

/// A step in an in-app action's life on screen, for D-Bus viewers (since API 1.6): will/did appear and
/// disappear per action, and the window (all of the channel's actions) presented or dismissed.
public struct InAppActionLifecycle: Sendable, Hashable {
    public struct Phase: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }

        public static let willAppear = Phase("will-appear")
        public static let didAppear = Phase("did-appear")
        public static let willDisappear = Phase("will-disappear")
        public static let didDisappear = Phase("did-disappear")
        /// The channel's first action opened (the SDKs' "window is presented").
        public static let windowPresented = Phase("window-presented")
        /// The channel's last action closed.
        public static let windowDismissed = Phase("window-dismissed")

        public var description: String { self.rawValue }
    }

    public var phase: Phase
    /// Empty for the window phases.
    public var actionID: String
    public var campaignID: String
    public var shortenID: String
    /// Why an action disappears (`soft`, `click`, `dismiss`, `hard`); empty otherwise.
    public var reason: String

    public init(phase: Phase, actionID: String = "", campaignID: String = "", shortenID: String = "", reason: String = "") {
        self.phase = phase
        self.actionID = actionID
        self.campaignID = campaignID
        self.shortenID = shortenID
        self.reason = reason
    }
}
