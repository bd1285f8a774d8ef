import AttendantPluginAPI
import AttendantPluginKit
import Loopback
import Testing

/// The Loopback chat's answers from the desktop (issue 33) through the pure ``LoopbackSession``: the echo
/// agent's menu, file and inactivity prompt, `choose`, `mark-read`, `load-older-messages`,
/// `download-attachment` and `send-file`. Steps in, actions out, the agent's answers by firing its timer.
@Suite struct LoopbackAnswerTests {
    let now = UnixTime(secondsSince1970: 1_800_000_000)

    /// A chat session with the echo agent, connected, with thread-1 created.
    func session(echo: Bool = true) throws -> LoopbackSession {
        var settings: [String: SettingValue] = ["contact-kind": .string("chat")]
        if echo { settings["echo-agent"] = .bool(true) }
        var session = LoopbackSession(configuration: try LoopbackConfiguration(ChannelSettings(settings)))
        for request in [ChannelRequest.prepare, .connect, .createThread(customFields: [:])] {
            _ = try session.perform(request, 0, now: self.now)
        }
        return session
    }

    /// The agent's messages the actions emit.
    func received(_ actions: [LoopbackSession.Action]) -> [ChatMessage] {
        actions.compactMap { if case .emit(.messageReceived(let message)) = $0 { message } else { nil } }
    }

    /// The reply the actions carry.
    func reply(_ actions: [LoopbackSession.Action]) -> ChannelReply? {
        actions.lazy.compactMap { if case .replied(_, .success(let reply)) = $0 { reply } else { nil } }.first
    }

    /// Sends `text` and fires the agent's answer: what the agent said.
    func say(_ text: String, to session: inout LoopbackSession) throws -> ChatMessage? {
        let sent = try session.perform(.sendMessage(threadID: nil, text: text), 1, now: self.now)
        guard case .setTimer(let echo, _) = sent.first(where: { if case .setTimer = $0 { true } else { false } }) else { return nil }
        return self.received(session.timerFired(echo, now: self.now)).first
    }

    @Test func menuOffersQuickRepliesAndChoosingOneSendsItsLabelWhichTheAgentAnswers() throws {
        var session = try self.session()
        let menu = try #require(try self.say("menu", to: &session))
        #expect(menu.id == "message-2" && menu.kind == .message && menu.direction == .fromAgent)
        #expect(menu.choices.map(\.label) == ["Billing", "Orders", "Other", "Help centre"])
        #expect(menu.choices.map(\.url) == [nil, nil, nil, "https://help.example.org/loopback"])

        // As an SDK answers a quick reply: the person's message with the label, which the agent answers.
        #expect(
            try lines(session.perform(.choose(threadID: nil, messageID: "message-2", choiceID: "orders"), 2, now: self.now)) == [
                "emit thread-updated thread-1", "set echo(messageID: \"message-3\") after 1.0 seconds", "replied 2: done",
            ]
        )
        #expect(
            lines(session.timerFired(.echo(messageID: "message-3"), now: self.now)) == [
                "emit message-received message-4: Echo: Orders", "emit thread-updated thread-1",
            ]
        )
        guard case .threads(let threads) = self.reply(try session.perform(.listThreads, 3, now: self.now)) else { return }
        let sent = try #require(threads.first?.lastMessages.first { $0.id == "message-3" })
        #expect(sent.direction == .toAgent && sent.text == "Orders" && sent.sender.displayName == "You")

        // A link opens its page and answers nothing; a choice the message does not offer is named.
        #expect(
            throws: ChannelError(
                .invalidArgument,
                "loopback: choice \"help-centre\" of message message-2 is a link to open (https://help.example.org/loopback), not an answer"
            )
        ) { try session.perform(.choose(threadID: nil, messageID: "message-2", choiceID: "help-centre"), 4, now: self.now) }
        #expect(
            throws: ChannelError(
                .invalidArgument,
                "loopback: message message-2 offers no choice \"refunds\"; it offers billing, orders, other, help-centre"
            )
        ) { try session.perform(.choose(threadID: nil, messageID: "message-2", choiceID: "refunds"), 5, now: self.now) }
        #expect(throws: ChannelError(.invalidArgument, "loopback: message message-4 offers no choice \"orders\"; it offers none")) {
            try session.perform(.choose(threadID: nil, messageID: "message-4", choiceID: "orders"), 6, now: self.now)
        }
        #expect(throws: ChannelError(.server, "loopback: no message \"message-9\" in thread thread-1")) {
            try session.perform(.choose(threadID: nil, messageID: "message-9", choiceID: "orders"), 7, now: self.now)
        }
    }

    @Test func theIdlePromptComesOnRequestOrOnIdleAndEndTheChatClosesTheThread() throws {
        var session = try self.session()
        let prompted = try session.perform(.custom(command: "idle", arguments: ["thread": "thread-1"]), 1, now: self.now)
        #expect(
            lines(prompted) == [
                "emit message-received message-1: Are you still there? The chat closes soon.", "emit thread-updated thread-1", "replied 1: done",
            ]
        )
        let prompt = try #require(self.received(prompted).first)
        #expect(prompt.kind == .idleAlert && prompt.direction == .notice && prompt.sender.displayName == "Loopback Agent")
        #expect(prompt.choices == [ChatChoice(id: "still-here", label: "I'm here"), ChatChoice(id: "end-chat", label: "End the chat")])

        // "I'm here" is the person's answer, and the chat goes on.
        _ = try session.perform(.choose(threadID: nil, messageID: "message-1", choiceID: "still-here"), 2, now: self.now)
        #expect(self.received(session.timerFired(.echo(messageID: "message-2"), now: self.now)).map(\.text) == ["Echo: I'm here"])

        // The message "idle" brings the prompt too; "End the chat" ends it.
        let again = try #require(try self.say("idle", to: &session))
        #expect(again.kind == .idleAlert && again.id == "message-5")
        let ended = try session.perform(.choose(threadID: nil, messageID: "message-5", choiceID: "end-chat"), 3, now: self.now)
        guard case .emit(.threadUpdated(let thread)) = ended.first else {
            Issue.record("the thread is updated: \(lines(ended))")
            return
        }
        #expect(thread.state == .closed && lines(ended).last == "replied 3: done")
        #expect(throws: ChannelError(.illegalState, "loopback: choose on thread thread-1, which is closed; create a new thread")) {
            try session.perform(.choose(threadID: nil, messageID: "message-5", choiceID: "still-here"), 4, now: self.now)
        }
        #expect(throws: ChannelError.self) { try session.perform(.custom(command: "idle", arguments: [:]), 5, now: self.now) }
    }

    @Test func markReadIsRecordedAndShownByChatStatus() throws {
        var session = try self.session()
        _ = try self.say("one", to: &session)
        _ = try self.say("two", to: &session)
        #expect(try lines(session.perform(.markRead(threadID: nil, messageID: "message-2"), 1, now: self.now)) == ["replied 1: done"])
        guard case .fields(let status) = self.reply(try session.perform(.custom(command: "chat-status", arguments: [:]), 2, now: self.now)) else {
            Issue.record("chat-status answers with fields")
            return
        }
        #expect(status == ["state": "ready", "threads": "1", "open-threads": "1", "current-thread": "thread-1", "read.thread-1": "message-2"])
        // Without a message: all of the thread, up to its last.
        _ = try session.perform(.markRead(threadID: "thread-1", messageID: nil), 3, now: self.now)
        guard case .fields(let after) = self.reply(try session.perform(.custom(command: "chat-status", arguments: [:]), 4, now: self.now)) else {
            return
        }
        #expect(after["read.thread-1"] == "message-4")
        #expect(throws: ChannelError(.server, "loopback: no message \"message-7\" in thread thread-1")) {
            try session.perform(.markRead(threadID: nil, messageID: "message-7"), 5, now: self.now)
        }
    }

    @Test func olderMessagesComeInPagesOfTwentyBeforeTheOldestGiven() throws {
        var session = try self.session(echo: false)
        for number in 1...45 { _ = try session.perform(.sendMessage(threadID: nil, text: "m\(number)"), 1, now: self.now) }
        func texts(_ request: ChannelRequest) throws -> [String] {
            switch self.reply(try session.perform(request, 2, now: self.now)) {
            case .thread(let thread): thread.lastMessages.map(\.text)
            case .threads(let threads): threads.first?.lastMessages.map(\.text) ?? []
            default: []
            }
        }
        #expect(try texts(.openThread(threadID: "thread-1")) == (26...45).map { "m\($0)" })
        #expect(try texts(.loadOlderMessages(threadID: nil)) == (6...25).map { "m\($0)" })
        // New messages do not move the pages.
        _ = try session.perform(.sendMessage(threadID: nil, text: "m46"), 3, now: self.now)
        #expect(try texts(.loadOlderMessages(threadID: "thread-1")) == (1...5).map { "m\($0)" })
        #expect(try texts(.loadOlderMessages(threadID: nil)) == [], "the start of the conversation")
        #expect(try texts(.loadOlderMessages(threadID: nil)) == [])
        // A list gives the last 20 again, and the pages start from there.
        #expect(try texts(.listThreads) == (27...46).map { "m\($0)" })
        #expect(try texts(.loadOlderMessages(threadID: nil)) == (7...26).map { "m\($0)" })
        // An event holds the last 20 too.
        guard case .emit(.threadUpdated(let thread)) = try session.perform(.sendMessage(threadID: nil, text: "m47"), 4, now: self.now).first else {
            Issue.record("a send updates the thread")
            return
        }
        #expect(thread.lastMessages.map(\.text) == (28...47).map { "m\($0)" })
    }

    @Test func theAgentsFileIsDownloadedAndAFileSentIsKeptAndAnswered() throws {
        var session = try self.session()
        let offered = try #require(try self.say("file", to: &session))
        let attachment = try #require(offered.attachments.first)
        #expect(offered.text == "Here is the file you asked for." && offered.attachments.count == 1)
        #expect(attachment.name == "loopback-notes.txt" && attachment.mimeType == "text/plain" && attachment.size == 67)
        let download = ChannelRequest.downloadAttachment(threadID: nil, messageID: offered.id, attachmentID: attachment.id)
        guard case .file(let file) = self.reply(try session.perform(download, 1, now: self.now)) else {
            Issue.record("download-attachment answers with the file")
            return
        }
        #expect(file.name == "loopback-notes.txt" && String(decoding: file.bytes, as: UTF8.self).hasPrefix("Notes from the Loopback agent.\n"))
        #expect(file.bytes.count == 67)
        #expect(throws: ChannelError(.invalidArgument, "loopback: message message-2 has no attachment \"attachment-9\"; it has attachment-1")) {
            try session.perform(.downloadAttachment(threadID: nil, messageID: "message-2", attachmentID: "attachment-9"), 2, now: self.now)
        }

        // A file sent: kept as the person's message with its attachment, answered by the agent.
        let notes = ChatFile(name: "notes.txt", mimeType: "text/plain", bytes: Array("hello".utf8))
        let sent = try session.perform(.sendFile(threadID: nil, file: notes), 3, now: self.now)
        #expect(lines(sent).prefix(2) == ["emit thread-updated thread-1", "set echo(messageID: \"message-3\") after 1.0 seconds"])
        #expect(self.reply(sent) == .fields(["message": "message-3", "thread": "thread-1"]))
        #expect(self.received(session.timerFired(.echo(messageID: "message-3"), now: self.now)).map(\.text) == ["Got notes.txt (5 bytes)"])
        guard
            case .file(let back) = self.reply(
                try session.perform(.downloadAttachment(threadID: nil, messageID: "message-3", attachmentID: "attachment-1"), 4, now: self.now)
            )
        else {
            Issue.record("the file sent can be downloaded")
            return
        }
        #expect(back == notes)

        let large = ChatFile(name: "big.bin", mimeType: "application/octet-stream", bytes: Array(repeating: 0, count: (1 << 20) + 1))
        #expect(throws: ChannelError(.invalidArgument, "loopback: big.bin is 1048577 bytes; the loopback chat takes files of up to 1048576 bytes")) {
            try session.perform(.sendFile(threadID: nil, file: large), 5, now: self.now)
        }
    }

    @Test func theNewRequestsNeedAChatChannelAndAConnectedChat() throws {
        var call = LoopbackSession(configuration: try LoopbackConfiguration(ChannelSettings([:])))
        #expect(throws: ChannelError(.unsupported, "loopback: no mark-read requests here; chat requests need contact-kind = \"chat\"")) {
            try call.perform(.markRead(threadID: nil, messageID: nil), 1, now: self.now)
        }
        var chat = LoopbackSession(configuration: try LoopbackConfiguration(ChannelSettings(["contact-kind": .string("chat")])))
        #expect(
            throws: ChannelError(
                .illegalState,
                "loopback: load-older-messages before connect (the chat is initial); prepare and connect the chat first"
            )
        ) { try chat.perform(.loadOlderMessages(threadID: nil), 2, now: self.now) }
    }
}
