import AttendantCore
import AttendantPluginAPI
import AttendantPluginKit
import AttendantPluginTestKit
import DaemonTestSupport
import GMSCore
import TestSupport
import Testing

/// The GMSChat plugin's Bayeux client (GMSCore's ``BayeuxTransport``, the component ``GMSChatSession``
/// holds) against Faye, a real Bayeux server nobody here wrote, over both transports, on the kit's
/// ``SessionDriver`` with the daemon's own network (HostNetwork) and the wall clock.
@Suite(.serialized) struct FayeConformanceTests {
    /// A client for `url` whose events are recorded; the client's driver runs as long as the rig lives.
    final class Rig: Sendable {
        let client: BayeuxDriver
        let events: Recorder<BayeuxTransport.Event>
        let running: Task<Void, Never>

        init(url: String, transport: BayeuxConnectionType, timeout: Duration = .seconds(60)) {
            var configuration = BayeuxTransport.Configuration(url: url)
            configuration.machine.connectionType = transport
            // How long a reply may take: a busy machine (two CPU hogs, the suite, Faye's Ruby) answered a
            // long-polling publish after more than 10 s once.
            configuration.machine.networkDelay = .seconds(30)
            let events = Recorder<BayeuxTransport.Event>()
            let client = BayeuxDriver(configuration: configuration)
            self.client = client
            self.events = events
            self.running = Task { await client.run { events.add($0) } }
        }

        deinit {
            self.running.cancel()
        }

        /// Waits up to 30 s for an event that `match` accepts, skipping the others.
        @discardableResult
        func wait<T>(for what: String, _ match: (BayeuxTransport.Event) -> T?) async throws -> T {
            let deadline = ContinuousClock.now + .seconds(60)
            while true {
                let event: BayeuxTransport.Event
                do {
                    let left = (deadline - ContinuousClock.now) / .seconds(1)
                    event = try await self.events.next(within: max(0, left))
                } catch {
                    throw FixtureError("no \(what) within 30 s; events: \(self.events.all)")
                }
                if let value = match(event) { return value }
            }
        }

        func handshake() async throws -> String {
            try await self.wait(for: "handshake") { if case .handshook(let id) = $0 { id } else { nil } }
        }

        func delivered(on channel: String) async throws -> BayeuxMessage {
            try await self.wait(for: "event on \(channel)") {
                if case .delivered(let message) = $0, message.channel == channel { message } else { nil }
            }
        }
    }

    @Test(arguments: [BayeuxConnectionType.longPolling, .webSocket])
    func handshakesSubscribesPublishesAndReceives(transport: BayeuxConnectionType) async throws {
        let faye = try await Faye.start()
        defer { faye.stop() }
        let rig = Rig(url: faye.url, transport: transport)
        rig.client.subscribe("/chat/demo")
        rig.client.start()
        let clientID = try await rig.handshake()
        #expect(!clientID.isEmpty)
        try await rig.wait(for: "connected") { if case .connected = $0 { true } else { nil } }
        // Faye acknowledges a subscription before it delivers: publish until our own event comes back.
        var ack: BayeuxMessage?
        for attempt in 0..<20 where ack == nil {
            let reply = try await rig.client.publish("/chat/demo", data: .object(["text": .string("hi \(attempt)")]))
            #expect(reply.successful == true)
            if (try? await rig.events.next(within: 1)).map({ if case .delivered(let m) = $0 { m.channel == "/chat/demo" } else { false } }) == true {
                ack = reply
            }
        }
        #expect(ack != nil, "no event came back on /chat/demo; events: \(rig.events.all)")
        #expect(rig.client.status.machine.connectionType == transport)
        // Unsubscribed, its own publishes no longer come back.
        rig.client.unsubscribe("/chat/demo")
        try await Task.sleep(for: .seconds(1))  // the unsubscription is its own request: let Faye take it first
        let before = rig.events.all.count
        _ = try await rig.client.publish("/chat/demo", data: .object(["text": .string("after")]))
        try await Task.sleep(for: .milliseconds(500))
        #expect(!rig.events.all.dropFirst(before).contains { if case .delivered(let m) = $0 { m.channel == "/chat/demo" } else { false } })
        await rig.client.disconnect(ext: ["transcriptPosition": .string("4")])
        try await rig.wait(for: "stopped") { if case .stopped(let failure) = $0 { failure == nil ? true : nil } else { nil } }
    }

    /// Faye forgets every client when it restarts: the next connect is refused with advice `handshake`
    /// (Faye's text is `401:<id>:Unknown client`), and the client handshakes again and resubscribes.
    @Test(arguments: [BayeuxConnectionType.longPolling, .webSocket])
    func handshakesAgainWhenTheServerForgotTheClient(transport: BayeuxConnectionType) async throws {
        let first = try await Faye.start(timeout: 2)
        let rig = Rig(url: first.url, transport: transport)
        rig.client.subscribe("/chat/demo")
        rig.client.start()
        let before = try await rig.handshake()
        try await rig.wait(for: "connected") { if case .connected = $0 { true } else { nil } }
        await first.stop()
        let second = try await Faye.start(timeout: 2, port: first.port)
        defer { second.stop() }
        let after = try await rig.wait(for: "a second handshake") { if case .handshook(let id) = $0 { id } else { nil } }
        #expect(after != before)
        // The subscription was made again: an event published now reaches the client.
        var received = false
        for attempt in 0..<20 where !received {
            _ = try await rig.client.publish("/chat/demo", data: .object(["n": .number(Double(attempt))]))
            received =
                (try? await rig.events.next(within: 1)).map { if case .delivered(let m) = $0 { m.channel == "/chat/demo" } else { false } } ?? false
        }
        #expect(received, "no event after the new handshake; events: \(rig.events.all)")
        await rig.client.disconnect()
    }

    /// Faye holds each connect for its advised timeout (2 s here) and the client keeps exactly one going:
    /// over 7 s it answers a few, never more than one at a time, and the session stays connected.
    @Test func followsTheServersAdvisedTimeout() async throws {
        let faye = try await Faye.start(timeout: 2)
        defer { faye.stop() }
        let rig = Rig(url: faye.url, transport: .longPolling)
        rig.client.start()
        _ = try await rig.handshake()
        try await Task.sleep(for: .seconds(7))
        let status = rig.client.status
        #expect(status.machine.advice.timeout == .seconds(2))
        #expect(status.machine.connected)
        // The handshake, then one connect reply every ~2 s: at least 2 batches, and far fewer than a loop would make.
        #expect((2...10).contains(status.batchesReceived), "batches: \(status.batchesReceived)")
        #expect(!rig.events.all.contains { if case .interrupted = $0 { true } else { false } })
        await rig.client.disconnect()
    }

    /// A `/service/*` subscription is refused by Faye (CometD makes it a no-op): the session goes on.
    @Test func aRefusedServiceSubscriptionDoesNotStopTheSession() async throws {
        let faye = try await Faye.start()
        defer { faye.stop() }
        let rig = Rig(url: faye.url, transport: .webSocket)
        rig.client.subscribe("/service/chatV2/customer-support")
        rig.client.start()
        _ = try await rig.handshake()
        try await rig.wait(for: "connected") { if case .connected = $0 { true } else { nil } }
        let reply = try await rig.client.publish("/service/chatV2/customer-support", data: .object(["operation": .string("requestChat")]))
        #expect(reply.successful == true)
        #expect(rig.client.status.machine.connected)
        await rig.client.disconnect()
    }
}
