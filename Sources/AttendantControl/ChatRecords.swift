public import Systemd

/// A chat thread, as `ChatListThreads`, `ChatOpenThread` and `ChatCreateThread` answer it.
///
/// `a{sv}`: `ID` s, `Name` s, `State` s (pending, received, loaded, ready, closed), `LastMessages`
/// aa{sv} (``ChatMessageRecord`` keys, oldest first); when known, `AssignedAgent` s and `PositionInQueue` x.
public struct ChatThreadRecord: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    public var state: String
    /// The most recent messages, oldest first.
    public var lastMessages: [ChatMessageRecord]
    /// The agent assigned to the thread, when known.
    public var assignedAgent: String?
    /// The place in the queue while waiting for an agent, when known.
    public var positionInQueue: Int64?

    public init(
        id: String,
        name: String = "",
        state: String,
        lastMessages: [ChatMessageRecord] = [],
        assignedAgent: String? = nil,
        positionInQueue: Int64? = nil
    ) {
        self.id = id
        self.name = name
        self.state = state
        self.lastMessages = lastMessages
        self.assignedAgent = assignedAgent
        self.positionInQueue = positionInQueue
    }

    public var busValue: BusValue {
        var entries: [String: BusValue] = [
            "ID": .string(self.id), "Name": .string(self.name), "State": .string(self.state),
            "LastMessages": .array(element: "a{sv}", self.lastMessages.map(\.busValue)),
        ]
        if let agent = self.assignedAgent { entries["AssignedAgent"] = .string(agent) }
        if let position = self.positionInQueue { entries["PositionInQueue"] = .int64(position) }
        return .vardict(entries)
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
        self.assignedAgent = d["AssignedAgent"]?.string
        self.positionInQueue = d["PositionInQueue"]?.int64
    }
}

/// One message of a ``ChatThreadRecord``.
///
/// `a{sv}`: `ID` s, `ThreadID` s, `Kind` s (message, typing-started, joined, …), `Direction` s (to-agent,
/// from-agent, notice), `Sender` s, `SenderAddress` s, `Text` s, `SentAt` x (Unix seconds); when the agent
/// read it, `ReadByAgentAt` x (Unix seconds); when it offers answers, `Choices` aa{sv} (``ChatChoiceRecord``);
/// when files came with it, `Attachments` aa{sv} (``ChatAttachmentRecord``).
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
    /// Unix seconds: when the agent read this message (a read receipt), if known.
    public var readByAgentAt: Int64?
    /// The answers it offers; nil when none.
    public var choices: [ChatChoiceRecord]?
    /// The files that came with it; nil when none.
    public var attachments: [ChatAttachmentRecord]?

    public init(
        id: String,
        threadID: String,
        kind: String = "message",
        direction: String,
        sender: String,
        senderAddress: String = "",
        text: String,
        sentAt: Int64,
        readByAgentAt: Int64? = nil
    ) {
        self.readByAgentAt = readByAgentAt
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
        var entries: [String: BusValue] = [
            "ID": .string(self.id), "ThreadID": .string(self.threadID), "Kind": .string(self.kind),
            "Direction": .string(self.direction), "Sender": .string(self.sender),
            "SenderAddress": .string(self.senderAddress), "Text": .string(self.text), "SentAt": .int64(self.sentAt),
        ]
        if let read = self.readByAgentAt { entries["ReadByAgentAt"] = .int64(read) }
        if let choices = self.choices { entries["Choices"] = .array(element: "a{sv}", choices.map(\.busValue)) }
        if let attachments = self.attachments { entries["Attachments"] = .array(element: "a{sv}", attachments.map(\.busValue)) }
        return .vardict(entries)
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
        self.readByAgentAt = d["ReadByAgentAt"]?.int64
        self.choices = d["Choices"]?.elements.map { $0.compactMap(ChatChoiceRecord.init) }
        self.attachments = d["Attachments"]?.elements.map { $0.compactMap(ChatAttachmentRecord.init) }
    }
}

/// One answer a message offers: `a{sv}` with `ID` s, `Label` s and, for a link, `URL` s.
public struct ChatChoiceRecord: Sendable, Hashable, Codable {
    public var id: String
    public var label: String
    public var url: String?

    public init(id: String, label: String, url: String? = nil) {
        self.id = id
        self.label = label
        self.url = url
    }

    public var busValue: BusValue {
        var entries: [String: BusValue] = ["ID": .string(self.id), "Label": .string(self.label)]
        if let url = self.url { entries["URL"] = .string(url) }
        return .vardict(entries)
    }

    public init?(_ value: BusValue) {
        guard let d = value.stringDictionary, let id = d["ID"]?.string else { return nil }
        self.id = id
        self.label = d["Label"]?.string ?? ""
        self.url = d["URL"]?.string
    }
}

/// A file that came with a message: `a{sv}` with `ID` s, `Name` s, `MimeType` s and, when known, `Size` x
/// (bytes).
public struct ChatAttachmentRecord: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    public var mimeType: String
    public var size: Int64?

    public init(id: String, name: String, mimeType: String, size: Int64? = nil) {
        self.id = id
        self.name = name
        self.mimeType = mimeType
        self.size = size
    }

    public var busValue: BusValue {
        var entries: [String: BusValue] = ["ID": .string(self.id), "Name": .string(self.name), "MimeType": .string(self.mimeType)]
        if let size = self.size { entries["Size"] = .int64(size) }
        return .vardict(entries)
    }

    public init?(_ value: BusValue) {
        guard let d = value.stringDictionary, let id = d["ID"]?.string else { return nil }
        self.id = id
        self.name = d["Name"]?.string ?? ""
        self.mimeType = d["MimeType"]?.string ?? ""
        self.size = d["Size"]?.int64
    }
}
