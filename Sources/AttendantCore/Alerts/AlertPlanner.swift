import AttendantPluginAPI

/// Decides which desktop notifications to show, update and close, as a pure state machine: it takes
/// channel events, the notification server's replies and signals, and the current time, and returns
/// ``AlertCommand``s for `org.freedesktop.Notifications`. It does no I/O and reads no clock.
///
/// The driver (the AlertCenter actor) hands it one input at a time and runs the commands in order,
/// reporting each `Notify` reply with ``shown(key:id:)`` before the next input. Time is a `Duration`
/// since any fixed origin, from a monotonic clock; the driver sleeps until ``nextDeadline`` and then
/// calls ``tick(now:)``.
///
/// Rules:
/// - One notification per ``AlertKey``, updated in place with `replaces_id`.
/// - Nothing is shown while no server owns the name (the initial state) or while "do not disturb" is
///   on, but every alert is kept; when a server appears or the switch goes off, every alert that is
///   still relevant is shown, oldest first. Turning "do not disturb" on closes what is shown; it holds
///   back calls too (the user asked for quiet; the calls are still there when it goes off).
/// - An alert the server closed (the user dismissed it, or it expired) is not shown again, not even on
///   a restarted server, nor when its contact is updated; a ringing call stays remembered so its end
///   still raises a missed-call notice, and a chat thread raises a new notification with its next
///   message.
/// - After the server vanished, all ids are void: a new server numbers its own.
/// - A chat contact that names its thread (``Contact/threadID``) raises nothing of its own: the thread's
///   messages are its alerts.
/// - Chat messages to agents never alert; one from the person at the desk means they are in the
///   conversation, so it closes the thread's notification.
/// - A thread seen for the first time through `threadUpdated` raises nothing: a new conversation
///   announces itself with its first message, and threads from a thread list or created by the user
///   are not news.
package struct AlertPlanner: Sendable {
    /// What the planner needs from the configuration, plus the local time offset for clock times.
    package struct Configuration: Sendable, Equatable {
        /// See ``AlertSettings/coalesce``.
        package var coalesce: Duration = .milliseconds(250)
        /// Chat alert settings by channel name; channels not listed use ``chatDefault``.
        package var chatByChannel: [String: ChatAlertSettings] = [:]
        package var chatDefault = ChatAlertSettings()
        /// The local time zone's offset from UTC for clock times in bodies (a missed call's time); nil
        /// shows UTC and says so. The driver sets it from the system's zone and may update it.
        package var utcOffset: Duration?
        /// At most this many missed-call notices are kept; the oldest go first.
        package var missedCallLimit = 20

        package init() {}

        /// The `[alerts]` table and every channel's `chat-alert-*` keys; `pluginTitle` gives a plugin's own
        /// default title (``AttendantPluginAPI/ChannelPluginFactory/defaultChatAlertTitle``) for channels
        /// that set none.
        package init(_ configuration: AttendantConfiguration, pluginTitle: (String) -> String? = { _ in nil }) {
            self.coalesce = configuration.alerts.coalesce
            for channel in configuration.channels {
                var chat = channel.chatAlerts
                if !chat.titleIsSet, let text = pluginTitle(channel.plugin),
                    let title = try? AlertTemplate(text, known: AlertTemplate.chatPlaceholders)
                {
                    chat.title = title
                }
                self.chatByChannel[channel.name] = chat
            }
        }

        package func chat(for channel: String) -> ChatAlertSettings {
            self.chatByChannel[channel] ?? self.chatDefault
        }
    }

    /// May be replaced at any time (on reload); it applies to what is shown from then on.
    package var configuration: Configuration
    /// Attendant's own switch (`attendantctl dnd`, `[alerts] do-not-disturb`).
    package private(set) var doNotDisturb: Bool
    /// The desktop's own do-not-disturb (KDE's `Inhibited`, GNOME's `show-banners`, SwayNotificationCenter's
    /// and dunst's switches), followed as well as Attendant's.
    package private(set) var desktopDoNotDisturb = false
    /// The server's capabilities; nil while no server owns the name.
    package private(set) var capabilities: Set<String>?

    var alerts: [AlertKey: Alert] = [:]
    var threads: [AlertKey: ThreadRecord] = [:]
    private var nextSequence: UInt64 = 0

    package init(configuration: Configuration = Configuration(), doNotDisturb: Bool = false) {
        self.configuration = configuration
        self.doNotDisturb = doNotDisturb
    }

    /// A planner for a parsed configuration, with its initial "do not disturb" state.
    package init(_ configuration: AttendantConfiguration, pluginTitle: (String) -> String? = { _ in nil }) {
        self.init(configuration: Configuration(configuration, pluginTitle: pluginTitle), doNotDisturb: configuration.alerts.doNotDisturb)
    }

    /// True when notifications are shown: a server is present and neither "do not disturb" is on.
    package var isShowing: Bool { self.capabilities != nil && !self.isQuiet }

    /// Either "do not disturb" is on: Attendant's or the desktop's.
    package var isQuiet: Bool { self.doNotDisturb || self.desktopDoNotDisturb }

    /// True while a call rings and neither "do not disturb" is on: the ring is heard. It does not need a
    /// notification server, and a dismissed banner does not silence it; the call's end does.
    package var isRinging: Bool {
        !self.isQuiet && self.alerts.values.contains { if case .contact(let contact) = $0.content { contact.kind == .call } else { false } }
    }

    /// The alerts that would be shown now if a server were present and "do not disturb" off, oldest first.
    package var relevantKeys: [AlertKey] { self.keysInOrder { !$0.dismissed } }

    // MARK: Server presence

    /// A server owns `org.freedesktop.Notifications` (at start, or a new one after the old vanished):
    /// shows every relevant alert, oldest first.
    package mutating func serverAppeared(capabilities: Set<String>) -> [AlertCommand] {
        self.forgetIDs()
        self.capabilities = capabilities
        return self.showAll()
    }

    /// The server left the bus: every id it gave is void. Alerts are kept for the next server.
    package mutating func serverVanished() {
        self.capabilities = nil
        self.forgetIDs()
    }

    // MARK: Do not disturb

    /// Attendant's switch. Quiet beginning (this or the desktop's switch) closes every shown notification
    /// and shows nothing new; quiet ending shows every alert that is still relevant, as a server appearing
    /// does. Nothing is forgotten either way.
    package mutating func setDoNotDisturb(_ on: Bool) -> [AlertCommand] {
        self.changeQuiet { $0.doNotDisturb = on }
    }

    /// The desktop's switch; the same effect as ``setDoNotDisturb(_:)``.
    package mutating func setDesktopDoNotDisturb(_ on: Bool) -> [AlertCommand] {
        self.changeQuiet { $0.desktopDoNotDisturb = on }
    }

    private mutating func changeQuiet(_ change: (inout Self) -> Void) -> [AlertCommand] {
        let wasQuiet = self.isQuiet
        change(&self)
        guard self.isQuiet != wasQuiet else { return [] }
        guard self.isQuiet else { return self.showAll() }
        var commands: [AlertCommand] = []
        if self.capabilities != nil {
            for key in self.keysInOrder({ $0.id != nil }) {
                if let id = self.alerts[key]?.id { commands.append(.close(key: key, id: id)) }
            }
        }
        self.forgetIDs()
        return commands
    }

    // MARK: Server feedback

    /// `Notify` returned `id` for `key`'s notification. If that notification is no longer wanted (which
    /// only happens when the driver interleaves inputs), the answer closes it again.
    @discardableResult
    package mutating func shown(key: AlertKey, id: UInt32) -> [AlertCommand] {
        guard id != 0, self.capabilities != nil else { return [] }
        guard self.isShowing, let alert = self.alerts[key], !alert.dismissed else {
            return [.close(key: key, id: id)]
        }
        for (other, entry) in self.alerts where other != key && entry.id == id {
            self.alerts[other]?.id = nil
        }
        self.alerts[key]?.id = id
        return []
    }

    /// `NotificationClosed`: the user dismissed the notification, it expired, or something else closed
    /// it. The id is forgotten and the alert is not shown again. Unknown ids (including the ones the
    /// planner closed itself) are ignored.
    /// `NotificationClosed`: forgets the notification. An in-app action the person dismissed (reason 2,
    /// not after one of its buttons) is dismissed on its channel too, which tells the service
    /// (`message_close`): the route says so.
    @discardableResult
    package mutating func closedByServer(id: UInt32, reason: NotificationCloseReason) -> AlertRoute? {
        guard let key = self.key(forID: id), let alert = self.alerts[key] else { return nil }
        switch alert.content {
        case .contact:
            // Kept: its end may still raise a missed-call notice.
            self.alerts[key]?.id = nil
            self.alerts[key]?.dismissed = true
            return nil
        case .inAppAction where reason == .dismissed && !alert.invoked:
            self.remove(key)
            return AlertRoute(channel: key.channel, key: key, request: "dismiss")
        default:
            self.remove(key)
            return nil
        }
    }

    /// `ActionInvoked`: where the button with `actionKey` on notification `id` leads; nil for an unknown
    /// id or a key the notification does not have.
    package mutating func actionInvoked(id: UInt32, actionKey: String) -> AlertRoute? {
        guard let key = self.key(forID: id), let alert = self.alerts[key] else { return nil }
        self.alerts[key]?.invoked = true
        switch alert.content {
        case .contact(let contact):
            guard contact.actions.contains(where: { $0.id == actionKey }) else { return nil }
            return AlertRoute(channel: key.channel, key: key, request: actionKey)
        case .inAppAction(let action):
            if actionKey == Self.dismissActionKey {
                return AlertRoute(channel: key.channel, key: key, request: "dismiss")
            }
            guard actionKey.hasPrefix(Self.linkActionPrefix),
                let index = Int(actionKey.dropFirst(Self.linkActionPrefix.count)),
                action.links.indices.contains(index)
            else { return nil }
            return AlertRoute(channel: key.channel, key: key, request: "link", link: action.links[index])
        case .thread:
            if actionKey == Self.defaultActionKey || actionKey == Self.talkActionKey {
                return AlertRoute(channel: key.channel, key: key, request: Self.talkRequest)
            }
            // A choice the last message offered: it answers that message.
            guard actionKey.hasPrefix(Self.choiceActionPrefix), let index = Int(actionKey.dropFirst(Self.choiceActionPrefix.count)),
                let offer = self.threads[key]?.offer, offer.choices.indices.contains(index), index < Self.choiceButtons
            else { return nil }
            return AlertRoute(channel: key.channel, key: key, request: Self.chooseRequest, message: offer.id, choice: offer.choices[index].id)
        case .missedCall, .signIn:
            return nil
        }
    }

    /// `NotificationReplied`: the person typed `text` in a chat notification's text field. The route sends
    /// it on that thread; the notification closes, as for any message of theirs, and a second reply to it
    /// (a server that sends the signal twice) finds nothing: each reply is sent once. Nil, and nothing
    /// closed, for an unknown id, a notification that is no chat, or an empty text.
    package mutating func replied(id: UInt32, text: String) -> (AlertRoute?, [AlertCommand]) {
        guard let key = self.key(forID: id), case .thread = key, case .thread = self.alerts[key]?.content,
            !text.allSatisfy(\.isWhitespace)
        else { return (nil, []) }
        return (AlertRoute(channel: key.channel, key: key, request: Self.replyRequest, text: text), self.withdraw(key))
    }

    // MARK: Time

    /// When ``tick(now:)`` has held chat updates to show; nil when none are held.
    package var nextDeadline: Duration? {
        self.threads.values.lazy.filter(\.held).compactMap(\.windowEnd).min()
    }

    /// Shows the chat updates whose coalescing window has ended by `now`.
    package mutating func tick(now: Duration) -> [AlertCommand] {
        var commands: [AlertCommand] = []
        let due = self.keysInOrder { _ in true }.filter { key in
            guard let thread = self.threads[key], thread.held, let end = thread.windowEnd else { return false }
            return end <= now
        }
        for key in due {
            self.threads[key]?.held = false
            self.threads[key]?.windowEnd = now + self.configuration.coalesce
            commands += self.present(key)
        }
        return commands
    }

    // MARK: Sign-in

    /// One critical notification per channel saying the user must sign in again; a later call for the
    /// same channel replaces the message and shows it again even if the user dismissed the earlier one.
    package mutating func signInNeeded(channel: String, message: String) -> [AlertCommand] {
        let key = AlertKey.signIn(channel: channel)
        self.upsert(key, .signIn(message: message))
        self.alerts[key]?.dismissed = false
        return self.present(key)
    }

    /// The channel listens again: closes its sign-in notification.
    package mutating func channelListening(channel: String) -> [AlertCommand] {
        self.withdraw(.signIn(channel: channel))
    }

    // MARK: Internals shared with the extensions

    static let dismissActionKey = "dismiss"
    package static let replyRequest = "reply"
    /// Open the thread's conversation view: no request of the channel's, the daemon's own.
    package static let talkRequest = "talk"
    /// Clicking the notification itself (the specification's `default` action key).
    static let defaultActionKey = "default"
    static let talkActionKey = "talk"
    /// A message's choice `n` is the button `choice-<n>`; at most ``choiceButtons`` of them (servers show
    /// three buttons or so; the conversation view shows them all).
    static let choiceActionPrefix = "choice-"
    static let choiceButtons = 3
    package static let chooseRequest = "choose"
    static let linkActionPrefix = "link-"

    /// Adds an alert, or replaces the content of an existing one (keeping its id, place and state).
    mutating func upsert(_ key: AlertKey, _ content: Alert.Content) {
        if self.alerts[key] != nil {
            self.alerts[key]?.content = content
        } else {
            self.alerts[key] = Alert(content: content, sequence: self.nextSequence)
            self.nextSequence += 1
        }
    }

    /// Shows or updates `key`'s notification, if it is to be shown.
    mutating func present(_ key: AlertKey) -> [AlertCommand] {
        guard self.isShowing, let alert = self.alerts[key], !alert.dismissed,
            let notification = self.notification(for: key, alert)
        else { return [] }
        return [.notify(key: key, replacesID: alert.id ?? 0, notification: notification)]
    }

    /// Forgets `key`'s alert and closes its notification if one is shown.
    mutating func withdraw(_ key: AlertKey) -> [AlertCommand] {
        let id = self.alerts[key]?.id
        self.remove(key)
        guard let id else { return [] }
        return [.close(key: key, id: id)]
    }

    private mutating func remove(_ key: AlertKey) {
        self.alerts[key] = nil
        self.threads[key]?.held = false
        self.threads[key]?.windowEnd = nil
    }

    private mutating func showAll() -> [AlertCommand] {
        guard self.isShowing else { return [] }
        return self.relevantKeys.flatMap { self.present($0) }
    }

    private mutating func forgetIDs() {
        for key in self.alerts.keys { self.alerts[key]?.id = nil }
        for key in self.threads.keys {
            self.threads[key]?.held = false
            self.threads[key]?.windowEnd = nil
        }
    }

    func keysInOrder(_ include: (Alert) -> Bool) -> [AlertKey] {
        // Sorts (sequence, key) pairs, not copies of the alerts: every missed call asks this.
        var picked: [(sequence: UInt64, key: AlertKey)] = []
        for (key, alert) in self.alerts where include(alert) { picked.append((alert.sequence, key)) }
        picked.sort { $0.sequence < $1.sequence }
        return picked.map(\.key)
    }

    private func key(forID id: UInt32) -> AlertKey? {
        guard id != 0 else { return nil }
        return self.alerts.first { $0.value.id == id }?.key
    }
}

/// One alert the planner keeps, shown or not.
struct Alert: Sendable {
    enum Content: Sendable {
        case contact(Contact)
        case missedCall(Contact)
        /// Rendered from the thread's ``ThreadRecord``.
        case thread
        case inAppAction(InAppAction)
        case signIn(message: String)
    }

    var content: Content
    /// Arrival order, for showing alerts oldest first.
    var sequence: UInt64
    /// The server's id while the notification is shown.
    var id: UInt32?
    /// Closed by the server or the user: not shown again.
    var dismissed = false
    /// A button of it was chosen: the close that servers send after that is not the person dismissing it.
    var invoked = false
}

/// What the planner knows of a chat thread, with or without an alert.
struct ThreadRecord: Sendable {
    var name = ""
    /// The messages that passed the filter, oldest first, at most the largest line count.
    var transcript: [ChatMessage] = []
    /// Until then, updates are held (the coalescing window opened by the last shown update).
    var windowEnd: Duration?
    /// An update waits for ``windowEnd``.
    var held = false

    /// The latest message, when it is the agent's (or a bot's) and offers choices: what the notification's
    /// choice buttons answer.
    var offer: ChatMessage? {
        self.transcript.last.flatMap { $0.direction != .toAgent && !$0.choices.isEmpty ? $0 : nil }
    }
}
