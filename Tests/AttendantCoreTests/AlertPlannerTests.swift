import AttendantCore
import AttendantPluginAPI
import Testing

/// The AlertPlanner's rules, each driven with explicit times and explicit server replies.
@Suite struct AlertPlannerTests {
    static let everything: Set<String> = ["actions", "body", "body-markup", "persistence", "sound"]
    let ada = Party(displayName: "Ada Lovelace", address: "sip:ada@example.org")
    let bob = Party(displayName: "Bob", address: "sip:bob@example.org")
    let grace = Party(displayName: "Grace", address: "agent:7")
    /// 2026-11-22T09:30:00Z.
    let nineThirty = UnixTime(secondsSince1970: 1_795_339_800)
    let callKey = AlertKey.contact(channel: "desk", contactID: "c1")
    let threadKey = AlertKey.thread(channel: "chat", threadID: "t1")

    func call(_ id: String = "c1", from party: Party? = nil, actions: [ContactAction] = [.accept, .decline]) -> Contact {
        Contact(id: id, kind: .call, from: party ?? self.ada, receivedAt: self.nineThirty, actions: actions)
    }

    func message(
        _ id: String,
        _ text: String,
        thread: String = "t1",
        kind: ChatMessage.Kind = .message,
        direction: ChatMessage.Direction = .fromAgent,
        from sender: Party? = nil
    ) -> ChatMessage {
        ChatMessage(
            id: id,
            threadID: thread,
            kind: kind,
            direction: direction,
            sender: sender ?? self.grace,
            text: text,
            sentAt: self.nineThirty
        )
    }

    /// A planner with a server present that has `capabilities`.
    func planner(
        _ capabilities: Set<String> = Self.everything,
        _ configure: (inout AlertPlanner.Configuration) -> Void = { _ in }
    ) -> AlertPlanner {
        var configuration = AlertPlanner.Configuration()
        configure(&configuration)
        var planner = AlertPlanner(configuration: configuration)
        #expect(planner.serverAppeared(capabilities: capabilities) == [])
        return planner
    }

    /// The notification of the only command, which must be a notify.
    func notification(_ commands: [AlertCommand], sourceLocation: SourceLocation = #_sourceLocation) -> DesktopNotification? {
        guard commands.count == 1, case .notify(_, _, let notification) = commands[0] else {
            Issue.record("expected one notify, got \(commands)", sourceLocation: sourceLocation)
            return nil
        }
        return notification
    }

    func callNotification() -> DesktopNotification {
        DesktopNotification(
            summary: "Incoming call from Ada Lovelace",
            body: "sip:ada@example.org\nChannel: desk",
            actions: [NotificationAction(key: "accept", label: "Accept"), NotificationAction(key: "decline", label: "Decline")],
            urgency: .critical,
            soundName: "phone-incoming-call",
            category: "call.incoming",
            expireTimeout: 0
        )
    }

    // MARK: Calls

    @Test func incomingCallIsCriticalRingsAndStaysUntilAnsweredOrMissed() throws {
        var p = self.planner()
        let commands = p.handle(.incomingContact(self.call()), channel: "desk", now: .zero)
        #expect(commands == [.notify(key: self.callKey, replacesID: 0, notification: self.callNotification())])
        let notification = try #require(self.notification(commands))
        #expect(notification.appName == "Attendant")
        #expect(notification.urgency.rawValue == 2)
        #expect(notification.actionArguments == ["accept", "Accept", "decline", "Decline"])
    }

    @Test func callerWithoutADisplayNameIsNamedByAddress() {
        var p = self.planner()
        let anonymous = Party(displayName: "", address: "sip:bob@example.org")
        var contact = self.call(from: anonymous)
        contact.summary = "Invoice 42"
        let named = self.notification(p.handle(.incomingContact(contact), channel: "desk", now: .zero))
        #expect(named?.summary == "Incoming call from sip:bob@example.org")
        #expect(named?.body == "Invoice 42\nChannel: desk")
        let nobody = self.call("c2", from: Party(displayName: "", address: ""))
        #expect(self.notification(p.handle(.incomingContact(nobody), channel: "desk", now: .zero))?.summary == "Incoming call from unknown caller")
    }

    @Test func contactUpdatedReplacesTheSameNotification() {
        var p = self.planner()
        _ = p.handle(.incomingContact(self.call()), channel: "desk", now: .zero)
        #expect(p.shown(key: self.callKey, id: 7) == [])
        let updated = self.call(actions: [.decline])
        let commands = p.handle(.contactUpdated(updated), channel: "desk", now: .seconds(1))
        var expected = self.callNotification()
        expected.actions = [NotificationAction(key: "decline", label: "Decline")]
        #expect(commands == [.notify(key: self.callKey, replacesID: 7, notification: expected)])
        #expect(p.handle(.contactUpdated(self.call("unknown")), channel: "desk", now: .seconds(1)) == [], "never seen: ignored")
        #expect(p.handle(.contactUpdated(self.call()), channel: "other", now: .seconds(1)) == [], "contacts are per channel")
    }

    @Test func answeredCallClosesWithoutAMissedCallNotice() {
        var p = self.planner()
        _ = p.handle(.incomingContact(self.call()), channel: "desk", now: .zero)
        p.shown(key: self.callKey, id: 7)
        #expect(p.handle(.contactEnded(contactID: "c1", outcome: .answered), channel: "desk", now: .seconds(3)) == [.close(key: self.callKey, id: 7)])
        #expect(p.relevantKeys == [])
        #expect(p.handle(.contactEnded(contactID: "c1", outcome: .missed), channel: "desk", now: .seconds(4)) == [], "already over")
    }

    @Test func missedCallClosesTheRingingNotificationAndShowsANoticeOfItsOwn() {
        var p = self.planner()
        _ = p.handle(.incomingContact(self.call()), channel: "desk", now: .zero)
        p.shown(key: self.callKey, id: 7)
        let commands = p.handle(.contactEnded(contactID: "c1", outcome: .missed), channel: "desk", now: .seconds(20))
        let notice = DesktopNotification(
            summary: "Missed call from Ada Lovelace",
            body: "sip:ada@example.org\nChannel: desk\nCalled at 09:30 UTC",
            urgency: .normal,
            category: "call.unanswered"
        )
        #expect(
            commands == [
                .close(key: self.callKey, id: 7),
                .notify(key: .missedCall(channel: "desk", contactID: "c1"), replacesID: 0, notification: notice),
            ]
        )
        #expect(notice.actions.isEmpty && notice.soundName == nil && notice.expireTimeout == -1)
    }

    @Test func missedCallTimeUsesTheLocalOffsetWhenKnown() {
        for (offset, expected) in [(Duration.seconds(3600), "10:30"), (.seconds(-10 * 3600), "23:30"), (.seconds(5 * 3600 + 1800), "15:00")] {
            var p = self.planner { $0.utcOffset = offset }
            _ = p.handle(.incomingContact(self.call()), channel: "desk", now: .zero)
            let commands = p.handle(.contactEnded(contactID: "c1", outcome: .missed), channel: "desk", now: .seconds(20))
            #expect(self.notification(commands)?.body == "sip:ada@example.org\nChannel: desk\nCalled at \(expected)")
        }
    }

    @Test func missedCallNoticesAreCappedOldestFirst() {
        var p = self.planner { $0.missedCallLimit = 2 }
        for (index, id) in ["c1", "c2", "c3"].enumerated() {
            _ = p.handle(.incomingContact(self.call(id)), channel: "desk", now: .zero)
            let commands = p.handle(.contactEnded(contactID: id, outcome: .missed), channel: "desk", now: .zero)
            p.shown(key: .missedCall(channel: "desk", contactID: id), id: UInt32(10 + index))
            if id == "c3" {
                #expect(commands.first == .close(key: .missedCall(channel: "desk", contactID: "c1"), id: 10))
                #expect(commands.count == 2)
            }
        }
        #expect(p.relevantKeys == [.missedCall(channel: "desk", contactID: "c2"), .missedCall(channel: "desk", contactID: "c3")])
    }

    @Test func otherContactsAreNormalWithTheirSummaryAndActions() {
        var p = self.planner()
        let chat = Contact(id: "k1", kind: .chat, from: self.ada, summary: "Where is my <order>?", receivedAt: self.nineThirty, actions: [.open])
        let key = AlertKey.contact(channel: "web", contactID: "k1")
        let commands = p.handle(.incomingContact(chat), channel: "web", now: .zero)
        let expected = DesktopNotification(
            summary: "New chat from Ada Lovelace",
            body: "Where is my &lt;order&gt;?",
            actions: [NotificationAction(key: "open", label: "Open")],
            urgency: .normal,
            category: "im.received"
        )
        #expect(commands == [.notify(key: key, replacesID: 0, notification: expected)])
        p.shown(key: key, id: 4)
        #expect(
            p.handle(.contactEnded(contactID: "k1", outcome: .missed), channel: "web", now: .seconds(9)) == [.close(key: key, id: 4)],
            "no missed-call notice for a chat"
        )

        let action = Contact(id: "a1", kind: .action, from: self.grace, summary: "Survey", receivedAt: self.nineThirty)
        let shown = self.notification(p.handle(.incomingContact(action), channel: "web", now: .zero))
        #expect(shown?.summary == "New action from Grace")
        #expect(shown?.body == "Survey")
        #expect(shown?.urgency == .normal)
    }

    // MARK: Capabilities

    @Test func bodiesAreEscapedOnlyForServersThatReadMarkup() {
        let text = "<b>50% off</b> & \"more\" 'soon'\u{0}\u{1B}[31m"
        var markup = self.planner()
        var plain = self.planner(["actions", "body"])
        let event = ChannelEvent.messageReceived(self.message("m1", text))
        let escaped = self.notification(markup.handle(event, channel: "chat", now: .zero))
        #expect(escaped?.body == "Grace: &lt;b&gt;50% off&lt;/b&gt; &amp; \"more\" 'soon'[31m")
        let literal = self.notification(plain.handle(event, channel: "chat", now: .zero))
        #expect(literal?.body == "Grace: <b>50% off</b> & \"more\" 'soon'[31m")

        let sly = Party(displayName: "<i>Eve</i> & Co", address: "sip:eve@example.org")
        let call = self.notification(markup.handle(.incomingContact(self.call(from: sly)), channel: "desk", now: .zero))
        #expect(call?.summary == "Incoming call from <i>Eve</i> & Co", "the summary is plain text by specification")
    }

    @Test func noButtonsWithoutTheActionsCapability() {
        var p = self.planner(["body", "body-markup"])
        let call = self.notification(p.handle(.incomingContact(self.call()), channel: "desk", now: .zero))
        #expect(call?.actions == [])
        #expect(call?.actionArguments == [])
        let action = InAppAction(
            id: "x1",
            campaignID: "spring",
            title: "Spring sale",
            body: "Today only",
            links: [.init(label: "Open", url: "https://example.org")]
        )
        #expect(self.notification(p.handle(.actionReceived(action), channel: "shop", now: .zero))?.actions == [])
    }

    // MARK: Server presence

    @Test func alertsWaitForAServerAndShowOldestFirstWhenOneAppears() {
        var p = AlertPlanner()
        #expect(p.capabilities == nil && !p.isShowing)
        #expect(p.handle(.incomingContact(self.call("c1")), channel: "desk", now: .zero) == [])
        #expect(p.handle(.incomingContact(self.call("c2", from: self.bob)), channel: "desk", now: .seconds(1)) == [])
        #expect(p.handle(.contactEnded(contactID: "c2", outcome: .missed), channel: "desk", now: .seconds(2)) == [])
        #expect(p.handle(.messageReceived(self.message("m1", "Hello")), channel: "chat", now: .seconds(3)) == [])
        #expect(p.handle(.messageReceived(self.message("m2", "Are you there?")), channel: "chat", now: .seconds(3)) == [])
        #expect(p.nextDeadline == nil, "nothing is held while nothing is shown")
        let offer = InAppAction(id: "x1", campaignID: "spring", title: "Spring sale", body: "Today only")
        #expect(p.handle(.actionReceived(offer), channel: "shop", now: .seconds(4)) == [])
        #expect(p.signInNeeded(channel: "chat", message: "The token was refused.") == [])
        #expect(p.shown(key: self.callKey, id: 3) == [], "no server: a stray reply is ignored")

        let commands = p.serverAppeared(capabilities: Self.everything)
        #expect(
            commands.map(\.key) == [
                self.callKey,
                .missedCall(channel: "desk", contactID: "c2"),
                self.threadKey,
                .inAppAction(channel: "shop", actionID: "x1"),
                .signIn(channel: "chat"),
            ]
        )
        let summaries = commands.compactMap { command -> String? in
            guard case .notify(_, 0, let notification) = command else { return nil }
            return notification.summary
        }
        #expect(
            summaries == [
                "Incoming call from Ada Lovelace", "Missed call from Bob", "New message from Grace", "Spring sale", "Sign-in needed for chat",
            ]
        )
        #expect(commands[0] == .notify(key: self.callKey, replacesID: 0, notification: self.callNotification()))
        #expect(self.notification([commands[2]])?.body == "Grace: Hello\nGrace: Are you there?")
    }

    @Test func aVanishedServersIdsAreVoid() {
        var p = self.planner()
        _ = p.handle(.incomingContact(self.call()), channel: "desk", now: .zero)
        p.shown(key: self.callKey, id: 5)
        #expect(p.actionInvoked(id: 5, actionKey: "accept") != nil)
        p.serverVanished()
        #expect(!p.isShowing)
        #expect(p.actionInvoked(id: 5, actionKey: "accept") == nil)
        p.closedByServer(id: 5, reason: .dismissed)
        #expect(p.relevantKeys == [self.callKey], "a signal about an old id changes nothing")
        #expect(p.handle(.contactUpdated(self.call()), channel: "desk", now: .seconds(1)) == [])
        let commands = p.serverAppeared(capabilities: Self.everything)
        #expect(
            commands == [.notify(key: self.callKey, replacesID: 0, notification: self.callNotification())],
            "a new server gets a new notification"
        )
        p.serverVanished()
        #expect(p.handle(.contactEnded(contactID: "c1", outcome: .answered), channel: "desk", now: .seconds(2)) == [], "no id to close")
        #expect(p.serverAppeared(capabilities: Self.everything) == [])
    }

    @Test func aSecondAppearanceWithoutVanishingStartsOver() {
        var p = self.planner()
        _ = p.handle(.incomingContact(self.call()), channel: "desk", now: .zero)
        p.shown(key: self.callKey, id: 5)
        let commands = p.serverAppeared(capabilities: ["body"])
        var plain = self.callNotification()
        plain.actions = []
        #expect(commands == [.notify(key: self.callKey, replacesID: 0, notification: plain)])
        #expect(p.actionInvoked(id: 5, actionKey: "accept") == nil)
    }

    @Test func whatTheUserClosedIsNotShownAgainOnARestartedServer() {
        var p = self.planner()
        _ = p.handle(.incomingContact(self.call()), channel: "desk", now: .zero)
        p.shown(key: self.callKey, id: 5)
        _ = p.handle(.messageReceived(self.message("m1", "Hello")), channel: "chat", now: .zero)
        p.shown(key: self.threadKey, id: 6)
        p.closedByServer(id: 5, reason: .dismissed)
        p.closedByServer(id: 6, reason: .expired)
        p.closedByServer(id: 6, reason: .dismissed)  // again: unknown now, harmless
        #expect(p.relevantKeys == [])
        #expect(p.handle(.contactUpdated(self.call(actions: [.decline])), channel: "desk", now: .seconds(1)) == [])
        p.serverVanished()
        #expect(p.serverAppeared(capabilities: Self.everything) == [])

        // The dismissed call still ends as a missed call, and the thread's next message alerts afresh.
        let missed = p.handle(.contactEnded(contactID: "c1", outcome: .missed), channel: "desk", now: .seconds(30))
        #expect(missed.map(\.key) == [.missedCall(channel: "desk", contactID: "c1")])
        let next = p.handle(.messageReceived(self.message("m2", "Still there?")), channel: "chat", now: .seconds(30))
        guard case .notify(_, 0, let notification) = next.first else {
            Issue.record("expected a new notification, got \(next)")
            return
        }
        #expect(notification.body == "Grace: Hello\nGrace: Still there?")
    }

    @Test func staleRepliesAreHarmless() {
        var p = self.planner()
        #expect(p.shown(key: self.callKey, id: 0) == [])
        #expect(p.shown(key: self.callKey, id: 4) == [.close(key: self.callKey, id: 4)], "nothing wants it: close it again")
        p.closedByServer(id: 4, reason: .closedByCall)
        p.closedByServer(id: 0, reason: .undefined)
        #expect(p.actionInvoked(id: 0, actionKey: "accept") == nil)
        _ = p.handle(.incomingContact(self.call("c1")), channel: "desk", now: .zero)
        _ = p.handle(.incomingContact(self.call("c2")), channel: "desk", now: .zero)
        let second = AlertKey.contact(channel: "desk", contactID: "c2")
        p.shown(key: self.callKey, id: 9)
        p.shown(key: second, id: 9)  // a server that reused an id: the newer owner wins
        #expect(p.actionInvoked(id: 9, actionKey: "accept")?.key == second)
        #expect(p.handle(.contactEnded(contactID: "c1", outcome: .answered), channel: "desk", now: .zero) == [])
    }

    // MARK: Do not disturb

    @Test func doNotDisturbClosesWhatIsShownAndShowsWhatIsStillRelevantWhenOff() {
        var p = self.planner()
        _ = p.handle(.incomingContact(self.call("c1")), channel: "desk", now: .zero)
        p.shown(key: self.callKey, id: 1)
        _ = p.handle(.messageReceived(self.message("m1", "Hello")), channel: "chat", now: .zero)
        p.shown(key: self.threadKey, id: 2)

        #expect(p.setDoNotDisturb(true) == [.close(key: self.callKey, id: 1), .close(key: self.threadKey, id: 2)])
        #expect(p.setDoNotDisturb(true) == [])
        #expect(p.handle(.incomingContact(self.call("c2", from: self.bob)), channel: "desk", now: .seconds(1)) == [])
        #expect(p.handle(.messageReceived(self.message("m2", "Anyone?")), channel: "chat", now: .seconds(1)) == [])
        #expect(p.handle(.contactEnded(contactID: "c1", outcome: .missed), channel: "desk", now: .seconds(2)) == [])
        #expect(p.nextDeadline == nil)

        let commands = p.setDoNotDisturb(false)
        #expect(commands.map(\.key) == [self.threadKey, .contact(channel: "desk", contactID: "c2"), .missedCall(channel: "desk", contactID: "c1")])
        #expect(commands.allSatisfy { if case .notify(_, 0, _) = $0 { true } else { false } })
        #expect(self.notification([commands[0]])?.body == "Grace: Hello\nGrace: Anyone?")
        #expect(p.setDoNotDisturb(false) == [])
    }

    @Test func doNotDisturbFromTheConfigurationHoldsBackEvenANewServer() throws {
        let configuration = try AttendantConfiguration(
            toml: "[[channel]]\nname = \"chat\"\nplugin = \"loopback\"\nchat-alert-lines = 1\n[alerts]\ndo-not-disturb = true\ncoalesce = \"1s\"\n",
            file: nil
        )
        var p = AlertPlanner(configuration)
        #expect(p.doNotDisturb)
        #expect(p.configuration.coalesce == .seconds(1))
        #expect(p.configuration.chat(for: "chat").lines == 1)
        #expect(p.configuration.chat(for: "other") == ChatAlertSettings())
        _ = p.handle(.incomingContact(self.call()), channel: "desk", now: .zero)
        #expect(p.serverAppeared(capabilities: Self.everything) == [])
        #expect(p.shown(key: self.callKey, id: 3) == [.close(key: self.callKey, id: 3)])
        #expect(p.setDoNotDisturb(false) == [.notify(key: self.callKey, replacesID: 0, notification: self.callNotification())])
    }
}
