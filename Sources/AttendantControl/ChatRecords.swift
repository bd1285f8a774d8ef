public import Systemd

/// A chat thread, as `ChatListThreads`, `ChatOpenThread` and `ChatCreateThread` answer it.
///
/// `a{sv}`: `ID` s, `Name` s, `State` s (pending, received, loaded, ready, closed), `LastMessages`
/// aa{sv} (``ChatMessageRecord`` keys, oldest first).
public struct ChatThreadRecord: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    public var state: String
    /// The most recent messages, oldest first.
    public var lastMessages: [ChatMessageRecord]

    public init(id: String, name: String = "", state: String, lastMessages: [ChatMessageRecord] = []) {
        self.id = id
        self.name = name
        self.state = state
        self.lastMessages = lastMessages
    }

    public var busValue: BusValue {
        .vardict([
            "ID": .string(self.id), "Name": .string(self.name), "State": .string(self.state),
            "LastMessages": .array(element: "a{sv}", self.lastMessages.map(\.busValue)),
        ])
    }

    public init?(_ value: BusValue) {
        guard let d = value.stringDictionary, let id = d["ID"]?.string else { return nil }
        var messages: [ChatMessageRecord] = []
        for element in d["LastMessages"]?.elements ?? [] {
            guard let message = ChatMessageRecord(element) else { return nil }
            messages.append(message)
        }
        self.id = id
        self.name = d["Name"]?.string ?? ""
        self.state = d["State"]?.string ?? ""
        self.lastMessages = messages
    }
}

/// One message of a ``ChatThreadRecord``.
///
/// `a{sv}`: `ID` s, `ThreadID` s, `Kind` s (message, typing-started, joined, …), `Direction` s (to-agent,
/// from-agent, notice), `Sender` s, `SenderAddress` s, `Text` s, `SentAt` x (Unix seconds).
public struct ChatMessageRecord: Sendable, Hashable, Codable {
    public var id: String
    public var threadID: String
    public var kind: String
    public var direction: String
    public var sender: String
    public var senderAddress: String
    public var text: String
    /// Unix seconds.
    public var sentAt: Int64

    public init(
        id: String, threadID: String, kind: String = "message", direction: String, sender: String,
        senderAddress: String = "", text: String, sentAt: Int64
    ) {
        self.id = id
        self.threadID = threadID
        self.kind = kind
        self.direction = direction
        self.sender = sender
        self.senderAddress = senderAddress
        self.text = text
        self.sentAt = sentAt
    }

    public var busValue: BusValue {
        .vardict([
            "ID": .string(self.id), "ThreadID": .string(self.threadID), "Kind": .string(self.kind),
            "Direction": .string(self.direction), "Sender": .string(self.sender),
            "SenderAddress": .string(self.senderAddress), "Text": .string(self.text), "SentAt": .int64(self.sentAt),
        ])
    }

    public init?(_ value: BusValue) {
        guard let d = value.stringDictionary, let id = d["ID"]?.string else { return nil }
        self.id = id
        self.threadID = d["ThreadID"]?.string ?? ""
        self.kind = d["Kind"]?.string ?? ""
        self.direction = d["Direction"]?.string ?? ""
        self.sender = d["Sender"]?.string ?? ""
        self.senderAddress = d["SenderAddress"]?.string ?? ""
        self.text = d["Text"]?.string ?? ""
        self.sentAt = d["SentAt"]?.int64 ?? 0
    }
}
