import AttendantPluginAPI

// Rich messages and the inactivity popup as the host sees them (a message's text, kind and choices), and
// what choosing sends, which only the session keeps (``ChatMessageExtras``).
extension ChatWireInput {
    /// A rich message read for the host.
    struct Offer {
        struct Item {
            var choice: ChatChoice
            var sends: ChatMessageExtras.Choice
        }

        var text: String
        var kind: ChatMessage.Kind
        var choices: [Item]
    }

    /// Quick replies and a list picker offer their buttons (ids `1`, `2`, … in order), each answered with
    /// its text and postback as the SDK's UI answers (`OutboundMessage(text:postback:)`, the SDK's
    /// `docs/cs-rich-content-messages.md`); a rich link offers its URL to open. The inactivity popup
    /// (which the SDK hands to its delegate as `ProactiveActionType.inactivityPopup`, not as a message of
    /// the thread) is an ``ChatMessage/Kind/idleAlert`` whose choices are `refresh` (stay) and `expire`
    /// (end the chat), answered with `isInactivityPopupAnswer` (`ProactiveActionService.trigger(_:)`).
    static func offer(_ content: CXoneWire.MessageContent) -> Offer? {
        func buttons(_ buttons: [CXoneWire.ReplyButton]) -> [Offer.Item] {
            buttons.enumerated().map { index, button in
                Offer.Item(
                    choice: ChatChoice(id: String(index + 1), label: button.text),
                    sends: ChatMessageExtras.Choice(text: button.text, answer: button.postback.map { ChatStateMachine.Answer(postback: $0) })
                )
            }
        }
        switch content.richContent {
        case .quickReplies(let title, let replies)?:
            return Offer(text: title, kind: .message, choices: buttons(replies))
        case .listPicker(let title, let text, let items)?:
            return Offer(text: text.isEmpty ? title : "\(title)\n\(text)", kind: .message, choices: buttons(items))
        case .richLink(let title, let url)?:
            let item = Offer.Item(choice: ChatChoice(id: "link", label: title, url: url), sends: ChatMessageExtras.Choice(text: title, url: url))
            return Offer(text: title, kind: .message, choices: [item])
        case .inactivityPopup(let popup)?:
            var lines = [popup.title, popup.body]
            if let callToAction = popup.callToAction, !callToAction.isEmpty { lines.append(callToAction) }
            func item(_ id: String, _ button: CXoneWire.PopupButton) -> Offer.Item {
                Offer.Item(
                    choice: ChatChoice(id: id, label: button.text),
                    sends: ChatMessageExtras.Choice(
                        text: button.text,
                        answer: ChatStateMachine.Answer(postback: button.postback, isInactivityPopupAnswer: true)
                    )
                )
            }
            return Offer(
                text: lines.joined(separator: "\n"),
                kind: .idleAlert,
                choices: [item("refresh", popup.refreshButton), item("expire", popup.expireButton)]
            )
        case nil:
            return nil
        }
    }

    /// What the session keeps of a message: its choices' answers and its files' addresses.
    package static func extras(of message: CXoneWire.Message) -> ChatMessageExtras.Message {
        var extras = ChatMessageExtras.Message(threadID: Self.id(message.threadIdOnExternalPlatform))
        for item in Self.offer(message.messageContent)?.choices ?? [] {
            extras.choices[item.choice.id] = item.sends
        }
        for file in Self.files(of: message) {
            extras.files[file.shown.id] = file.kept
        }
        return extras
    }

    /// The messages an event brings (MessageCreated, ThreadRecovered, LivechatRecovered,
    /// ThreadMetadataLoaded, MoreMessagesLoaded, MessageReadChanged).
    package static func messages(in event: CXoneReceivedEvent) -> [CXoneWire.Message] {
        switch event {
        case .messageCreated(let created): [created.message]
        case .threadRecovered(let recovered), .livechatRecovered(let recovered): recovered.messages
        case .threadMetadataLoaded(let metadata): metadata.lastMessage.map { [$0] } ?? []
        case .moreMessagesLoaded(let loaded): loaded.messages
        default: []
        }
    }
}
