import AttendantCore
import AttendantPluginAPI
import Testing

// Issue 30: a call answered on another device, and a forwarded call.
extension AlertPlannerTests {
    @Test func aCallAnsweredElsewhereClosesItsNotificationWithoutAMissedCallNotice() {
        var p = self.planner()
        _ = p.handle(.incomingContact(self.call()), channel: "desk", now: .zero)
        p.shown(key: self.callKey, id: 7)
        #expect(
            p.handle(.contactEnded(contactID: "c1", outcome: .answeredElsewhere), channel: "desk", now: .seconds(3)) == [
                .close(key: self.callKey, id: 7)
            ]
        )
        #expect(p.relevantKeys == [])
    }

    @Test func aForwardedCallSaysWhoForwardedItWhileRingingAndWhenMissed() {
        var p = self.planner()
        var call = self.call()
        call.diversion = Contact.Diversion(from: Party(displayName: "Sales", address: "sip:sales@example.org"), reason: "no-answer")
        let ringing = self.notification(p.handle(.incomingContact(call), channel: "desk", now: .zero))
        // Escaped: this server takes body markup.
        #expect(ringing?.body == "sip:ada@example.org\nForwarded by Sales &lt;sip:sales@example.org&gt; (no-answer)\nChannel: desk")
        p.shown(key: self.callKey, id: 7)
        let commands = p.handle(.contactEnded(contactID: "c1", outcome: .missed), channel: "desk", now: .seconds(20))
        guard case .notify(_, _, let notice)? = commands.last else {
            Issue.record("no missed-call notice: \(commands)")
            return
        }
        #expect(
            notice.body == "sip:ada@example.org\nForwarded by Sales &lt;sip:sales@example.org&gt; (no-answer)\nChannel: desk\nCalled at 09:30 UTC"
        )
    }
}
