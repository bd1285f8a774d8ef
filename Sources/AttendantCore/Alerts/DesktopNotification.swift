/// One `org.freedesktop.Notifications.Notify` call, apart from `replaces_id`: the
/// ``AlertCommand/notify(key:replacesID:notification:)`` command carries that.
///
/// The D-Bus side sends ``appName``, `replaces_id`, ``appIcon``, ``summary``, ``body``,
/// ``actionArguments``, the hints `urgency` (a byte), `sound-name` and `category` (strings, only when
/// set), and ``expireTimeout``.
public struct DesktopNotification: Sendable, Hashable {
    public var appName = "Attendant"
    /// An icon name or `file://` URI; empty for none.
    public var appIcon = ""
    /// Plain text, one line (the specification allows no markup here).
    public var summary: String
    /// Escaped for the server's markup when it has the `body-markup` capability, plain text otherwise.
    public var body: String
    /// Buttons, in order; empty unless the server has the `actions` capability.
    public var actions: [NotificationAction] = []
    public var urgency: Urgency = .normal
    /// The `sound-name` hint, a name from the freedesktop sound naming specification.
    public var soundName: String?
    /// The `category` hint (`call.incoming`, `im.received`, or an `x-attendant.` name).
    public var category: String?
    /// Milliseconds; -1 for the server's default, 0 for never.
    public var expireTimeout: Int32 = -1

    public init(
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
    public var actionArguments: [String] { self.actions.flatMap { [$0.key, $0.label] } }

    /// The `urgency` hint.
    public enum Urgency: UInt8, Sendable, Hashable {
        case low = 0
        case normal = 1
        case critical = 2
    }
}

/// A notification button: the key comes back in `ActionInvoked`, the label is shown.
public struct NotificationAction: Sendable, Hashable {
    public var key: String
    public var label: String

    public init(key: String, label: String) {
        self.key = key
        self.label = label
    }
}

/// What the D-Bus side does for the planner, in the order given.
public enum AlertCommand: Sendable, Hashable {
    /// Call `Notify`; report the id it returns with ``AlertPlanner/shown(key:id:)`` before the next event.
    /// `replacesID` 0 asks for a new notification.
    case notify(key: AlertKey, replacesID: UInt32, notification: DesktopNotification)
    /// Call `CloseNotification` with this id. The planner has already forgotten the id.
    case close(key: AlertKey, id: UInt32)

    public var key: AlertKey {
        switch self {
        case .notify(let key, _, _), .close(let key, _): key
        }
    }
}

/// The `reason` of a `NotificationClosed` signal.
public struct NotificationCloseReason: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    public static let expired = NotificationCloseReason(1)
    public static let dismissed = NotificationCloseReason(2)
    /// Closed by a `CloseNotification` call.
    public static let closedByCall = NotificationCloseReason(3)
    public static let undefined = NotificationCloseReason(4)

    public var description: String {
        switch self.rawValue {
        case 1: "expired"
        case 2: "dismissed"
        case 3: "closed-by-call"
        case 4: "undefined"
        default: "reason \(self.rawValue)"
        }
    }
}
