import AttendantCore
import AttendantPluginAPI
import Testing

/// When a call is heard (``AlertPlanner/isRinging``), and the desktop's own do-not-disturb beside Attendant's.
extension AlertPlannerTests {
    @Test func aCallRingsUntilItEndsWithOrWithoutANotificationServer() {
        var p = AlertPlanner()
        #expect(!p.isRinging)
        _ = p.handle(.incomingContact(self.call("c1")), channel: "desk", now: .zero)
        #expect(p.isRinging, "no server is needed to be heard")
        _ = p.serverAppeared(capabilities: Self.everything)
        p.shown(key: self.callKey, id: 1)
        _ = p.handle(.incomingContact(self.call("c2", from: self.bob)), channel: "desk", now: .seconds(1))
        _ = p.handle(.contactEnded(contactID: "c1", outcome: .missed), channel: "desk", now: .seconds(2))
        #expect(p.isRinging, "c2 still rings")
        // The person dismissing the banner does not silence it; the call's end does.
        _ = p.closedByServer(id: 1, reason: .dismissed)
        _ = p.handle(.contactEnded(contactID: "c2", outcome: .declined), channel: "desk", now: .seconds(3))
        #expect(!p.isRinging)
    }

    @Test func chatsAndActionsAreNotRung() {
        var p = self.planner()
        _ = p.handle(.incomingContact(Contact(id: "x", kind: .chat, from: self.grace, receivedAt: self.nineThirty)), channel: "chat", now: .zero)
        _ = p.handle(.messageReceived(self.message("m1", "Hello")), channel: "chat", now: .zero)
        #expect(!p.isRinging)
    }

    @Test func eitherDoNotDisturbSilencesTheRingAndHoldsBannersBack() {
        var p = self.planner()
        _ = p.handle(.incomingContact(self.call("c1")), channel: "desk", now: .zero)
        p.shown(key: self.callKey, id: 1)

        // The desktop's switch: the banner closes, the ring stops, the call is kept.
        #expect(p.setDesktopDoNotDisturb(true) == [.close(key: self.callKey, id: 1)])
        #expect(!p.isRinging && !p.isShowing && p.isQuiet)
        // Attendant's switch on as well, then the desktop's off: still quiet, nothing shown.
        #expect(p.setDoNotDisturb(true) == [])
        #expect(p.setDesktopDoNotDisturb(false) == [])
        #expect(!p.isRinging && p.isQuiet)
        // Both off: the call that still rings is shown and heard again.
        let commands = p.setDoNotDisturb(false)
        #expect(commands.map(\.key) == [self.callKey])
        #expect(p.isRinging && p.isShowing)
    }
}
