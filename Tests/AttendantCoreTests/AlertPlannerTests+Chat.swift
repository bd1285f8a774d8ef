import AttendantCore
import AttendantPluginAPI
import Testing

/// Chat threads: filter, template, transcript lines, coalescing.
extension AlertPlannerTests {
    @Test func aBurstOfTenMessagesIsOneNotificationThenOneUpdate() {
        var p = self.planner()
        var notifies: [(replacesID: UInt32, body: String)] = []
        for n in 1...10 {
            let commands = p.handle(.messageReceived(self.message("m\(n)", "line \(n)")), channel: "chat", now: .milliseconds(20 * (n - 1)))
            for case .notify(let key, let replacesID, let notification) in commands {
                notifies.append((replacesID, notification.body))
                p.shown(key: key, id: 3)
            }
        }
        #expect(notifies.map(\.replacesID) == [0])
        #expect(notifies.map(\.body) == ["Grace: line 1"])
        #expect(p.nextDeadline == .milliseconds(250))
        #expect(p.tick(now: .milliseconds(249)) == [])

        let update = p.tick(now: .milliseconds(250))
        guard case .notify(self.threadKey, 3, let notification) = update.first, update.count == 1 else {
            Issue.record("expected one update replacing id 3, got \(update)")
            return
        }
        #expect(notification.body == "Grace: line 8\nGrace: line 9\nGrace: line 10")
        #expect(notification.summary == "New message from Grace")
        #expect(p.nextDeadline == nil)
        #expect(p.tick(now: .milliseconds(300)) == [])

        // Still busy: the window restarted with the update, so the next message waits for it too.
        #expect(p.handle(.messageReceived(self.message("m11", "line 11")), channel: "chat", now: .milliseconds(400)) == [])
        #expect(p.nextDeadline == .milliseconds(500))
        #expect(self.notification(p.tick(now: .milliseconds(510)))?.body.hasSuffix("Grace: line 11") == true)
        // After a quiet spell a message shows at once.
        let quiet = p.handle(.messageReceived(self.message("m12", "line 12")), channel: "chat", now: .seconds(2))
        #expect(quiet.map(\.key) == [self.threadKey])
    }

    @Test func aChatContactThatNamesItsThreadAlertsOnlyThroughTheThreadsMessages() {
        var p = self.planner()
        var contact = Contact(
            id: "t1",
            kind: .chat,
            from: Party(displayName: "Grace", address: "agent-1"),
            summary: "chat thread t1",
            receivedAt: UnixTime(secondsSince1970: 1_800_000_000)
        )
        contact.threadID = "t1"
        #expect(p.handle(.incomingContact(contact), channel: "chat", now: .zero) == [])
        #expect(p.handle(.messageReceived(self.message("m1", "hello")), channel: "chat", now: .zero).map(\.key) == [self.threadKey])
        #expect(p.handle(.contactEnded(contactID: "t1", outcome: .completed), channel: "chat", now: .seconds(1)) == [])
        // Without a thread, a chat contact is its own notification, as before.
        contact.threadID = nil
        contact.id = "c9"
        #expect(p.handle(.incomingContact(contact), channel: "chat", now: .seconds(2)).map(\.key) == [.contact(channel: "chat", contactID: "c9")])
    }

    @Test func coalescingIsPerThreadAndNeverDelaysCalls() {
        var p = self.planner()
        #expect(p.handle(.messageReceived(self.message("a1", "one")), channel: "chat", now: .zero).count == 1)
        #expect(p.handle(.messageReceived(self.message("a2", "two")), channel: "chat", now: .milliseconds(10)) == [])
        let other = p.handle(.messageReceived(self.message("b1", "hi", thread: "t2")), channel: "chat", now: .milliseconds(20))
        #expect(other.map(\.key) == [.thread(channel: "chat", threadID: "t2")])
        #expect(p.handle(.messageReceived(self.message("b2", "hi again", thread: "t2")), channel: "chat", now: .milliseconds(30)) == [])
        #expect(p.handle(.incomingContact(self.call()), channel: "desk", now: .milliseconds(40)).map(\.key) == [self.callKey])
        #expect(
            p.handle(.contactEnded(contactID: "c1", outcome: .missed), channel: "desk", now: .milliseconds(50)).map(\.key) == [
                .missedCall(channel: "desk", contactID: "c1")
            ]
        )
        #expect(p.nextDeadline == .milliseconds(250))
        #expect(p.tick(now: .milliseconds(250)).map(\.key) == [self.threadKey])
        #expect(p.nextDeadline == .milliseconds(270))
        #expect(p.tick(now: .milliseconds(270)).map(\.key) == [.thread(channel: "chat", threadID: "t2")])
    }

    @Test func zeroCoalesceShowsEveryMessage() {
        var p = self.planner { $0.coalesce = .zero }
        for n in 1...3 {
            #expect(p.handle(.messageReceived(self.message("m\(n)", "\(n)")), channel: "chat", now: .zero).count == 1)
        }
        #expect(p.nextDeadline == nil)
    }

    @Test func heldUpdatesAreDroppedWhenNothingCanBeShown() {
        var p = self.planner()
        _ = p.handle(.messageReceived(self.message("m1", "one")), channel: "chat", now: .zero)
        p.shown(key: self.threadKey, id: 2)
        _ = p.handle(.messageReceived(self.message("m2", "two")), channel: "chat", now: .milliseconds(10))
        #expect(p.nextDeadline == .milliseconds(250))
        p.serverVanished()
        #expect(p.nextDeadline == nil)
        #expect(p.tick(now: .seconds(1)) == [])
        let shown = p.serverAppeared(capabilities: Self.everything)
        #expect(self.notification(shown)?.body == "Grace: one\nGrace: two")
    }

    @Test func typingNoticesAreFilteredByDefaultAndAlertWhenConfigured() {
        var p = self.planner()
        let typing = ChannelEvent.messageReceived(self.message("n1", "", kind: .typingStarted, direction: .notice))
        #expect(p.handle(typing, channel: "chat", now: .zero) == [])
        #expect(p.handle(.messageReceived(self.message("n2", "", kind: .typingStopped, direction: .notice)), channel: "chat", now: .zero) == [])
        let joined = self.notification(
            p.handle(.messageReceived(self.message("n3", "", kind: .joined, direction: .notice)), channel: "chat", now: .zero)
        )
        #expect(joined?.body == "Grace: joined", "filtered events are not transcript lines either")

        var configured = self.planner {
            $0.chatByChannel["chat"] = {
                var settings = ChatAlertSettings()
                settings.events = [.message, .typingStarted]
                return settings
            }()
        }
        #expect(self.notification(configured.handle(typing, channel: "chat", now: .zero))?.body == "Grace: is typing")
        #expect(configured.handle(typing, channel: "web", now: .zero) == [], "other channels keep the default")
        #expect(
            configured.handle(.messageReceived(self.message("n3", "", kind: .joined, direction: .notice)), channel: "chat", now: .seconds(1)) == []
        )
    }

    @Test func messagesToAgentsNeverAlertAndShowTheUserIsInTheConversation() {
        var p = self.planner()
        #expect(p.handle(.messageReceived(self.message("u1", "Hi", direction: .toAgent)), channel: "chat", now: .zero) == [])
        _ = p.handle(.messageReceived(self.message("m1", "Hello")), channel: "chat", now: .zero)
        p.shown(key: self.threadKey, id: 4)
        _ = p.handle(.messageReceived(self.message("m2", "How can I help?")), channel: "chat", now: .milliseconds(10))
        let reply = p.handle(.messageReceived(self.message("u2", "My order", direction: .toAgent)), channel: "chat", now: .milliseconds(20))
        #expect(reply == [.close(key: self.threadKey, id: 4)])
        #expect(p.nextDeadline == nil, "the held update went with it")
        let next = p.handle(.messageReceived(self.message("m3", "Which one?")), channel: "chat", now: .milliseconds(30))
        #expect(next.count == 1)
        guard case .notify(_, 0, let notification) = next.first else { return }
        #expect(notification.body == "Grace: Hello\nGrace: How can I help?\nGrace: Which one?", "the user's own lines are not in the transcript")
        #expect(p.handle(.messageReceived(self.message("x", "?", direction: .init("sideways"))), channel: "chat", now: .seconds(1)) == [])
    }

    @Test func theBodyHasTheLastNLinesAndTheTitleFollowsTheTemplate() throws {
        var settings = ChatAlertSettings()
        settings.lines = 2
        settings.title = try AlertTemplate("{channel} · {thread}: {sender}", known: AlertTemplate.chatPlaceholders)
        var p = self.planner { $0.chatByChannel["chat"] = settings }
        let nameless = Party(displayName: "", address: "agent:9")
        for (n, text) in ["one", "two", "three"].enumerated() {
            _ = p.handle(.messageReceived(self.message("m\(n)", text)), channel: "chat", now: .seconds(n))
        }
        let last = self.notification(
            p.handle(.messageReceived(self.message("m9", "four\nand more", from: nameless)), channel: "chat", now: .seconds(9))
        )
        #expect(last?.body == "Grace: three\nAgent: four and more")
        #expect(last?.summary == "chat · t1: Agent")

        _ = p.handle(.threadUpdated(ChatThread(id: "t1", name: "Order 7", state: .ready)), channel: "chat", now: .seconds(10))
        let named = self.notification(p.handle(.messageReceived(self.message("m10", "five")), channel: "chat", now: .seconds(20)))
        #expect(named?.summary == "chat · Order 7: Grace")
        #expect(named?.body == "Agent: four and more\nGrace: five")

        var defaults = self.planner()
        let long = String(repeating: "x", count: 500)
        let body = self.notification(defaults.handle(.messageReceived(self.message("m1", long, from: nameless)), channel: "chat", now: .zero))?.body
        #expect(body?.count == 240 && body?.hasPrefix("Agent: xxx") == true && body?.hasSuffix("x…") == true)
    }

    @Test func aReplayedMessageIsShownOnce() {
        var p = self.planner()
        _ = p.handle(.messageReceived(self.message("m1", "Hello")), channel: "chat", now: .zero)
        p.shown(key: self.threadKey, id: 2)
        #expect(p.handle(.messageReceived(self.message("m1", "Hello")), channel: "chat", now: .seconds(5)) == [])
        #expect(
            self.notification(p.handle(.messageReceived(self.message("", "a")), channel: "chat", now: .seconds(6)))?.body == "Grace: Hello\nGrace: a"
        )
        #expect(
            self.notification(p.handle(.messageReceived(self.message("", "b")), channel: "chat", now: .seconds(7)))?.body
                == "Grace: Hello\nGrace: a\nGrace: b",
            "messages without ids are never taken for replays"
        )
    }

    @Test func threadsAlertByMessagesAndCloseWithTheThread() {
        var p = self.planner()
        #expect(
            p.handle(.threadUpdated(ChatThread(id: "t1", name: "Order 7", state: .received)), channel: "chat", now: .zero) == [],
            "a new thread alone is not news"
        )
        #expect(p.handle(.threadUpdated(ChatThread(id: "t1", state: .ready)), channel: "chat", now: .zero) == [])
        #expect(p.relevantKeys == [])
        _ = p.handle(.messageReceived(self.message("m1", "Hello")), channel: "chat", now: .zero)
        p.shown(key: self.threadKey, id: 2)
        _ = p.handle(.messageReceived(self.message("m2", "Bye")), channel: "chat", now: .milliseconds(1))
        #expect(
            p.handle(.threadUpdated(ChatThread(id: "t1", state: .closed)), channel: "chat", now: .seconds(1)) == [.close(key: self.threadKey, id: 2)]
        )
        #expect(p.nextDeadline == nil)
        #expect(p.relevantKeys == [])
        let reopened = self.notification(p.handle(.messageReceived(self.message("m3", "New day")), channel: "chat", now: .seconds(2)))
        #expect(reopened?.body == "Grace: New day", "a closed thread's transcript is forgotten")
    }
}
