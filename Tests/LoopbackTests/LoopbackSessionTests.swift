import AttendantPluginAPI
import AttendantPluginKit
import Loopback
import Testing

/// The Loopback channel's pure ``LoopbackSession`` alone: steps in, actions out, with no host, clock or
/// worker. Each action is written as a line, so a test reads as the list of what the driver is asked to do.
@Suite struct LoopbackSessionTests {
    let now = UnixTime(secondsSince1970: 1_800_000_000)

    func session(_ settings: [String: SettingValue] = [:]) throws -> LoopbackSession {
        LoopbackSession(configuration: try LoopbackConfiguration(ChannelSettings(settings)))
    }

    @Test func listenFailsOnPurposeThenListensAndArmsTheTick() throws {
        var session = try self.session(["listen-failures": .integer(1), "contact-interval": .string("10s")])
        #expect(
            lines(session.listen(1, nextContact: 7)) == [
                "replied 1: transient: loopback: listen attempt 1 fails on purpose (listen-failures = 1)"
            ]
        )
        #expect(!session.listening)
        #expect(
            lines(session.listen(2, nextContact: 7)) == [
                "set tick after 10.0 seconds", "log info: loopback listening; contacts every 10.0 s", "replied 2: done",
            ]
        )
        #expect(session.listening)
    }

    @Test func theTickRingsAndAnUnansweredContactIsMissedOnce() throws {
        var session = try self.session(["contact-interval": .string("10s"), "ring-timeout": .string("5s")])
        _ = session.listen(1, nextContact: 7)
        #expect(
            lines(session.timerFired(.tick, now: self.now)) == [
                "write next-contact = 8", "set ringTimeout(contactID: \"loopback-7\") after 5.0 seconds", "emit incoming-contact loopback-7",
                "set tick after 10.0 seconds",
            ]
        )
        #expect(lines(session.timerFired(.ringTimeout(contactID: "loopback-7"), now: self.now)) == ["emit contact-ended loopback-7 missed"])
        #expect(lines(session.timerFired(.ringTimeout(contactID: "loopback-7"), now: self.now)) == [])
        #expect(throws: ChannelError(.illegalState, "loopback: contact loopback-7 is not ringing")) {
            try session.perform(.accept(contactID: "loopback-7"), 2, now: self.now)
        }
    }

    @Test func ringAcceptAndDropAreRequests() throws {
        var session = try self.session()
        #expect(throws: ChannelError(.illegalState, "loopback: not listening, so nothing can ring")) {
            try session.perform(.custom(command: "ring", arguments: [:]), 1, now: self.now)
        }
        _ = session.listen(2, nextContact: 1)
        #expect(
            try lines(session.perform(.custom(command: "ring", arguments: ["caller": "Ada"]), 3, now: self.now)) == [
                "write next-contact = 2", "set ringTimeout(contactID: \"loopback-1\") after 30.0 seconds", "emit incoming-contact loopback-1",
                "replied 3: contact loopback-1 from Ada",
            ]
        )
        #expect(
            try lines(session.perform(.accept(contactID: "loopback-1"), 4, now: self.now)) == [
                "cancel ringTimeout(contactID: \"loopback-1\")", "emit contact-ended loopback-1 answered", "replied 4: done",
            ]
        )
        #expect(
            try lines(session.perform(.custom(command: "drop", arguments: [:]), 5, now: self.now)) == [
                "emit stopped-listening: transient: loopback: dropped on request", "replied 5: done",
            ]
        )
        #expect(!session.listening)
        #expect(throws: ChannelError.self) { try session.perform(.custom(command: "jump", arguments: [:]), 6, now: self.now) }
    }

    @Test func theEchoIsATimerByMessageAndAClosedThreadGetsNoAnswer() throws {
        var session = try self.session(["contact-kind": .string("chat"), "echo-agent": .bool(true)])
        for (id, request) in [ChannelRequest.prepare, .connect, .createThread(customFields: [:])].enumerated() {
            _ = try session.perform(request, UInt64(id), now: self.now)
        }
        #expect(
            try lines(session.perform(.sendMessage(threadID: nil, text: "Hello"), 4, now: self.now)) == [
                "emit thread-updated thread-1", "set echo(messageID: \"message-1\") after 1.0 seconds", "replied 4: done",
            ]
        )
        #expect(
            lines(session.timerFired(.echo(messageID: "message-1"), now: self.now + .seconds(1))) == [
                "emit message-received message-2: Echo: Hello", "emit thread-updated thread-1",
            ]
        )
        #expect(lines(session.timerFired(.echo(messageID: "message-1"), now: self.now)) == [], "answered once")
        _ = try session.perform(.sendMessage(threadID: nil, text: "Bye"), 5, now: self.now)
        _ = try session.perform(.endConversation(threadID: nil), 6, now: self.now)
        #expect(lines(session.timerFired(.echo(messageID: "message-3"), now: self.now)) == [])
    }

    /// What the stop cancels never comes back: a firing that slipped past the driver does nothing either.
    @Test func theStopCancelsEveryTimerAndLeavesStopDelayToTheWorker() throws {
        var session = try self.session([
            "contact-kind": .string("chat"), "echo-agent": .bool(true), "contact-interval": .string("10s"), "stop-delay": .string("2s"),
        ])
        _ = session.listen(1, nextContact: 1)
        for (id, request) in [ChannelRequest.prepare, .connect, .createThread(customFields: [:]), .sendMessage(threadID: nil, text: "Hi")]
            .enumerated()
        {
            _ = try session.perform(request, UInt64(id + 2), now: self.now)
        }
        _ = try session.perform(.custom(command: "ring", arguments: [:]), 6, now: self.now)
        #expect(
            lines(session.stop()) == [
                "cancel tick", "cancel ringTimeout(contactID: \"loopback-1\")", "cancel echo(messageID: \"message-1\")",
                "log info: loopback stopping slowly (stop-delay = 2.0 s)", "work linger(2.0 seconds)",
            ]
        )
        #expect(!session.listening)
        for timer in [LoopbackSession.Timer.tick, .ringTimeout(contactID: "loopback-1"), .echo(messageID: "message-1")] {
            #expect(lines(session.timerFired(timer, now: self.now)) == [], "\(timer)")
        }
    }
}

/// `actions` as lines to compare.
func lines(_ actions: [LoopbackSession.Action]) -> [String] {
    actions.map { action in
        switch action {
        case .work(let work): "work \(work)"
        case .setTimer(let timer, let delay): "set \(timer) after \(delay)"
        case .cancelTimer(let timer): "cancel \(timer)"
        case .write(let write): "write \(write.key) = \(write.value ?? "nil")"
        case .emit(let event): "emit \(line(event))"
        case .log(let level, let message): "log \(level): \(message)"
        case .replied(let id, .success(let reply)): "replied \(id): \(line(reply))"
        case .replied(let id, .failure(let error)): "replied \(id): \(error.code): \(error.message)"
        default: "\(action)"
        }
    }
}

private func line(_ event: ChannelEvent) -> String {
    switch event {
    case .incomingContact(let contact): "incoming-contact \(contact.id)"
    case .contactEnded(let id, let outcome): "contact-ended \(id) \(outcome)"
    case .stoppedListening(let error): "stopped-listening: \(error.code): \(error.message)"
    case .threadUpdated(let thread): "thread-updated \(thread.id)"
    case .messageReceived(let message): "message-received \(message.id): \(message.text)"
    default: event.name
    }
}

private func line(_ reply: ChannelReply) -> String {
    switch reply {
    case .done: "done"
    case .contact(let contact): "contact \(contact.id) from \(contact.from.displayName)"
    default: "\(reply)"
    }
}
