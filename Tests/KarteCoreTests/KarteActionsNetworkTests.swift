import AttendantPluginAPI
import AttendantPluginKit
import AttendantPluginTestKit
import KarteCore
import Synchronization
import TestSupport
import Testing

/// The KarteActions plugin, loaded from its .so as the daemon loads it, on the test kit's network and
/// clock: what it does with its track requests while the network is down and when it comes back.
@Suite(.timeLimit(.minutes(1))) struct KarteActionsNetworkTests {
    static let factory: any ChannelPluginFactory = {
        do {
            return try PluginLibrary.built("karte-actions").factory
        } catch {
            fatalError("cannot load the karte-actions plugin: \(error)")
        }
    }()

    /// A channel named "karte" with its app key in the secrets; `start-view` tracks a view as it listens.
    static func channel(on host: InMemoryChannelHost) async throws -> any Channel {
        try await host.inMemorySecrets.setSecret("0123456789abcdef0123456789abcdef", forKey: KarteAppKey.secretName)
        let settings = ChannelSettings(["url": .string("https://karte.example.com"), "start-view": .string("home")])
        return try Self.factory.makeChannel(settings: settings, host: host)
    }

    /// Moves the clock to the `count` timers `delay` from now, once the channel has set them all.
    static func wait(_ delay: Duration, timers count: Int = 1, on clock: ManualClock) async {
        let deadline = clock.now.advanced(by: delay)
        await clock.waitForSleepers { $0.filter { $0 == deadline }.count >= count }
        clock.advance(by: delay)
    }

    /// Events tracked while the network is down reach KARTE when it comes back. The first sending and its
    /// three retries (0.5 s, 2 s and 8 s later) all find no route: a sending that gets no answer spends no
    /// retry, as Android's SDK sends nothing while offline (Dispatcher.kt), so the request is not given up;
    /// the host's keep-alive on the network's return (NetworkMonitor) sends it at once, marked `_retry`.
    /// (Before, the fourth failure dropped it: every view of an outage longer than 10.5 s was lost, as the
    /// fault campaign's flapping link found.)
    @Test func eventsTrackedWhileTheNetworkIsDownReachKarteWhenItIsBack() async throws {
        let host = InMemoryChannelHost(channelName: "karte")
        let online = Atomic<Bool>(false)
        let answered = Mutex<[NetworkRequest]>([])
        host.inMemoryNetwork.handleRequests { request throws(NetworkError) in
            guard online.load(ordering: .acquiring) else { throw NetworkError(.connection, "connect to karte.example.com: No route to host") }
            answered.withLock { $0.append(request) }
            return NetworkResponse(status: 200, body: Array(#"{"success":1,"status":200,"response":{"messages":[]}}"#.utf8))
        }
        let channel = try await Self.channel(on: host)
        let running = Task { await channel.run() }
        defer { running.cancel() }
        try await channel.listen()

        await Self.wait(.milliseconds(100), on: host.manualClock)  // the batching window
        // Two requests (the start's install and open; the view, under its new pv_id), each retried.
        for delay in [Duration.milliseconds(500), .seconds(2), .seconds(8)] {
            await Self.wait(delay, timers: 2, on: host.manualClock)
        }
        // Each sent four times. The channel has dealt with the fourth failures once it gave the requests up
        // or set their next sending (32 s on).
        let next = host.manualClock.now.advanced(by: .seconds(32))
        try await eventually("the fourth sendings dealt with") {
            host.inMemoryNetwork.requests.count >= 8
                && (host.manualClock.nextDeadline == next || host.logRecords.all.contains { $0.message.contains("dropped") })
        }
        #expect(host.inMemoryNetwork.requests.count == 8 && answered.withLock { $0.isEmpty })

        online.store(true, ordering: .releasing)
        try await channel.keepAlive()
        try await eventually("both requests sent again") { answered.withLock { $0.count } == 2 }
        let events = try answered.withLock { $0 }.flatMap { try JSONValue.parse(TestGzip.decompress($0.body ?? []))["events"]?.arrayValue ?? [] }
        #expect(events.compactMap { $0["event_name"]?.stringValue } == ["native_app_install", "native_app_open", "view"])
        #expect(events.allSatisfy { $0["values"]?["_retry"] == true })
        #expect(!host.logRecords.all.contains { $0.message.contains("dropped") }, "\(host.logRecords.all.map(\.message))")
    }
}
