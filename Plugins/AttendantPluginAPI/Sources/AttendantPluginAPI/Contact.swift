// MARK: - Host API

/// One incoming contact: a call, a chat conversation or an in-app action.
public struct Contact: Sendable, Hashable {
    /// Unique within the channel, stable for the contact's life (a SIP Call-ID, a CXone case id).
    public var id: String
    public var kind: ContactKind
    /// Who is calling or writing.
    public var from: Party
    /// A one-line summary, such as a chat's first message or a call's subject; plain text.
    public var summary: String
    /// When the contact arrived.
    public var receivedAt: UnixTime
    /// Operations the user may perform on this contact, in the order to offer them.
    public var actions: [ContactAction]
    /// The chat thread this contact is, for a chat whose messages arrive as
    /// ``ChannelEvent/messageReceived(_:)`` (since API 1.3). The host records such a contact in the
    /// history but raises no alert of its own for it: the thread's messages are its alerts. Set it after
    /// initializing; nil (the default) for calls and for chats that announce themselves as a contact.
    public var threadID: String?
    /// Whether ``from`` is an identity the network vouches for (since API 1.11): for SIP, the registrar's
    /// P-Asserted-Identity (RFC 3325), not the From header anyone can write. False (the default) when the
    /// channel only has the caller's own word.
    public var fromAsserted = false
    /// Who forwarded the contact to this channel, when it was forwarded (since API 1.11): for SIP, the
    /// diverting party of History-Info (RFC 7044) or Diversion (RFC 5806). Nil (the default) otherwise.
    public var diversion: Diversion?

    public init(
        id: String,
        kind: ContactKind,
        from: Party,
        summary: String = "",
        receivedAt: UnixTime,
        actions: [ContactAction] = []
    ) {
        self.id = id
        self.kind = kind
        self.from = from
        self.summary = summary
        self.receivedAt = receivedAt
        self.actions = actions
    }
}

extension Contact {
    /// Who forwarded a contact, and why (since API 1.11).
    public struct Diversion: Sendable, Hashable {
        /// The party the contact was for before it was forwarded here (a number, an address).
        public var from: Party
        /// Why, in the protocol's words (SIP: `unconditional`, `user-busy`, `no-answer`, `deflection`, …);
        /// empty when it did not say.
        public var reason: String

        public init(from: Party, reason: String = "") {
            self.from = from
            self.reason = reason
        }
    }
}

/// The other party of a contact.
public struct Party: Sendable, Hashable, CustomStringConvertible {
    /// A display name, such as `Ada Lovelace`; may be empty.
    public var displayName: String
    /// An address, such as `sip:ada@example.org` or a chat agent id; may be empty.
    public var address: String

    public init(displayName: String, address: String) {
        self.displayName = displayName
        self.address = address
    }

    public var description: String {
        switch (self.displayName.isEmpty, self.address.isEmpty) {
        case (false, false): "\(self.displayName) <\(self.address)>"
        case (false, true): self.displayName
        case (true, false): self.address
        case (true, true): "unknown"
        }
    }
}

public struct ContactKind: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let call = ContactKind("call")
    public static let chat = ContactKind("chat")
    public static let action = ContactKind("action")

    public var description: String { self.rawValue }
}

/// An operation offered on a contact, shown as a notification button.
public struct ContactAction: Sendable, Hashable {
    /// The request name the host sends back (``ChannelRequest/name``), for example `accept`.
    public var id: String
    /// The button label, for example `Accept`.
    public var label: String

    public init(id: String, label: String) {
        self.id = id
        self.label = label
    }

    public static let accept = ContactAction(id: "accept", label: "Accept")
    public static let decline = ContactAction(id: "decline", label: "Decline")
    public static let open = ContactAction(id: "open", label: "Open")
}

/// How a contact ended.
public struct ContactOutcome: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The user took it (accepted the call, replied to the chat).
    public static let answered = ContactOutcome("answered")
    /// The user turned it down.
    public static let declined = ContactOutcome("declined")
    /// It ended before anyone took it (the caller hung up, the ring timed out).
    public static let missed = ContactOutcome("missed")
    /// Someone took it on another device, so it stopped ringing here (since API 1.11): for SIP, the proxy
    /// of a forked call cancelled this branch with `Reason: SIP;cause=200` (RFC 3326). Not missed: the host
    /// raises no missed-call notice for it. A host older than 1.11 records the value as it is.
    public static let answeredElsewhere = ContactOutcome("answered-elsewhere")
    /// It was handled and is over (a chat conversation ended).
    public static let completed = ContactOutcome("completed")

    public var description: String { self.rawValue }
}
