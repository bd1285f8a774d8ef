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

/// One chat message.
public struct ChatMessage: Sendable, Hashable {
    public var id: String
    public var threadID: String
    public var direction: Direction
    public var sender: Party
    /// Plain text as the remote party wrote it; the host escapes it before showing it.
    public var text: String
    public var sentAt: UnixTime

    public init(id: String, threadID: String, direction: Direction, sender: Party, text: String, sentAt: UnixTime) {
        self.id = id
        self.threadID = threadID
        self.direction = direction
        self.sender = sender
        self.text = text
        self.sentAt = sentAt
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
        public init(label: String, url: String) {
            self.label = label
            self.url = url
        }
    }
}
