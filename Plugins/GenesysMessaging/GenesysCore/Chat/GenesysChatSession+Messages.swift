import AttendantPluginAPI
import AttendantPluginKit

/// The ids of the messages shown, newest last, at most ``limit``: a message whose id is here is not shown
/// again, whether the socket brings it twice or a reconnect or a restart does. Kept in the channel's store
/// as one id per line.
package struct GenesysShownMessages: Sendable, Hashable {
    /// Enough for the latest conversation's messages; an older message coming back is older than all of them.
    package static let limit = 500

    package private(set) var ids: [String]
    private var known: Set<String>

    package init(_ ids: [String] = []) {
        self.ids = Array(ids.suffix(Self.limit))
        self.known = Set(self.ids)
    }

    package var count: Int { self.ids.count }

    package func contains(_ id: String) -> Bool { self.known.contains(id) }

    /// Adds `id`; false if it was shown already.
    package mutating func insert(_ id: String) -> Bool {
        guard self.known.insert(id).inserted else { return false }
        self.ids.append(id)
        if self.ids.count > Self.limit { self.known.remove(self.ids.removeFirst()) }
        return true
    }

    /// The store's value.
    package var stored: String { self.ids.joined(separator: "\n") }

    package static func read(_ value: String?) -> [String] {
        (value ?? "").split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }
}

/// What a message's choices send: a quick reply's answer is a Text message with its `ButtonResponse`,
/// a card button's a Structured one (SDK `MessageStore.prepareMessageWith`, `preparePostbackMessage`).
struct GenesysOffer: Sendable, Hashable {
    enum Answer: Sendable, Hashable {
        case quickReply(GenesysButtonResponse)
        case postback(GenesysButtonResponse)
        /// A card's link: opened, not answered.
        case link(String)
    }

    var threadID: String
    var answers: [String: Answer]
}

// The conversation's messages: each shown once, as the other chat channels show theirs.
extension GenesysChatSession {
    /// The latest messages kept for `open-thread`, and the offers kept for `choose`.
    static let recentLimit = 50

    /// A message of the conversation, as the socket pushed it: the agent's or a bot's (Outbound) is news;
    /// ours (Inbound, the service's copy of what we sent) is shown as ours, which alerts nobody; an event
    /// is a notice (typing, joined, left). Each message id is shown once, ever.
    mutating func show(_ message: GenesysStructuredMessage, now: UnixTime) -> [Action] {
        guard let threadID = self.threadID else { return [] }
        // SDK `MessagingClientImpl`: Inbound events are our own typing and autostart coming back.
        if message.kind == .event, message.direction == .inbound { return [] }
        let typing = message.events.contains { if case .typing = $0 { true } else { false } }
        if typing {
            // A typing notice is not kept in the conversation (its id is never seen again): shown, not recorded.
            return [.emit(.messageReceived(self.chatMessage(message, threadID: threadID, kind: .typingStarted, now: now)))]
        }
        let kind: ChatMessage.Kind
        if message.kind == .event {
            if message.events.contains(.presence(.join)) {
                kind = .joined
            } else if message.events.contains(.presence(.disconnect)) {
                kind = .left
            } else {
                return []
            }
        } else {
            kind = .message
        }
        guard self.shown.insert(message.id) else {
            return [.log(.debug, "\(self.prefix): a message already shown came again; not shown twice")]
        }
        var chat = self.chatMessage(message, threadID: threadID, kind: kind, now: now)
        self.keepFiles(message)
        if kind == .message, message.direction == .outbound {
            let offer = Self.offer(of: message, threadID: threadID)
            chat.choices = offer.choices
            if !offer.answers.isEmpty { self.keepOffer(message.id, GenesysOffer(threadID: threadID, answers: offer.answers)) }
        }
        self.recent.append(chat)
        if self.recent.count > Self.recentLimit { self.recent.removeFirst(self.recent.count - Self.recentLimit) }
        var actions: [Action] = []
        if chat.direction == .fromAgent, self.contactThread != threadID {
            self.contactThread = threadID
            var contact = Contact(
                id: threadID,
                kind: .chat,
                from: chat.sender,
                summary: "Chat with \(chat.sender.displayName)",
                receivedAt: chat.sentAt
            )
            contact.threadID = threadID
            actions += [Self.store(threadID, key: StoreKey.contact), .emit(.incomingContact(contact))]
        }
        return actions + [.emit(.messageReceived(chat)), Self.store(self.shown.stored, key: StoreKey.shown)]
    }

    mutating func keepOffer(_ messageID: String, _ offer: GenesysOffer) {
        if self.offers.updateValue(offer, forKey: messageID) == nil { self.offerOrder.append(messageID) }
        while self.offerOrder.count > Self.recentLimit { self.offers[self.offerOrder.removeFirst()] = nil }
    }

    /// The message as the host's chat message.
    func chatMessage(_ message: GenesysStructuredMessage, threadID: String, kind: ChatMessage.Kind, now: UnixTime) -> ChatMessage {
        let ours = message.direction == .inbound
        let direction: ChatMessage.Direction = ours ? .toAgent : (kind == .message ? .fromAgent : .notice)
        var chat = ChatMessage(
            id: message.id,
            threadID: threadID,
            kind: kind,
            direction: direction,
            sender: ours ? Party(displayName: "You", address: "customer") : Self.sender(of: message),
            text: Self.text(of: message),
            sentAt: message.channel?.time.flatMap(GenesysTime.parse) ?? now
        )
        chat.attachments = message.attachments.map { file in
            ChatAttachment(id: file.id, name: file.filename, mimeType: file.mime ?? "application/octet-stream", size: file.fileSize)
        }
        return chat
    }

    /// Who wrote an Outbound message: `channel.from`'s nickname, else its names, else "Bot" or "Agent" by
    /// `originatingEntity` (the SDK's `Message.From`).
    static func sender(of message: GenesysStructuredMessage) -> Party {
        let bot = message.originatingEntity == "Bot"
        let from = message.channel?.from
        let names = [from?.firstName, from?.lastName].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        let name = from?.nickname.flatMap { $0.isEmpty ? nil : $0 } ?? (names.isEmpty ? (bot ? "Bot" : "Agent") : names)
        return Party(displayName: name, address: bot ? "bot" : "agent")
    }

    /// The message's text; a card without text shows its title and description.
    static func text(of message: GenesysStructuredMessage) -> String {
        if let text = message.text, !text.isEmpty { return text }
        return message.cards.map { card in card.description.isEmpty ? card.title : "\(card.title)\n\(card.description)" }.joined(separator: "\n")
    }

    /// The choices a message offers (ids `1`, `2`, … in order, as the other chat channels number theirs):
    /// its quick replies, then its cards' postback buttons; a card's link is a choice that opens its URL.
    static func offer(of message: GenesysStructuredMessage, threadID: String) -> (choices: [ChatChoice], answers: [String: GenesysOffer.Answer]) {
        var choices: [ChatChoice] = []
        var answers: [String: GenesysOffer.Answer] = [:]
        for reply in message.quickReplies {
            let id = String(choices.count + 1)
            choices.append(ChatChoice(id: id, label: reply.text))
            answers[id] = .quickReply(reply)
        }
        for card in message.cards {
            for action in card.actions {
                let id = String(choices.count + 1)
                if action.type == "Link", let url = action.url {
                    choices.append(ChatChoice(id: id, label: action.text, url: url))
                    answers[id] = .link(url)
                } else if let payload = action.payload {
                    choices.append(ChatChoice(id: id, label: action.text))
                    // SDK `ButtonResponse` of a card's postback: type "Button" (`Content.Action.toButtonResponse`).
                    answers[id] = .postback(
                        GenesysButtonResponse(text: action.text, payload: payload, type: "Button", originatingMessageId: message.id)
                    )
                }
            }
        }
        return (choices, answers)
    }

    /// The service's copy of a message of ours carries the request's tracing id: that send is confirmed.
    mutating func answered(tracingId: String?, by message: GenesysStructuredMessage) -> [Action] {
        guard message.direction == .inbound, let tracingId, let index = self.sendWaiting.firstIndex(where: { $0.tracingId == tracingId }) else {
            return []
        }
        let id = self.sendWaiting.remove(at: index).id
        // The reply the other chat channels give a send (CXoneChat's `ChatOperation`).
        var fields = ["delivery": "sent", "message": message.id]
        fields["thread"] = self.threadID
        return self.reply(to: [id], .success(.fields(fields)))
    }

    /// The service refused a request: the send it answers (by tracing id, else the oldest waiting, as the SDK
    /// refuses "the last message" for 4011, 4013 and 4029) hears why.
    mutating func refused(_ code: GenesysErrorCode, _ text: String, tracingId: String?) -> [Action] {
        let log = Action.log(.warning, "\(self.prefix): \(self.server) refused a request: \(code): \(text)")
        let index = self.sendWaiting.firstIndex { $0.tracingId == tracingId } ?? (code.refusesTheMessage ? self.sendWaiting.indices.first : nil)
        guard let index else { return [log] }
        let id = self.sendWaiting.remove(at: index).id
        let kind: ChannelError.Code = code == .messageTooLong || code == .customAttributeSizeTooLarge ? .invalidArgument : .server
        let error = ChannelError(kind, "\(self.prefix): \(self.server) refused the message: \(code): \(text)")
        return [log] + self.reply(to: [id], .failure(error))
    }
}

/// The ISO 8601 times of `channel.time` (`2022-08-22T19:24:26.704Z`): UTC with optional fractions, or an
/// offset. Anything else is no time (the message then shows when it arrived).
enum GenesysTime {
    static func parse(_ text: String) -> UnixTime? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
        }
        var offset = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "Z") {
            index += 1
        } else if index + 6 == bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"),
            bytes[index + 3] == UInt8(ascii: ":"),
            let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6)
        {
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        // Days since 1970-01-01 (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let days = era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return UnixTime(secondsSince1970: Double(seconds) + fraction)
    }
}
