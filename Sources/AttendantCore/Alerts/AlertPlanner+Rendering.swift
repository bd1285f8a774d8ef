import AttendantPluginAPI

/// What each alert looks like. Categories are from the notification specification 1.3 (`call.incoming`,
/// `call.unanswered`, `im.received`); the rest use the `x-attendant.` prefix the specification asks for.
extension AlertPlanner {
    static let callSound = "phone-incoming-call"

    func notification(for key: AlertKey, _ alert: Alert) -> DesktopNotification? {
        switch alert.content {
        case .contact(let contact):
            return contact.kind == .call
                ? self.ringing(contact, channel: key.channel) : self.otherContact(contact)
        case .missedCall(let contact):
            return self.missed(contact, channel: key.channel)
        case .thread:
            guard case .thread(let channel, let threadID) = key, let thread = self.threads[key] else { return nil }
            return self.chat(thread, threadID: threadID, channel: channel)
        case .inAppAction(let action):
            return self.inApp(action)
        case .signIn(let message):
            return DesktopNotification(
                summary: NotificationText.line("Sign-in needed for \(key.channel)"),
                body: self.body([message]),
                urgency: .critical,
                category: "x-attendant.sign-in",
                expireTimeout: 0
            )
        }
    }

    private func ringing(_ contact: Contact, channel: String) -> DesktopNotification {
        DesktopNotification(
            summary: NotificationText.line("Incoming call from \(Self.name(of: contact.from, otherwise: "unknown caller"))"),
            body: self.body([contact.summary, Self.addressLine(contact.from), Self.forwardedLine(contact), "Channel: \(channel)"]),
            actions: self.buttons(contact.actions.map { NotificationAction(key: $0.id, label: $0.label) }),
            urgency: .critical,
            soundName: Self.callSound,
            category: "call.incoming",
            expireTimeout: 0
        )
    }

    private func missed(_ contact: Contact, channel: String) -> DesktopNotification {
        DesktopNotification(
            summary: NotificationText.line("Missed call from \(Self.name(of: contact.from, otherwise: "unknown caller"))"),
            body: self.body([
                Self.addressLine(contact.from), Self.forwardedLine(contact), "Channel: \(channel)",
                "Called at \(Self.clockTime(contact.receivedAt, utcOffset: self.configuration.utcOffset))",
            ]),
            urgency: .normal,
            category: "call.unanswered"
        )
    }

    private func otherContact(_ contact: Contact) -> DesktopNotification {
        let name = Self.name(of: contact.from, otherwise: "unknown")
        let what = contact.kind == .chat ? "chat" : contact.kind.rawValue
        return DesktopNotification(
            summary: NotificationText.line("New \(what) from \(name)"),
            body: self.body([contact.summary]),
            actions: self.buttons(contact.actions.map { NotificationAction(key: $0.id, label: $0.label) }),
            urgency: .normal,
            category: contact.kind == .chat ? "im.received" : "x-attendant.\(contact.kind.rawValue)"
        )
    }

    private func chat(_ thread: ThreadRecord, threadID: String, channel: String) -> DesktopNotification {
        let settings = self.configuration.chat(for: channel)
        let title = settings.title.render([
            "sender": Self.name(of: thread.transcript.last?.sender, otherwise: "Agent", useAddress: false),
            "channel": channel,
            "thread": thread.name.isEmpty ? threadID : thread.name,
        ])
        let lines = thread.transcript.suffix(settings.lines).map { message in
            let sender = Self.name(of: message.sender, otherwise: "Agent", useAddress: false)
            let text = message.text.isEmpty ? Self.phrase(for: message.kind) : message.text
            return NotificationText.line("\(sender): \(text)")
        }
        // The agent's (or a bot's) latest message, when it offers answers: they are the first buttons, and
        // an "are you still there?" prompt is urgent, as the chat expires unanswered (field.md, CXone 3.1).
        let offer = thread.offer
        var notification = DesktopNotification(
            summary: NotificationText.line(title),
            body: self.body(lines),
            urgency: offer?.kind == .idleAlert ? .critical : .normal,
            category: "im.received"
        )
        let choices = (offer?.choices.prefix(Self.choiceButtons) ?? []).enumerated().map { index, choice in
            NotificationAction(key: "\(Self.choiceActionPrefix)\(index)", label: NotificationText.line(choice.label))
        }
        // Clicking it opens the conversation. A server with a text field on notifications takes the answer
        // right there (field.md: KDE Plasma, SwayNotificationCenter); elsewhere Reply opens the conversation.
        if self.capabilities?.contains("inline-reply") == true {
            notification.actions = self.buttons(
                choices + [
                    NotificationAction(key: Self.defaultActionKey, label: "Open"),
                    NotificationAction(key: NotificationAction.inlineReply, label: "Reply"),
                ]
            )
            let agent = Self.name(of: thread.transcript.last { $0.direction != .toAgent }?.sender, otherwise: "the agent", useAddress: false)
            notification.replyPlaceholder = "Reply to \(agent)"
        } else {
            notification.actions = self.buttons(
                choices + [
                    NotificationAction(key: Self.defaultActionKey, label: "Open"),
                    NotificationAction(key: Self.talkActionKey, label: "Reply"),
                ]
            )
        }
        return notification
    }

    private func inApp(_ action: InAppAction) -> DesktopNotification {
        var buttons = action.links.enumerated().map { index, link in
            NotificationAction(key: "\(Self.linkActionPrefix)\(index)", label: link.label)
        }
        buttons.append(NotificationAction(key: Self.dismissActionKey, label: "Dismiss"))
        return DesktopNotification(
            summary: NotificationText.line(action.title),
            body: self.body([action.body]),
            actions: self.buttons(buttons),
            urgency: .normal,
            category: "x-attendant.in-app-action"
        )
    }

    // MARK: Pieces

    /// The non-empty lines, joined and made safe for the server.
    private func body(_ lines: [String]) -> String {
        let markup = self.capabilities?.contains("body-markup") ?? false
        return NotificationText.body(lines.filter { !$0.isEmpty }.joined(separator: "\n"), markup: markup)
    }

    /// Buttons only for servers that show them (the `actions` capability).
    private func buttons(_ actions: [NotificationAction]) -> [NotificationAction] {
        self.capabilities?.contains("actions") ?? false ? actions : []
    }

    /// The display name, else the address (when `useAddress`), else `otherwise`.
    static func name(of party: Party?, otherwise: String, useAddress: Bool = true) -> String {
        guard let party else { return otherwise }
        if !party.displayName.isEmpty { return party.displayName }
        if useAddress, !party.address.isEmpty { return party.address }
        return otherwise
    }

    /// The address, when the summary shows the display name instead.
    private static func addressLine(_ party: Party) -> String {
        party.displayName.isEmpty ? "" : party.address
    }

    /// `Forwarded by Sales <sip:sales@example.org> (no-answer)` for a forwarded contact, else empty.
    static func forwardedLine(_ contact: Contact) -> String {
        guard let diversion = contact.diversion else { return "" }
        return "Forwarded by \(diversion.from)" + (diversion.reason.isEmpty ? "" : " (\(diversion.reason))")
    }

    /// What an event without text says.
    private static func phrase(for kind: ChatMessage.Kind) -> String {
        switch kind {
        case .typingStarted: "is typing"
        case .typingStopped: "stopped typing"
        case .joined: "joined"
        case .left: "left"
        default: "(\(kind.rawValue))"
        }
    }

    /// `HH:MM` in the local zone when the offset is known, else `HH:MM UTC`.
    static func clockTime(_ time: UnixTime, utcOffset: Duration?) -> String {
        let seconds = Int64((time.secondsSince1970 + (utcOffset?.seconds ?? 0)).rounded(.down))
        let minutes = seconds >= 0 ? seconds / 60 : (seconds - 59) / 60
        let minuteOfDay = (minutes % 1440 + 1440) % 1440
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(two(minuteOfDay / 60)):\(two(minuteOfDay % 60))" + (utcOffset == nil ? " UTC" : "")
    }
}
