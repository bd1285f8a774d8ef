/// One `org.freedesktop.Notifications.Notify` call, apart from `replaces_id`: the
/// ``AlertCommand/notify(key:replacesID:notification:)`` command carries that.
///
/// The D-Bus side sends ``appName``, `replaces_id`, ``appIcon``, ``summary``, ``body``,
/// ``actionArguments``, the hints `urgency` (a byte), `sound-name`, `category` and
/// `x-kde-reply-placeholder-text` (strings, only when set), and ``expireTimeout``.
package struct DesktopNotification: Sendable, Hashable {
    package var appName = "Attendant"
    /// An icon name or `file://` URI; empty for none.
    package var appIcon = ""
    /// Plain text, one line (the specification allows no markup here).
    package var summary: String
    /// Escaped for the server's markup when it has the `body-markup` capability, plain text otherwise.
    package var body: String
    /// Buttons, in order; empty unless the server has the `actions` capability.
    package var actions: [NotificationAction] = []
    package var urgency: Urgency = .normal
    /// The `sound-name` hint, a name from the freedesktop sound naming specification.
    package var soundName: String?
    /// The `category` hint (`call.incoming`, `im.received`, or an `x-attendant.` name).
    package var category: String?
    /// Milliseconds; -1 for the server's default, 0 for never.
    package var expireTimeout: Int32 = -1
    /// The `x-kde-reply-placeholder-text` hint: the text field's placeholder, for a notification with the
    /// `inline-reply` action (KDE/knotifications `notifybypopup.cpp`; SwayNotificationCenter reads it too).
    package var replyPlaceholder: String?

    package init(
        summary: String,
        body: String,
        actions: [NotificationAction] = [],
        urgency: Urgency = .normal,
        soundName: String? = nil,
        category: String? = nil,
        expireTimeout: Int32 = -1
    ) {
        self.summary = summary
        self.body = body
        self.actions = actions
        self.urgency = urgency
        self.soundName = soundName
        self.category = category
        self.expireTimeout = expireTimeout
    }

    /// The Notify call's `actions` argument: key, label, key, label, ….
    package var actionArguments: [String] { self.actions.flatMap { [$0.key, $0.label] } }

    /// The `urgency` hint.
    package enum Urgency: UInt8, Sendable, Hashable {
        case low = 0
        case normal = 1
        case critical = 2
    }
}

/// A notification button: the key comes back in `ActionInvoked`, the label is shown.
///
/// The key ``inlineReply`` is no button: a server with the `inline-reply` capability shows a text field for
/// it and sends what the person typed in `NotificationReplied(id, text)`.
package struct NotificationAction: Sendable, Hashable {
    package static let inlineReply = "inline-reply"

    package var key: String
    package var label: String

    package init(key: String, label: String) {
        self.key = key
        self.label = label
    }
}

/// What the D-Bus side does for the planner, in the order given.
package enum AlertCommand: Sendable, Hashable {
    /// Call `Notify`; report the id it returns with ``AlertPlanner/shown(key:id:)`` before the next event.
    /// `replacesID` 0 asks for a new notification.
    case notify(key: AlertKey, replacesID: UInt32, notification: DesktopNotification)
    /// Call `CloseNotification` with this id. The planner has already forgotten the id.
    case close(key: AlertKey, id: UInt32)

    package var key: AlertKey {
        switch self {
        case .notify(let key, _, _), .close(let key, _): key
        }
    }
}

/// The `reason` of a `NotificationClosed` signal.
package struct NotificationCloseReason: Sendable, Hashable, CustomStringConvertible {
    package let rawValue: UInt32
    package init(_ rawValue: UInt32) { self.rawValue = rawValue }

    package static let expired = NotificationCloseReason(1)
    package static let dismissed = NotificationCloseReason(2)
    /// Closed by a `CloseNotification` call.
    package static let closedByCall = NotificationCloseReason(3)
    package static let undefined = NotificationCloseReason(4)

    package var description: String {
        switch self.rawValue {
        case 1: "expired"
        case 2: "dismissed"
        case 3: "closed-by-call"
        case 4: "undefined"
        default: "reason \(self.rawValue)"
        }
    }
}
