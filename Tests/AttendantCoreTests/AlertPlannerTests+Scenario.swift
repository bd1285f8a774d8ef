import AttendantCore
import AttendantPluginAPI
import Testing

/// A notification server in memory that numbers notifications as real servers do (a `replaces_id` it
/// does not know gets a new id), driven the way the AlertCenter drives the planner: commands in order,
/// each `Notify` reply reported before the next input.
struct NotificationServerModel {
    var capabilities: Set<String> = AlertPlannerTests.everything
    var nextID: UInt32 = 1
    var onScreen: [UInt32: DesktopNotification] = [:]
    var notifyCalls = 0

    mutating func run(_ commands: [AlertCommand], _ planner: inout AlertPlanner) {
        for command in commands {
            switch command {
            case .notify(let key, let replacesID, let notification):
                self.notifyCalls += 1
                let id: UInt32
                if replacesID != 0, self.onScreen[replacesID] != nil {
                    id = replacesID
                } else {
                    id = self.nextID
                    self.nextID += 1
                }
                self.onScreen[id] = notification
                #expect(planner.shown(key: key, id: id) == [])
            case .close(_, let id):
                #expect(self.onScreen[id] != nil, "closing id \(id), which is not shown")
                self.onScreen[id] = nil
            }
        }
    }

    /// The user closes the notification with this summary.
    mutating func dismiss(_ summary: String, _ planner: inout AlertPlanner) {
        guard let id = self.onScreen.first(where: { $0.value.summary == summary })?.key else {
            Issue.record("\"\(summary)\" is not on screen")
            return
        }
        self.onScreen[id] = nil
        planner.closedByServer(id: id, reason: .dismissed)
    }

    /// What is on screen, oldest id first.
    var summaries: [String] { self.onScreen.sorted { $0.key < $1.key }.map(\.value.summary) }

    func body(of summary: String) -> String? { self.onScreen.values.first { $0.summary == summary }?.body }
}

extension AlertPlannerTests {
    @Test func aMorningAtTheDeskKeepsTheScreenRight() {
        var planner = AlertPlanner()
        var server = NotificationServerModel()
        func handle(_ event: ChannelEvent, _ channel: String, at ms: Int) {
            server.run(planner.handle(event, channel: channel, now: .milliseconds(ms)), &planner)
        }

        // A call rings before the desktop session has a notification server.
        handle(.incomingContact(self.call()), "desk", at: 0)
        server.run(planner.serverAppeared(capabilities: server.capabilities), &planner)
        #expect(server.summaries == ["Incoming call from Ada Lovelace"])

        // A burst of chat: one notification at once, one update when the window ends.
        for n in 1...5 { handle(.messageReceived(self.message("m\(n)", "part \(n)")), "chat", at: 1000 + n) }
        #expect(server.notifyCalls == 2)
        let deadline = planner.nextDeadline
        #expect(deadline == .milliseconds(1251))
        server.run(planner.tick(now: deadline ?? .zero), &planner)
        #expect(server.notifyCalls == 3)
        #expect(server.summaries == ["Incoming call from Ada Lovelace", "New message from Grace"])
        #expect(server.body(of: "New message from Grace") == "Grace: part 3\nGrace: part 4\nGrace: part 5")

        // The user dismisses the chat; the call goes unanswered.
        server.dismiss("New message from Grace", &planner)
        handle(.contactEnded(contactID: "c1", outcome: .missed), "desk", at: 20_000)
        #expect(server.summaries == ["Missed call from Ada Lovelace"])

        // The notification server restarts: only what was not dismissed comes back, under new ids.
        planner.serverVanished()
        server = NotificationServerModel()
        server.run(planner.serverAppeared(capabilities: server.capabilities), &planner)
        #expect(server.summaries == ["Missed call from Ada Lovelace"])

        // Do not disturb: the screen clears, an offer arrives unseen, and both show afterwards.
        server.run(planner.setDoNotDisturb(true), &planner)
        #expect(server.summaries == [])
        let offer = InAppAction(id: "x1", campaignID: "spring", title: "Spring sale", body: "Today only")
        handle(.actionReceived(offer), "shop", at: 30_000)
        #expect(server.summaries == [])
        server.run(planner.setDoNotDisturb(false), &planner)
        #expect(server.summaries == ["Missed call from Ada Lovelace", "Spring sale"])

        // The offer's dismiss button routes to the channel, which closes the action.
        let offerID = server.onScreen.first { $0.value.summary == "Spring sale" }?.key ?? 0
        #expect(planner.actionInvoked(id: offerID, actionKey: "dismiss")?.request == "dismiss")
        handle(.actionClosed(actionID: "x1", reason: "dismissed"), "shop", at: 31_000)
        #expect(server.summaries == ["Missed call from Ada Lovelace"])
        #expect(planner.relevantKeys == [.missedCall(channel: "desk", contactID: "c1")])
    }
}
