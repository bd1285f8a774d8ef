import AttendantPluginAPI
import AttendantPluginTestKit
import Loopback
import Testing

/// The Loopback plugin through its factory, with the test kit's in-memory host and manual clock, its `run()`
/// beside each test as the host runs it.
@Suite(.timeLimit(.minutes(1))) struct LoopbackChannelTests {
    let factory = LoopbackPluginFactory()

    @Test func ringsOnItsTimerAndUnansweredContactsBecomeMissed() async throws {
        let host = InMemoryChannelHost(channelName: "desk")
        let settings = ChannelSettings(["contact-interval": .string("10s"), "ring-timeout": .string("5s"), "caller": .string("Ada")])
        let channel = try self.factory.makeChannel(settings: settings, host: host)
        #expect(settings.unknownKeys.isEmpty)
        try await whileRunning(channel) {
            try await channel.listen()
            await host.manualClock.waitForSleepers(atLeast: 1)
            host.manualClock.advance(by: .seconds(10))
            guard case .incomingContact(let contact) = await host.nextEvent() else {
                Issue.record("expected an incoming contact")
                return
            }
            #expect(contact.id == "loopback-1")
            #expect(contact.from.displayName == "Ada")
            #expect(contact.actions == [.accept, .decline])
            await host.manualClock.waitForSleeper(until: .init(offset: .seconds(15)))
            host.manualClock.advance(by: .seconds(5))
            guard case .contactEnded("loopback-1", .missed) = await host.nextEvent() else {
                Issue.record("expected a missed contact")
                return
            }
            await channel.stopListening()
        }
    }

    @Test func acceptAndDeclineEndTheContactThatRings() async throws {
        let host = InMemoryChannelHost()
        let channel = try self.factory.makeChannel(settings: ChannelSettings([:]), host: host)
        try await whileRunning(channel) {
            try await channel.listen()
            guard case .contact(let first) = try await channel.perform(.custom(command: "ring", arguments: [:])) else {
                Issue.record("ring returns the contact")
                return
            }
            _ = try await channel.perform(.accept(contactID: first.id))
            guard case .contact(let second) = try await channel.perform(.custom(command: "ring", arguments: [:])) else { return }
            _ = try await channel.perform(.decline(contactID: second.id))
            // A request returns once its events are out.
            let events = host.events.map(\.name)
            #expect(events == ["incoming-contact", "contact-ended", "incoming-contact", "contact-ended"])
            await #expect(throws: ChannelError.self) { try await channel.perform(.accept(contactID: first.id)) }
            guard case .fields(let report) = try await channel.perform(.custom(command: "report", arguments: [:])) else { return }
            #expect(report["next-contact"] == "3")
        }
    }

    @Test func recordsWhatTheHostToldIt() async throws {
        let host = InMemoryChannelHost()
        let channel = try self.factory.makeChannel(settings: ChannelSettings([:]), host: host)
        try await whileRunning(channel) {
            try await channel.listen()
            try await channel.keepAlive()
            try await channel.keepAlive()
            await channel.tokenDidChange(ChannelToken(value: "secret-token", expiresAt: UnixTime(secondsSince1970: 0)))
            await channel.applicationStateDidChange(.background)
            guard case .fields(let report) = try await channel.perform(.custom(command: "report", arguments: [:])) else { return }
            #expect(report["keepalives"] == "2")
            #expect(report["token-changes"] == "1")
            #expect(report["token-expires-at"] == "1970-01-01T00:00:00Z")
            #expect(report["application-state"] == "background")
            #expect(report["listening"] == "yes")
            #expect(!report.values.contains { $0.contains("secret-token") })
        }
    }

    @Test func listenFailsOnPurposeAsOftenAsItIsTold() async throws {
        let host = InMemoryChannelHost()
        let settings = ChannelSettings(["listen-failures": .integer(2), "listen-failure": .string("authentication")])
        let channel = try self.factory.makeChannel(settings: settings, host: host)
        try await whileRunning(channel) {
            for attempt in 1...2 {
                let error = await #expect(throws: ChannelError.self) { try await channel.listen() }
                #expect(error == ChannelError(.authentication, "loopback: listen attempt \(attempt) fails on purpose (listen-failures = 2)"))
            }
            await #expect(throws: ChannelError.self) { try await channel.keepAlive() }
            try await channel.listen()
            try await channel.keepAlive()
            #expect(try await host.store.value(forKey: "listens") == "3")
        }
    }

    @Test func dropReportsThatTheChannelStoppedListening() async throws {
        let host = InMemoryChannelHost()
        let channel = try self.factory.makeChannel(settings: ChannelSettings([:]), host: host)
        try await whileRunning(channel) {
            try await channel.listen()
            #expect(try await channel.perform(.custom(command: "drop", arguments: ["reason": "cable pulled"])) == .done)
            guard case .stoppedListening(let error) = host.events.first, host.events.count == 1 else {
                Issue.record("expected the one event stopped-listening, got \(host.events.map(\.name))")
                return
            }
            #expect(error == ChannelError(.transient, "loopback: cable pulled"))
            let ring = await #expect(throws: ChannelError.self) { try await channel.perform(.custom(command: "ring", arguments: [:])) }
            #expect(ring == ChannelError(.illegalState, "loopback: not listening, so nothing can ring"))
            await #expect(throws: ChannelError.self) { try await channel.keepAlive() }
        }
    }

    /// The tick, a ringing contact's timeout and the agent's echo are all armed when the channel stops; none
    /// of them is left on the clock, and an hour later nothing has rung, been missed or answered.
    @Test func noTimerOrEchoOutlivesTheStop() async throws {
        let host = InMemoryChannelHost()
        let settings = ChannelSettings([
            "contact-kind": .string("chat"), "echo-agent": .bool(true), "contact-interval": .string("10s"), "ring-timeout": .string("5s"),
        ])
        let channel = try self.factory.makeChannel(settings: settings, host: host)
        try await whileRunning(channel) {
            try await channel.listen()
            _ = try await channel.perform(.prepare)
            _ = try await channel.perform(.connect)
            _ = try await channel.perform(.createThread(customFields: [:]))
            _ = try await channel.perform(.custom(command: "ring", arguments: [:]))
            _ = try await channel.perform(.sendMessage(threadID: nil, text: "Hello"))
            await host.manualClock.waitForSleepers(atLeast: 3)
            let before = host.events.map(\.name)
            await channel.stopListening()
            await host.manualClock.waitForSleepers(where: { $0.isEmpty })
            host.manualClock.advance(by: .seconds(3600))
            #expect(host.events.map(\.name) == before)
            guard case .threads(let threads) = try await channel.perform(.listThreads) else { return }
            #expect(threads.first?.lastMessages.map(\.text) == ["Hello"], "the agent never answered")
            #expect(!before.contains("message-received") && !before.contains("contact-ended"))
        }
    }

    /// `stop-delay` holds the stop on the host's clock, and a caller cancelled before it even began does not
    /// end the wait, as with a plugin stuck in its goodbye: the daemon's `shutdown-timeout` must.
    @Test func stopDelayHoldsTheStopEvenForACancelledCaller() async throws {
        let host = InMemoryChannelHost()
        let channel = try self.factory.makeChannel(settings: ChannelSettings(["stop-delay": .string("30s")]), host: host)
        try await whileRunning(channel) {
            try await channel.listen()
            let stoppedAt = await withTaskGroup(of: ManualClock.Instant.self) { group in
                group.addTask {
                    withUnsafeCurrentTask { $0?.cancel() }
                    await channel.stopListening()
                    return host.manualClock.now
                }
                await host.manualClock.waitForSleepers(atLeast: 1)
                host.manualClock.advance(by: .seconds(30))
                return await group.next()
            }
            #expect(stoppedAt == ManualClock.Instant(offset: .seconds(30)))
            #expect(host.logRecords.all.contains { $0.message == "loopback stopping slowly (stop-delay = 30.0 s)" })
            #expect(try await host.store.value(forKey: "stops") == "1")
        }
    }

    @Test func badSettingsNameTheKey() {
        #expect {
            try self.factory.makeChannel(
                settings: ChannelSettings(["ring-timeout": .integer(0)], scope: "[channel.loopback]"),
                host: InMemoryChannelHost()
            )
        } throws: { error in
            "\(error)" == "key \"ring-timeout\" in [channel.loopback]: must be longer than zero"
        }
    }
}
