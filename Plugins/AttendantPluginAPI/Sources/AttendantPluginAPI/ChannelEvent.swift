// MARK: - Host API

/// Something a channel reports to the host with ``ChannelHost/emit(_:)``.
///
/// The host turns events into desktop alerts, contact history, journal entries and D-Bus signals. New
/// cases are added in minor versions of the API, so a `switch` over events needs `@unknown default`.
public enum ChannelEvent: Sendable {
    /// The channel stopped listening on its own (connection lost, registration refused, server gone).
    /// The host recovers according to the error's code.
    case stoppedListening(ChannelError)

    /// A contact arrived: a call rings, a chat conversation starts, an in-app action fires.
    case incomingContact(Contact)

    /// A known contact changed (a chat got a new summary, a call was answered elsewhere).
    case contactUpdated(Contact)

    /// A contact is over, with its outcome.
    case contactEnded(contactID: String, outcome: ContactOutcome)

    /// The chat session moved to another state (CXone: initial, preparing, prepared, offline,
    /// connecting, connected, ready, closed).
    case chatStateChanged(ChatState)

    /// A chat thread was created, loaded, changed state or got new messages.
    case threadUpdated(ChatThread)

    /// A chat message arrived or was delivered.
    case messageReceived(ChatMessage)

    /// An in-app action (campaign content) should be shown.
    case actionReceived(InAppAction)

    /// An in-app action was closed (reset by a view event, a link click or a dismissal).
    case actionClosed(actionID: String, reason: String)

    /// An in-app action will or did appear or disappear, or the channel's action window was presented
    /// or dismissed (since API 1.6). For D-Bus viewers; the host raises no alert of its own for it.
    case actionLifecycle(InAppActionLifecycle)

    /// A short name for logs and D-Bus signals.
    public var name: String {
        switch self {
        case .stoppedListening: "stopped-listening"
        case .incomingContact: "incoming-contact"
        case .contactUpdated: "contact-updated"
        case .contactEnded: "contact-ended"
        case .chatStateChanged: "chat-state-changed"
        case .threadUpdated: "thread-updated"
        case .messageReceived: "message-received"
        case .actionReceived: "action-received"
        case .actionClosed: "action-closed"
        case .actionLifecycle(let step): "action-\(step.phase.rawValue)"
        }
    }
}
