package import AttendantPluginAPI

/// What a desktop notification is about. The planner keeps at most one notification per key and updates
/// it in place.
package enum AlertKey: Sendable, Hashable, CustomStringConvertible {
    /// A contact while it is open: a ringing call, a new chat, an action contact.
    case contact(channel: String, contactID: String)
    /// The notice that a call was missed (its own notification, after the ringing one closed).
    case missedCall(channel: String, contactID: String)
    /// A chat thread with messages the person at the desk has not seen.
    case thread(channel: String, threadID: String)
    /// An in-app action (campaign content).
    case inAppAction(channel: String, actionID: String)
    /// The channel needs the user to sign in again.
    case signIn(channel: String)

    /// The channel the notification belongs to.
    package var channel: String {
        switch self {
        case .contact(let channel, _), .missedCall(let channel, _), .thread(let channel, _),
            .inAppAction(let channel, _), .signIn(let channel):
            channel
        }
    }

    /// For logs: `contact desk/c1`, `thread chat/t7`.
    package var description: String {
        switch self {
        case .contact(let channel, let id): "contact \(channel)/\(id)"
        case .missedCall(let channel, let id): "missed-call \(channel)/\(id)"
        case .thread(let channel, let id): "thread \(channel)/\(id)"
        case .inAppAction(let channel, let id): "in-app-action \(channel)/\(id)"
        case .signIn(let channel): "sign-in \(channel)"
        }
    }
}

/// Where a notification button leads: which channel, which contact, thread or in-app action (the
/// ``key``), and what to ask of it.
package struct AlertRoute: Sendable, Hashable {
    package var channel: String
    package var key: AlertKey
    /// For a contact, the ``AttendantPluginAPI/ContactAction/id`` (`accept`, `decline`, …), which is the
    /// ``AttendantPluginAPI/ChannelRequest/name`` to perform. For an in-app action, `link` (open
    /// ``link``'s URL, then reset the action) or `dismiss`. For a chat thread, `reply` (send ``text`` there),
    /// `choose` (answer ``message`` with ``choice``) or `talk` (open its conversation view).
    package var request: String
    /// The link an in-app action's `link-<n>` button stands for.
    package var link: InAppAction.Link?
    /// What the person typed in a chat notification's text field (`reply`).
    package var text: String?
    /// For `choose`: the message that offered the choice, and the choice.
    package var message: String?
    package var choice: String?

    package init(
        channel: String,
        key: AlertKey,
        request: String,
        link: InAppAction.Link? = nil,
        text: String? = nil,
        message: String? = nil,
        choice: String? = nil
    ) {
        self.channel = channel
        self.key = key
        self.request = request
        self.link = link
        self.text = text
        self.message = message
        self.choice = choice
    }
}
