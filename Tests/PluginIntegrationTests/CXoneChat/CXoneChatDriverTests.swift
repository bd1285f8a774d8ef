import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import ContactCenterSim
import Foundation
import Testing

/// The CXoneChat driver in-process, on the daemon's network (HostNetwork) against the simulator's
/// gateway on loopback, with the test kit's host and its manual clock: no daemon, no plugin loading.
@Suite(.serialized) struct CXoneChatDriverTests {
    /// A started simulator and a channel for its gateway.
    struct Rig {
        let simulator: ContactCenterSimulator
        let host: InMemoryChannelHost
        let channel: any Channel
        /// The channel's own work, as the host runs it for the channel's life.
        let running: Task<Void, Never>

        static func start() async throws -> Rig {
            let simulator = try await ContactCenterSimulator.start(SimulatorConfiguration())
            let host = InMemoryChannelHost(channelName: "chat", network: HostNetwork(logger: Logger(label: "test")))
            let endpoints = simulator.cxoneEndpoints
            let settings = ChannelSettings([
                "brand-id": .integer(Int64(CXoneGatewaySettings().brandId)),
                "channel-id": .string(CXoneGatewaySettings().channelId),
                "socket-url": .string(endpoints.socket),
                "chat-url": .string(endpoints.chat),
                "first-name": .string("Grace"),
            ])
            let channel = try CXoneChatPlugin.factory.makeChannel(settings: settings, host: host)
            return Rig(simulator: simulator, host: host, channel: channel, running: Task { await channel.run() })
        }

        func stop() async {
            await self.channel.stopListening()
            self.running.cancel()
            await self.simulator.stop()
        }

        /// Waits up to 60 s (of the wall clock) for `condition` on the host's events.
        func until(_ what: String, _ condition: ([ChannelEvent]) -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(60)
            while !condition(self.host.events) {
                guard ContinuousClock.now < deadline else { throw ChannelError(.transient, "\(what): not within 60 s; events: \(self.host.events)") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        /// The next message event whose text is `text`, waiting up to 60 s.
        func message(_ text: String) async throws -> ChatMessage {
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                for case .messageReceived(let message) in self.host.events where message.text == text { return message }
                try await Task.sleep(for: .milliseconds(20))
            }
            throw ChannelError(.transient, "no message \"\(text)\"; events: \(self.host.events)")
        }
    }

    @Test func connectsAndHearsTheAgent() async throws {
        let rig = try await Rig.start()
        try await rig.channel.listen()
        try await rig.simulator.cxone.waitForConnections(1, timeout: .seconds(60))
        let customer = try #require(rig.simulator.cxone.customerIDs.first)
        try rig.simulator.cxone.agentOpensThread(customerID: customer, text: "Hello from Ada")
        let message = try await rig.message("Hello from Ada")
        #expect(message.direction == .fromAgent)
        await rig.stop()
    }

    @Test func sendsAMessage() async throws {
        let rig = try await Rig.start()
        try await rig.channel.listen()
        _ = try await rig.channel.perform(.sendMessage(threadID: nil, text: "Where is my parcel?"))
        let deadline = ContinuousClock.now + .seconds(60)
        while !rig.simulator.cxone.threads.contains(where: { $0.messages.contains { $0.text == "Where is my parcel?" } }) {
            guard ContinuousClock.now < deadline else {
                Issue.record("the gateway never got the message: \(rig.simulator.cxone.receivedEventTypes)")
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        await rig.stop()
    }

    /// The gateway drops the socket: the driver hears one close, waits its backoff on the host's clock,
    /// connects again and still hears the agent.
    @Test func reconnectsAfterTheGatewayDrops() async throws {
        let rig = try await Rig.start()
        try await rig.channel.listen()
        try await rig.simulator.cxone.waitForConnections(1, timeout: .seconds(60))
        let customer = try #require(rig.simulator.cxone.customerIDs.first)
        rig.simulator.cxone.dropConnections()
        try await rig.until("the driver hears the loss") { $0.count(.connecting) == 2 }
        // The backoff runs on the manual clock: move it on until the chat is ready again.
        try await rig.until("the chat is ready again") { events in
            rig.host.manualClock.advance(by: .milliseconds(500))
            return events.count(.ready) == 2
        }
        // One close, one reconnection.
        #expect(rig.host.events.count(.connecting) == 2)
        #expect(rig.simulator.cxone.connectionCount == 1)
        try rig.simulator.cxone.agentOpensThread(customerID: customer, text: "Still there?")
        _ = try await rig.message("Still there?")
        await rig.stop()
    }

    /// The gateway goes down for good: the driver tries its 20 reconnections on the host's clock, then
    /// reports that the channel stopped listening, with the machine's last error, once.
    @Test func aChatThatCannotReconnectStopsListening() async throws {
        let rig = try await Rig.start()
        try await rig.channel.listen()
        try await rig.simulator.cxone.waitForConnections(1, timeout: .seconds(60))
        rig.simulator.cxone.setDown(true)
        let stopped: ([ChannelEvent]) -> [ChannelError] = { events in
            events.compactMap { if case .stoppedListening(let error) = $0 { error } else { nil } }
        }
        // Up to 20 backoffs of at most 30 s each; a second of the manual clock per step.
        let deadline = ContinuousClock.now + .seconds(60)
        while stopped(rig.host.events).isEmpty, ContinuousClock.now < deadline {
            rig.host.manualClock.advance(by: .seconds(1))
            try await Task.sleep(for: .milliseconds(10))
        }
        let errors = stopped(rig.host.events)
        #expect(errors.count == 1, "\(rig.host.events)")
        #expect(errors.first?.code == .transient)
        #expect(errors.first?.message.hasPrefix("cxone-chat: ") == true, "\(errors)")
        #expect(rig.host.logRecords.text.contains("reconnecting (attempt 1)"))
        #expect(rig.host.events.count(.prepared) >= 1, "the machine gave up and fell back to prepared")
        await rig.stop()
    }
}

/// The CXoneChat plugin as the daemon gets it: its shared library, built beside the test bundle, loaded by
/// the daemon's own `PluginLoader`.
enum CXoneChatPlugin {
    static let factory: any ChannelPluginFactory = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        do {
            return try PluginLoader(searchPath: [(exe as NSString).deletingLastPathComponent]).load("cxone-chat").factory
        } catch {
            fatalError("cannot load the cxone-chat plugin: \(error)")
        }
    }()
}

extension [ChannelEvent] {
    /// How often the chat entered `state`.
    func count(_ state: ChatState) -> Int {
        self.filter { if case .chatStateChanged(let entered) = $0 { entered == state } else { false } }.count
    }
}
