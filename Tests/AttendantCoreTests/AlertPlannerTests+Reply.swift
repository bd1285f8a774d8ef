import AttendantCore
import AttendantPluginAPI
import Testing

/// Replying from a chat notification: the inline-reply field where the server has one, each reply sent
/// once; the conversation view from the notification itself, and from Reply elsewhere.
extension AlertPlannerTests {
    static let withInlineReply: Set<String> = ["body", "actions", "inline-reply"]

    @Test func aServerWithInlineReplyGetsTheFieldWithThePlaceholderOnChatNotificationsOnly() {
        var p = self.planner(Self.withInlineReply)
        let chat = self.notification(p.handle(.messageReceived(self.message("m1", "Can I help?")), channel: "chat", now: .zero))
        #expect(chat?.actions == [NotificationAction(key: "default", label: "Open"), NotificationAction(key: "inline-reply", label: "Reply")])
        #expect(chat?.replyPlaceholder == "Reply to Grace")
        let call = self.notification(p.handle(.incomingContact(self.call()), channel: "desk", now: .zero))
        #expect(call?.actions.map(\.key) == ["accept", "decline"], "a call has no text field")
        #expect(call?.replyPlaceholder == nil)

        // dunst and GNOME have no inline-reply: no field, no placeholder; Reply opens the conversation.
        var plain = self.planner(["body", "actions"])
        let without = self.notification(plain.handle(.messageReceived(self.message("m1", "Can I help?")), channel: "chat", now: .zero))
        #expect(without?.actions == [NotificationAction(key: "default", label: "Open"), NotificationAction(key: "talk", label: "Reply")])
        #expect(without?.replyPlaceholder == nil)
        // A server without actions gets no buttons at all.
        var bare = self.planner(["body"])
        #expect(self.notification(bare.handle(.messageReceived(self.message("m1", "Hi")), channel: "chat", now: .zero))?.actions == [])
    }

    @Test func theNotificationAndItsReplyButtonOpenTheConversation() {
        var p = self.planner(["body", "actions"])
        for case .notify(let key, _, _) in p.handle(.messageReceived(self.message("m1", "Can I help?")), channel: "chat", now: .zero) {
            p.shown(key: key, id: 9)
        }
        let talk = AlertRoute(channel: "chat", key: self.threadKey, request: "talk")
        #expect(p.actionInvoked(id: 9, actionKey: "default") == talk)
        #expect(p.actionInvoked(id: 9, actionKey: "talk") == talk)
        #expect(p.actionInvoked(id: 9, actionKey: "accept") == nil, "a key the notification does not have")
    }

    @Test func aReplyGoesToItsThreadOnceAndClosesTheNotification() {
        var p = self.planner(Self.withInlineReply)
        for case .notify(let key, _, _) in p.handle(.messageReceived(self.message("m1", "Can I help?")), channel: "chat", now: .zero) {
            p.shown(key: key, id: 7)
        }
        let (route, commands) = p.replied(id: 7, text: "Yes: my order is late")
        #expect(route == AlertRoute(channel: "chat", key: self.threadKey, request: "reply", text: "Yes: my order is late"))
        #expect(commands == [.close(key: self.threadKey, id: 7)])
        let (again, none) = p.replied(id: 7, text: "Yes: my order is late")
        #expect(again == nil && none.isEmpty, "the same notification replied to twice sends once")

        // The agent's next message raises the thread again, and a reply to that one is sent too.
        for case .notify(let key, _, _) in p.handle(.messageReceived(self.message("m2", "Which order?")), channel: "chat", now: .seconds(5)) {
            p.shown(key: key, id: 8)
        }
        #expect(p.replied(id: 8, text: "A-17").0?.text == "A-17")
    }

    @Test func aReplyToNothingKnownOrWithoutTextIsIgnored() {
        var p = self.planner(Self.withInlineReply)
        #expect(p.replied(id: 3, text: "hello").0 == nil, "an unknown id")
        for case .notify(let key, _, _) in p.handle(.incomingContact(self.call()), channel: "desk", now: .zero) { p.shown(key: key, id: 4) }
        #expect(p.replied(id: 4, text: "hello").0 == nil, "a call's notification takes no reply")
        for case .notify(let key, _, _) in p.handle(.messageReceived(self.message("m1", "Hi")), channel: "chat", now: .zero) {
            p.shown(key: key, id: 5)
        }
        let (blank, kept) = p.replied(id: 5, text: "  \n")
        #expect(blank == nil && kept.isEmpty, "an empty reply sends nothing and leaves the notification")
        #expect(p.replied(id: 5, text: "there").0 != nil)
    }
}

/// Choices a message offers, as notification buttons.
extension AlertPlannerTests {
    func offer(_ id: String, _ text: String, kind: ChatMessage.Kind = .message, choices: [String]) -> ChatMessage {
        var message = self.message(id, text, kind: kind)
        message.choices = choices.enumerated().map { ChatChoice(id: "postback-\($0.offset)", label: $0.element) }
        return message
    }

    @Test func theLatestMessagesChoicesAreTheFirstButtonsAndChoosingOneAnswersIt() {
        var p = self.planner(["body", "actions"])
        let commands = p.handle(
            .messageReceived(self.offer("m1", "How can we help?", choices: ["Billing", "Orders", "Returns", "Other"])),
            channel: "chat",
            now: .zero
        )
        let notification = self.notification(commands)
        #expect(notification?.actions.map(\.label) == ["Billing", "Orders", "Returns", "Open", "Reply"], "three choices at most, then the usual two")
        #expect(notification?.urgency == .normal)
        for case .notify(let key, _, _) in commands { p.shown(key: key, id: 4) }
        #expect(
            p.actionInvoked(id: 4, actionKey: "choice-1")
                == AlertRoute(channel: "chat", key: self.threadKey, request: "choose", message: "m1", choice: "postback-1")
        )
        #expect(p.actionInvoked(id: 4, actionKey: "choice-3") == nil, "the fourth choice has no button")
    }

    @Test func anInactivityPromptIsUrgentAndAnsweredChoicesGoAway() {
        var p = self.planner(["body", "actions"])
        let prompt = self.offer("m1", "Are you still there?", kind: .idleAlert, choices: ["I'm here", "End the chat"])
        let shown = self.notification(p.handle(.messageReceived(prompt), channel: "chat", now: .zero))
        #expect(shown?.urgency == .critical)
        #expect(shown?.actions.first?.label == "I'm here")
        // A later message without choices: the buttons are gone, and the old ones lead nowhere.
        let commands = p.handle(.messageReceived(self.message("m2", "Thanks for waiting")), channel: "chat", now: .seconds(5))
        #expect(self.notification(commands)?.actions.map(\.key) == ["default", "talk"])
        for case .notify(let key, _, _) in commands { p.shown(key: key, id: 6) }
        #expect(p.actionInvoked(id: 6, actionKey: "choice-0") == nil)
    }
}
