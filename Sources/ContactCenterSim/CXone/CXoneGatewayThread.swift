package import Foundation

/// A snapshot of one chat thread as the gateway holds it.
package struct CXoneGatewayThread: Sendable, Hashable {
    /// The thread's `idOnExternalPlatform`, as the client first sent it (compare with ``CXoneGateway``'s
    /// lookups, which ignore letter case).
    package var id: String
    /// `threadName`, if the client named the thread.
    package var name: String?
    /// The customer (`idOnExternalPlatform`) who owns the thread.
    package var customerId: String
    /// The thread's current contact (case): its id and status (`new`, `closed`).
    package var contact: CXoneGatewayContact
    /// Every message, customer's and agent's, oldest first; each stored once per `idOnExternalPlatform`.
    package var messages: [CXoneGatewayMessage]
}

/// The contact (the wire's `case`) of a thread: EndContact names its id, and a customer message after it
/// closed opens a new one.
package struct CXoneGatewayContact: Sendable, Hashable {
    package var id: String
    package var status: String
    package var createdAt: Date

    /// Whether the status means the contact is over (`closed` or `resolved`).
    package var isClosed: Bool { self.status == "closed" || self.status == "resolved" }
}

/// Who wrote a message. CXone names directions from the contact centre's side.
package enum CXoneGatewayDirection: String, Sendable, Hashable {
    /// Customer → agent.
    case inbound
    /// Agent (or the brand's welcome message) → customer.
    case outbound
}

/// One message of a thread, as the gateway stored it and sends it in MessageCreated, ThreadRecovered and
/// ThreadMetadataLoaded.
package struct CXoneGatewayMessage: Sendable, Hashable {
    /// `idOnExternalPlatform`: the client's id for its own messages, a fresh one for the agent's.
    package var id: String
    package var threadId: String
    package var createdAt: Date
    package var direction: CXoneGatewayDirection
    /// The agent who wrote an outbound message (nil for the customer's and the welcome message).
    package var agent: CXoneGatewayAgent?
    /// `messageContent` as the client sent it (`{"type", "payload", …}`), so the echo carries it back.
    var content: GMSJSON
    /// `attachments`, each as the client described it.
    var attachments: [GMSJSON]
    /// `authorEndUserIdentity` of the customer's messages: the frame's customer identity.
    var customer: SimCXoneCustomer?
    /// When the agent read the customer's message (`userStatistics.seenAt` and `readAt`).
    package var seenByAgentAt: Date?

    /// `messageContent.type`, e.g. `TEXT`.
    package var contentType: String { self.content["type"]?.string ?? "" }

    /// The text: `payload.text` of a TEXT message; for a rich one its `fallbackText`, else `payload.text`.
    package var text: String? {
        let payloadText = self.content["payload"]?["text"]?.string
        return self.contentType == "TEXT" ? payloadText : (self.content["fallbackText"]?.string ?? payloadText)
    }
}

/// An agent as the gateway describes it (`authorUser`, `inboxAssignee`, `ownerAssignee`).
package struct CXoneGatewayAgent: Sendable, Hashable {
    package var id: Int
    package var firstName: String?
    package var surname: String?
    package var nickname: String?

    package init(id: Int, firstName: String? = nil, surname: String? = nil, nickname: String? = nil) {
        self.id = id
        self.firstName = firstName
        self.surname = surname
        self.nickname = nickname
    }

    /// The nickname, else first name and surname (what the control API lists as the author).
    package var displayName: String? {
        if let nickname, !nickname.isEmpty { return nickname }
        let name = [self.firstName, self.surname].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        return name.isEmpty ? nil : name
    }
}
