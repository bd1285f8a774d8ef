import AttendantPluginAPI
import AttendantPluginTestKit
import Loopback
import Testing

/// The Loopback plugin through its factory, with the test kit's in-memory host and manual clock.
@Suite struct LoopbackChannelTests {
    let factory = LoopbackPluginFactory()

    @Test func ringsOnItsTimerAndUnansweredContactsBecomeMissed() async throws {
        let host = InMemoryChannelHost(channelName: "desk")
        let settings = ChannelSettings(["contact-interval": .string("10s"), "ring-timeout": .string("5s"), "caller": .string("Ada")])
        let channel = try self.factory.makeChannel(settings: settings, host: host)
        #expect(settings.unknownKeys.isEmpty)
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

    @Test func acceptAndDeclineEndTheContactThatRings() async throws {
        let host = InMemoryChannelHost()
        let channel = try self.factory.makeChannel(settings: ChannelSettings([:]), host: host)
        try await channel.listen()
        guard case .contact(let first) = try await channel.perform(.custom(command: "ring", arguments: [:])) else {
            Issue.record("ring returns the contact")
            return
        }
        _ = try await channel.perform(.accept(contactID: first.id))
        guard case .contact(let second) = try await channel.perform(.custom(command: "ring", arguments: [:])) else { return }
        _ = try await channel.perform(.decline(contactID: second.id))
        let events = host.events.map(\.name)
        #expect(events == ["incoming-contact", "contact-ended", "incoming-contact", "contact-ended"])
        await #expect(throws: ChannelError.self) { try await channel.perform(.accept(contactID: first.id)) }
    }

    @Test func recordsWhatTheHostToldIt() async throws {
        let host = InMemoryChannelHost()
        let channel = try self.factory.makeChannel(settings: ChannelSettings([:]), host: host)
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
        #expect(!report.values.contains { $0.contains("secret-token") })
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
