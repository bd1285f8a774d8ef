public import Foundation

/// A snapshot of one chat thread as the gateway holds it.
public struct CXoneGatewayThread: Sendable, Hashable {
    /// The thread's `idOnExternalPlatform`, as the client first sent it (compare with ``CXoneGateway``'s
    /// lookups, which ignore letter case).
    public var id: String
    /// `threadName`, if the client named the thread.
    public var name: String?
    /// The customer (`idOnExternalPlatform`) who owns the thread.
    public var customerId: String
    /// The thread's current contact (case): its id and status (`new`, `closed`).
    public var contact: CXoneGatewayContact
    /// Every message, customer's and agent's, oldest first; each stored once per `idOnExternalPlatform`.
    public var messages: [CXoneGatewayMessage]
}

/// The contact (the wire's `case`) of a thread: EndContact names its id, and a customer message after it
/// closed opens a new one.
public struct CXoneGatewayContact: Sendable, Hashable {
    public var id: String
    public var status: String
    public var createdAt: Date

    /// Whether the status means the contact is over (`closed` or `resolved`).
    public var isClosed: Bool { self.status == "closed" || self.status == "resolved" }
}

/// Who wrote a message. CXone names directions from the contact centre's side.
public enum CXoneGatewayDirection: String, Sendable, Hashable {
    /// Customer → agent.
    case inbound
    /// Agent (or the brand's welcome message) → customer.
    case outbound
}

/// One message of a thread, as the gateway stored it and sends it in MessageCreated, ThreadRecovered and
/// ThreadMetadataLoaded.
public struct CXoneGatewayMessage: Sendable, Hashable {
    /// `idOnExternalPlatform`: the client's id for its own messages, a fresh one for the agent's.
    public var id: String
    public var threadId: String
    public var createdAt: Date
    public var direction: CXoneGatewayDirection
    /// The agent who wrote an outbound message (nil for the customer's and the welcome message).
    public var agent: CXoneGatewayAgent?
    /// `messageContent` as the client sent it (`{"type", "payload", …}`), so the echo carries it back.
    var content: GMSJSON
    /// `attachments`, each as the client described it.
    var attachments: [GMSJSON]
    /// `authorEndUserIdentity` of the customer's messages: the frame's customer identity.
    var customer: SimCXoneCustomer?

    /// `messageContent.type`, e.g. `TEXT`.
    public var contentType: String { self.content["type"]?.string ?? "" }

    /// The text: `payload.text` of a TEXT message; for a rich one its `fallbackText`, else `payload.text`.
    public var text: String? {
        let payloadText = self.content["payload"]?["text"]?.string
        return self.contentType == "TEXT" ? payloadText : (self.content["fallbackText"]?.string ?? payloadText)
    }
}

/// An agent as the gateway describes it (`authorUser`, `inboxAssignee`, `ownerAssignee`).
public struct CXoneGatewayAgent: Sendable, Hashable {
    public var id: Int
    public var firstName: String?
    public var surname: String?
    public var nickname: String?

    public init(id: Int, firstName: String? = nil, surname: String? = nil, nickname: String? = nil) {
        self.id = id
        self.firstName = firstName
        self.surname = surname
        self.nickname = nickname
    }

    /// The nickname, else first name and surname (what the control API lists as the author).
    public var displayName: String? {
        if let nickname, !nickname.isEmpty { return nickname }
        let name = [self.firstName, self.surname].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        return name.isEmpty ? nil : name
    }
}
