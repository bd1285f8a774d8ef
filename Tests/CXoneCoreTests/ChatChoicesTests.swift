import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import CXoneCore
import FoundationEssentials
import Testing

/// Rich messages (quick replies, list pickers, rich links) and the inactivity popup: read as the CXone
/// SDK reads them, shown as a message's choices, and answered as the SDK answers (a SendMessage with the
/// chosen button's text and postback; for the popup with `isInactivityPopupAnswer`).
@Suite struct ChatChoicesTests {
    static func button(_ text: String, _ postback: String) -> CXoneJSON {
        .object(["type": .string("REPLY_BUTTON"), "text": .string(text), "postback": .string(postback)])
    }

    static let quickReplies = CXoneWire.MessageContent(
        type: "QUICK_REPLIES",
        payload: .object([
            "text": .object(["content": .string("Which topic?")]),
            "actions": .array([button("Billing", #"{"topic":"billing"}"#), button("Delivery", #"{"topic":"delivery"}"#)]),
        ]),
        fallbackText: "Which topic? (fallback)"
    )

    static let listPicker = CXoneWire.MessageContent(
        type: "LIST_PICKER",
        payload: .object([
            "title": .object(["content": .string("Our stores")]),
            "text": .object(["content": .string("Pick the nearest")]),
            "actions": .array([button("Prague", "prg"), button("Brno", "brq")]),
        ])
    )

    static let richLink = CXoneWire.MessageContent(
        type: "RICH_LINK",
        payload: .object([
            "title": .object(["content": .string("Track your parcel")]),
            "url": .string("https://example.com/track?id=42"),
            "media": .object(["fileName": .string("p.png"), "url": .string("https://example.com/p.png"), "mimeType": .string("image/png")]),
        ])
    )

    /// The SDK's PLUGIN shape, the expire button first (the refresh button is told by its postback).
    static let popup = CXoneWire.MessageContent(
        type: "PLUGIN",
        payload: .object([
            "elements": .array([
                .object([
                    "id": .string("popup-1"),
                    "type": .string("INACTIVITY_POPUP"),
                    "elements": .array([
                        .object(["id": .string("t"), "type": .string("TITLE"), "text": .string("Are you still there?")]),
                        .object(["id": .string("b"), "type": .string("TEXT"), "text": .string("The chat has been quiet.")]),
                        .object(["id": .string("c"), "type": .string("TEXT"), "text": .string("Let us know.")]),
                        .object([
                            "id": .string("n"), "type": .string("COUNTDOWN"),
                            "variables": .object(["startedAt": .string("2026-01-01T00:00:00Z"), "numberOfSeconds": .integer(60)]),
                        ]),
                        .object([
                            "id": .string("x"), "type": .string("BUTTON"), "text": .string("End the chat"),
                            "postback": .string(#"{"isExpired": true}"#),
                        ]),
                        .object([
                            "id": .string("r"), "type": .string("BUTTON"), "text": .string("I'm still here"),
                            "postback": .string(#"{"session":"s-1","isExpired" :false}"#),
                        ]),
                    ]),
                ])
            ])
        ])
    )

    static func wireMessage(_ id: String, _ content: CXoneWire.MessageContent, thread: String = "thread-1") -> CXoneWire.Message {
        CXoneWire.Message(
            idOnExternalPlatform: CXoneID(id),
            threadIdOnExternalPlatform: CXoneID(thread),
            messageContent: content,
            createdAt: Date(timeIntervalSince1970: 1_700_000_000),
            direction: .outbound,
            authorUser: CXoneWire.Agent(id: 7, firstName: "Ada")
        )
    }

    static func mapped(_ content: CXoneWire.MessageContent) throws -> ChatMessage {
        let created = CXoneWire.MessageCreated(
            contact: CXoneWire.Contact(id: "case-1"),
            thread: CXoneWire.Thread(idOnExternalPlatform: "thread-1"),
            message: Self.wireMessage("m-1", content)
        )
        guard case .messageCreated(let message, _)? = ChatWireInput.input(for: .messageCreated(created), now: UnixTime(secondsSince1970: 0)).input
        else {
            throw FixtureFailure("MessageCreated made no message")
        }
        return message
    }

    struct FixtureFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: Reading

    @Test func richMessagesAreMessagesWithChoicesAndThePopupAnIdleAlert() throws {
        let replies = try Self.mapped(Self.quickReplies)
        #expect(replies.text == "Which topic?", "the rich text, not the fallback")
        #expect(replies.kind == .message)
        #expect(replies.choices == [ChatChoice(id: "1", label: "Billing"), ChatChoice(id: "2", label: "Delivery")])

        let picker = try Self.mapped(Self.listPicker)
        #expect(picker.text == "Our stores\nPick the nearest")
        #expect(picker.choices.map(\.label) == ["Prague", "Brno"])

        let link = try Self.mapped(Self.richLink)
        #expect(link.choices == [ChatChoice(id: "link", label: "Track your parcel", url: "https://example.com/track?id=42")])

        let popup = try Self.mapped(Self.popup)
        #expect(popup.kind == .idleAlert)
        #expect(popup.direction == .fromAgent)
        #expect(popup.text == "Are you still there?\nThe chat has been quiet.\nLet us know.")
        #expect(popup.choices == [ChatChoice(id: "refresh", label: "I'm still here"), ChatChoice(id: "expire", label: "End the chat")])

        guard case .inactivityPopup(let read)? = Self.popup.richContent else { throw FixtureFailure("no popup") }
        #expect(read.countdownSeconds == 60)
        #expect(read.refreshButton.id == "r" && read.expireButton.id == "x", "told by `\"isExpired\": false`, not by place")

        // What the SDK cannot read stays a plain message with its fallback text.
        var broken = Self.quickReplies
        broken.payload = .object(["text": .object(["content": .string("Which topic?")]), "actions": .array([.object(["type": .string("BUTTON")])])])
        let plain = try Self.mapped(broken)
        #expect(plain.choices.isEmpty)
        #expect(plain.text == "Which topic? (fallback)")
    }

    // MARK: Answering

    static func choose(_ session: inout ChatSession, _ message: String, _ choice: String, id: UInt64) throws -> [ChatSession.Action] {
        try session.choose(
            ChatCommand.Choose(
                threadID: nil,
                messageID: message,
                choiceID: choice,
                now: UnixTime(secondsSince1970: 10),
                timeout: .seconds(5),
                gateway: "wss://gateway"
            ),
            id: id
        )
    }

    /// The SendMessage frames among `actions`.
    static func sent(_ actions: [ChatSession.Action]) throws -> [CXoneWire.SendMessage] {
        try actions.compactMap { action in
            guard case .writeLink(let bytes) = action, case .frame(let frame) = try CXoneOutbound.decode(bytes),
                case .sendMessage(let message) = frame.event
            else { return nil }
            return message
        }
    }

    static func push(_ session: inout ChatSession, _ message: CXoneWire.Message) -> [ChatSession.Action] {
        let created = CXoneWire.MessageCreated(
            contact: CXoneWire.Contact(id: "case-1"),
            thread: CXoneWire.Thread(idOnExternalPlatform: message.threadIdOnExternalPlatform),
            message: message
        )
        return session.received(
            .event(eventId: CXoneID("e-\(message.idOnExternalPlatform.rawValue)"), createdAt: nil, event: .messageCreated(created)),
            now: UnixTime(secondsSince1970: 5)
        )
    }

    @Test func aChoiceIsAnsweredWithItsButtonsTextAndPostbackAndThePopupsAsItsAnswer() throws {
        var session = ChatSessionStepTests.session(ChatOutboxTests.ready().machine)
        _ = Self.push(&session, Self.wireMessage("M-Replies", Self.quickReplies))
        _ = Self.push(&session, Self.wireMessage("m-popup", Self.popup))

        let answered = try Self.sent(try Self.choose(&session, "m-replies", "2", id: 1))
        #expect(answered.count == 1)
        #expect(answered.first?.messageContent.type == "TEXT")
        #expect(answered.first?.messageContent.text == "Delivery")
        #expect(answered.first?.messageContent.postback == #"{"topic":"delivery"}"#)
        #expect(answered.first?.messageContent.parameters == nil, "no popup answer")
        #expect(answered.first?.thread.idOnExternalPlatform == "thread-1")

        // The popup's refresh answer: its button's text and postback, marked as the popup's answer.
        let stay = try Self.sent(try Self.choose(&session, "m-popup", "refresh", id: 2))
        #expect(stay.first?.messageContent.text == "I'm still here")
        #expect(stay.first?.messageContent.postback == #"{"session":"s-1","isExpired" :false}"#)
        #expect(stay.first?.messageContent.parameters == .object(["isInactivityPopupAnswer": .bool(true)]))
        let leave = try Self.sent(try Self.choose(&session, "m-popup", "expire", id: 3))
        #expect(leave.first?.messageContent.postback == #"{"isExpired": true}"#)

        // The answer waits in the outbox like any message, with what makes it an answer.
        #expect(session.machine.outbox.map(\.answer?.isInactivityPopupAnswer) == [false, true, true])
        let record = ChatStorage.OutboxRecord(try #require(session.machine.outbox.last))
        #expect(
            record.entry.answer == ChatStateMachine.Answer(postback: #"{"isExpired": true}"#, isInactivityPopupAnswer: true),
            "kept across restarts"
        )
    }

    /// The SDK never shows the popup's answer (`ChatThreadService.send` does not append a message with
    /// `isInactivityPopupAnswer`, and `shouldIgnoreMessage` drops it when it comes back): its MessageCreated
    /// takes it out of the outbox and tells the host nothing, and a recovered thread or an older page
    /// leaves it out.
    @Test func thePopupsAnswerLeavesTheOutboxButIsNoMessageOfTheThread() throws {
        var session = ChatSessionStepTests.session(ChatOutboxTests.ready().machine)
        _ = Self.push(&session, Self.wireMessage("m-popup", Self.popup))
        _ = try Self.choose(&session, "m-popup", "refresh", id: 1)
        let answerID = try #require(session.machine.outbox.last?.messageID)
        var echo = Self.wireMessage(answerID, .answer("I'm still here", postback: #"{"isExpired": false}"#, isInactivityPopupAnswer: true))
        echo.createdAt = Date(timeIntervalSince1970: 1_700_000_030)
        echo.direction = .inbound
        echo.authorUser = nil
        let told = Self.push(&session, echo)
        #expect(session.machine.outbox.isEmpty, "the answer's MessageCreated confirms it")
        let messages = told.compactMap { action -> ChatMessage? in
            if case .emit(.messageReceived(let message)) = action { return message } else { return nil }
        }
        #expect(messages.isEmpty, "no message is reported: \(messages)")
        let thread = try #require(session.machine.thread("thread-1"))
        #expect(!thread.lastMessages.contains { $0.text == "I'm still here" }, "\(thread.lastMessages.map(\.text))")

        let recovered = ChatWireInput.input(
            for: .threadRecovered(
                CXoneWire.ThreadRecovered(
                    messages: [Self.wireMessage("m-popup", Self.popup), echo],
                    thread: CXoneWire.Thread(idOnExternalPlatform: "thread-1")
                )
            ),
            now: UnixTime(secondsSince1970: 0)
        )
        guard case .threadRecovered(let history, _, _)? = recovered.input else { throw FixtureFailure("no recovered thread") }
        #expect(history.lastMessages.isEmpty, "an answered popup is over: \(history.lastMessages.map(\.id))")
    }

    static func recovered(_ messages: [(String, CXoneWire.MessageContent, seconds: Double)]) throws -> [String] {
        let wire = messages.map { id, content, seconds in
            var message = Self.wireMessage(id, content)
            message.createdAt = Date(timeIntervalSince1970: seconds)
            return message
        }
        let event = CXoneReceivedEvent.threadRecovered(
            CXoneWire.ThreadRecovered(messages: wire.reversed(), thread: CXoneWire.Thread(idOnExternalPlatform: "thread-1"))
        )
        guard case .threadRecovered(let thread, _, _)? = ChatWireInput.input(for: event, now: UnixTime(secondsSince1970: 0)).input else {
            throw FixtureFailure("no recovered thread")
        }
        return thread.lastMessages.map(\.id)
    }

    /// The SDK keeps inactivity popups out of a thread's history and hands on only one that is the
    /// latest message (`ChatThread.updated`, `ChatThreadListService.processThreadRecoveredEvent`): an old
    /// popup's buttons are not offered again.
    @Test func aRecoveredThreadOffersAPopupOnlyWhenItIsTheLatestMessage() throws {
        #expect(
            try Self.recovered([("m-1", .text("Hello"), 100), ("m-popup", Self.popup, 200), ("m-2", .text("Still there"), 300)]) == ["m-1", "m-2"]
        )
        #expect(try Self.recovered([("m-1", .text("Hello"), 100), ("m-popup", Self.popup, 200)]) == ["m-1", "m-popup"])
        #expect(
            try Self.recovered([("m-old", Self.popup, 50), ("m-1", .text("Hello"), 100), ("m-popup", Self.popup, 200)]) == ["m-1", "m-popup"]
        )
    }

    @Test func aChoiceNotOfferedOrALinkIsAnInvalidArgument() throws {
        var session = ChatSessionStepTests.session(ChatOutboxTests.ready().machine)
        _ = Self.push(&session, Self.wireMessage("m-replies", Self.quickReplies))
        _ = Self.push(&session, Self.wireMessage("m-link", Self.richLink))
        _ = Self.push(&session, Self.wireMessage("m-text", .text("plain")))
        for (message, choice, words) in [
            ("m-replies", "3", "offers no choice 3; it offers 1, 2"),
            ("m-text", "1", "message m-text offers no choices here"),
            ("m-gone", "1", "message m-gone offers no choices here"),
            ("m-link", "link", "is a link to open (https://example.com/track?…), not an answer"),
        ] {
            do {
                _ = try Self.choose(&session, message, choice, id: 9)
                Issue.record("\(message) \(choice) was answered")
            } catch let error as ChannelError {
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains(words), "\(error.message)")
            }
        }
        #expect(session.machine.outbox.isEmpty)
    }
}
