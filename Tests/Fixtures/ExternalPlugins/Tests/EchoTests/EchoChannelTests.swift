// How a third party tests its plugin: with AttendantPluginTestKit only, the way this package's Echo plugin
// is tested. The kit's InMemoryChannelHost is the host a daemon would be: it records the events the channel
// emits, keeps its store and secrets in memory, runs its timers on a ManualClock the test moves, lends it an
// InMemoryNetwork the test scripts (host.inMemoryNetwork) and hashes with InMemoryHashing. Run with
//
//     swift test --package-path Tests/Fixtures/ExternalPlugins
import AttendantPluginAPI
import AttendantPluginTestKit
import Echo
import Testing

@Suite struct EchoChannelTests {
    static func channel(_ settings: [String: SettingValue], host: InMemoryChannelHost) throws -> any Channel {
        try EchoPluginFactory().makeChannel(settings: ChannelSettings(settings, scope: "[channel.echo]"), host: host)
    }

    @Test func aMessageIsAnsweredWithTheGreeting() async throws {
        let host = InMemoryChannelHost(channelName: "desk")
        let channel = try Self.channel(["greeting": .string("Hello")], host: host)
        try await channel.listen()

        #expect(try await channel.perform(.sendMessage(threadID: "t1", text: "ping")) == .done)
        guard case .messageReceived(let reply) = await host.nextEvent() else {
            Issue.record("expected a message, heard \(host.events)")
            return
        }
        #expect(reply.text == "Hello: ping" && reply.threadID == "t1" && reply.direction == .fromAgent)
        #expect(reply.sender == Party(displayName: "Echo", address: "echo:desk"))
        #expect(host.logRecords.text.contains("echo listening"))
    }

    @Test func theReplyWaitsForItsDelayOnTheHostsClock() async throws {
        let host = InMemoryChannelHost()
        let channel = try Self.channel(["greeting": .string("Later"), "reply-delay": .string("30s")], host: host)
        let reply = Task { try await channel.perform(.sendMessage(threadID: nil, text: "x")) }
        // Nothing happens until the test moves the clock: no test sleeps.
        await host.manualClock.waitForSleepers(atLeast: 1)
        #expect(host.events.isEmpty)
        host.manualClock.advance(by: .seconds(30))
        _ = try await reply.value
        guard case .messageReceived(let message) = await host.nextEvent() else {
            Issue.record("expected a message, heard \(host.events)")
            return
        }
        #expect(message.sentAt == host.manualClock.epoch + .seconds(30))
    }

    @Test func keepAlivesAreCountedInTheChannelsStore() async throws {
        let host = InMemoryChannelHost()
        let channel = try Self.channel(["greeting": .string("Hi")], host: host)
        try await channel.keepAlive()
        try await channel.keepAlive()
        #expect(try await host.store.value(forKey: "keepalives") == "2")
    }

    @Test func badSettingsAndRequestsAreRefusedWithWhatToDo() async throws {
        let host = InMemoryChannelHost()
        let missing = #expect(throws: SettingsError.self) { try Self.channel([:], host: host) }
        #expect(missing?.key == "greeting")
        let channel = try Self.channel(["greeting": .string("Hi")], host: host)
        let refused = await #expect(throws: ChannelError.self) { try await channel.perform(.decline(contactID: "c")) }
        #expect(refused?.code == .unsupported)
    }

    /// The shipped library, loaded through its two entry symbols as attendantd loads it: built for this
    /// API's major version, and its factory is the plugin's.
    @Test func theLibraryExportsItsFactoryAsTheDaemonLoadsIt() throws {
        let library = try PluginLibrary.built("echo")
        #expect(library.apiVersion.major == PluginAPIVersion.current.major)
        #expect(library.factory.name == "echo" && library.factory.kind == .chat)
    }
}
