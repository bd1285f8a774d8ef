import AttendantCore
import AttendantPluginAPI
import Testing

extension AlertPlannerTests {
    // MARK: Actions

    @Test func actionInvokedRoutesToTheContactAndItsRequest() {
        var p = self.planner()
        _ = p.handle(.incomingContact(self.call()), channel: "desk", now: .zero)
        p.shown(key: self.callKey, id: 5)
        #expect(p.actionInvoked(id: 5, actionKey: "accept") == AlertRoute(channel: "desk", key: self.callKey, request: "accept"))
        #expect(p.actionInvoked(id: 5, actionKey: "decline") == AlertRoute(channel: "desk", key: self.callKey, request: "decline"))
        #expect(p.actionInvoked(id: 5, actionKey: "default") == nil)
        #expect(p.actionInvoked(id: 6, actionKey: "accept") == nil)
        _ = p.handle(.messageReceived(self.message("m1", "Hello")), channel: "chat", now: .zero)
        p.shown(key: self.threadKey, id: 6)
        #expect(p.actionInvoked(id: 6, actionKey: "accept") == nil, "a thread has no buttons")
        _ = p.handle(.contactEnded(contactID: "c1", outcome: .answered), channel: "desk", now: .seconds(1))
        #expect(p.actionInvoked(id: 5, actionKey: "accept") == nil)
    }

    @Test func inAppActionsShowTheirLinksAndDismissAndCloseWithTheAction() {
        var p = self.planner()
        let offer = InAppAction(
            id: "x1",
            campaignID: "spring",
            title: "Spring sale",
            body: "Up to 50% off & free <shipping>",
            links: [.init(label: "Open offer", url: "https://example.org/sale"), .init(label: "Details", url: "https://example.org/terms")]
        )
        let key = AlertKey.inAppAction(channel: "shop", actionID: "x1")
        let expected = DesktopNotification(
            summary: "Spring sale",
            body: "Up to 50% off &amp; free &lt;shipping&gt;",
            actions: [
                NotificationAction(key: "link-0", label: "Open offer"), NotificationAction(key: "link-1", label: "Details"),
                NotificationAction(key: "dismiss", label: "Dismiss"),
            ],
            urgency: .normal,
            category: "x-attendant.in-app-action"
        )
        #expect(p.handle(.actionReceived(offer), channel: "shop", now: .zero) == [.notify(key: key, replacesID: 0, notification: expected)])
        p.shown(key: key, id: 8)
        #expect(p.actionInvoked(id: 8, actionKey: "link-1") == AlertRoute(channel: "shop", key: key, request: "link", link: offer.links[1]))
        #expect(p.actionInvoked(id: 8, actionKey: "dismiss") == AlertRoute(channel: "shop", key: key, request: "dismiss"))
        #expect(p.actionInvoked(id: 8, actionKey: "link-2") == nil)
        #expect(p.actionInvoked(id: 8, actionKey: "link-x") == nil)
        #expect(p.handle(.actionClosed(actionID: "x1", reason: "view"), channel: "shop", now: .seconds(1)) == [.close(key: key, id: 8)])
        #expect(p.actionInvoked(id: 8, actionKey: "dismiss") == nil)
        #expect(p.handle(.actionClosed(actionID: "x1", reason: "view"), channel: "shop", now: .seconds(1)) == [])
    }

    // MARK: Sign-in and quiet events

    @Test func signInNeededIsOneCriticalNotificationPerChannelClosedWhenListening() {
        var p = self.planner()
        let key = AlertKey.signIn(channel: "chat")
        let first = p.signInNeeded(channel: "chat", message: "The server refused the token <401>.")
        let expected = DesktopNotification(
            summary: "Sign-in needed for chat",
            body: "The server refused the token &lt;401&gt;.",
            urgency: .critical,
            category: "x-attendant.sign-in",
            expireTimeout: 0
        )
        #expect(first == [.notify(key: key, replacesID: 0, notification: expected)])
        p.shown(key: key, id: 3)
        let again = p.signInNeeded(channel: "chat", message: "Still refused.")
        #expect(again.map(\.key) == [key])
        guard case .notify(_, 3, let replaced) = again.first else {
            Issue.record("expected the same notification replaced, got \(again)")
            return
        }
        #expect(replaced.body == "Still refused.")
        #expect(p.signInNeeded(channel: "voice", message: "Refused.").map(\.key) == [.signIn(channel: "voice")])
        #expect(p.channelListening(channel: "chat") == [.close(key: key, id: 3)])
        #expect(p.channelListening(channel: "chat") == [])
        p.closedByServer(id: 3, reason: .dismissed)
        #expect(p.relevantKeys == [.signIn(channel: "voice")])
    }

    @Test func aDismissedSignInAlertReturnsWithTheNextFailure() {
        var p = self.planner()
        _ = p.signInNeeded(channel: "chat", message: "Refused.")
        p.shown(key: .signIn(channel: "chat"), id: 3)
        p.closedByServer(id: 3, reason: .dismissed)
        #expect(p.signInNeeded(channel: "chat", message: "Refused again.").count == 1)
    }

    @Test func eventsWithoutAlertsChangeNothing() {
        var p = self.planner()
        #expect(p.handle(.stoppedListening(ChannelError(.transient, "connection reset")), channel: "desk", now: .zero) == [])
        #expect(p.handle(.chatStateChanged(.connected), channel: "chat", now: .zero) == [])
        #expect(p.handle(.actionClosed(actionID: "never-seen", reason: "view"), channel: "shop", now: .zero) == [])
        #expect(p.handle(.contactEnded(contactID: "never-seen", outcome: .missed), channel: "desk", now: .zero) == [])
        #expect(p.relevantKeys == [])
        #expect(p.nextDeadline == nil)
    }
}
