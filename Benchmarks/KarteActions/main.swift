// The KarteActions plugin's figures (issue 13), measured in one process against the simulator's KARTE
// endpoint on loopback, on the daemon's network (HostNetwork) and the real clock:
//
//   swift run -c release attendant-karte-bench [views] [events]     (default 500 and 1000)
//
// 1. Track → Notify: a `view` is tracked (the request `actions-view`, as attendantctl sends it); KARTE's
//    answer carries a popup, which goes through the daemon's own DesktopAlertCenter to a notification server
//    on a private bus. Two figures per view: from the tracking call to the Notify call (this includes the
//    SDKs' 100 ms batching window), and from the track request leaving (HostNetwork.send called) to the
//    Notify call (HTTP on loopback, gzip both ways, decoding, routing, the alert). Median, p90, p99, max
//    after 20 warm-up views.
// 2. 1000 events batched: `events` custom events tracked back to back; the figure runs from the first track
//    call to the last event recorded by the simulator, with the requests it took (10 events each) and the
//    process's CPU time (user + system) over the run. Five runs; median.
import AttendantBenchSupport
import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import ContactCenterSim
import Glibc
import KarteActions
import Synchronization
import Systemd

let arguments = CommandLine.arguments.dropFirst()
let views = arguments.first.flatMap(Int.init) ?? 500
let batchedEvents = arguments.dropFirst().first.flatMap(Int.init) ?? 1000

/// The daemon's network, with the moment each track request leaves recorded.
final class TimedNetwork: ChannelNetwork {
    let network = HostNetwork(logger: Logger(label: "bench.network"))
    let lastSend = Mutex<Duration?>(nil)

    func send(_ request: NetworkRequest) async throws(NetworkError) -> NetworkResponse {
        self.lastSend.withLock { $0 = monotonicNow() }
        return try await self.network.send(request)
    }

    func openWebSocket(
        _ request: WebSocketRequest,
        events: @escaping @Sendable (WebSocketEvent) -> Void
    ) async throws(NetworkError) -> any WebSocketConnection {
        try await self.network.openWebSocket(request, events: events)
    }

    func openDatagramFlow(
        to host: String,
        port: Int,
        options: DatagramOptions,
        receive: @escaping @Sendable (DatagramEvent) -> Void
    ) async throws(NetworkError) -> any DatagramFlow {
        try await self.network.openDatagramFlow(to: host, port: port, options: options, receive: receive)
    }

    func openStreamFlow(
        to host: String,
        port: Int,
        options: StreamOptions,
        receiver: @escaping @Sendable (any StreamConnection) -> any StreamReceiver
    ) async throws(NetworkError) -> any StreamFlow {
        try await self.network.openStreamFlow(to: host, port: port, options: options, receiver: receiver)
    }
}

/// A host with the app key as its token that forwards each event to an alert center.
final class BenchHost: ChannelHost {
    let channelName = "bench"
    let logger: Logger
    let clock: any Clock<Duration> = ContinuousClock()
    let store: any ChannelStore = InMemoryChannelStore()
    let secrets: any ChannelSecrets = InMemoryChannelSecrets()
    let timed = TimedNetwork()
    var network: any ChannelNetwork { self.timed }
    let hashing: any ChannelHashing = HostHashing()
    let appKey: String
    let forward = Mutex<(@Sendable (ChannelEvent) -> Void)?>(nil)

    init(appKey: String) {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        self.logger = logger
        self.appKey = appKey
    }

    func now() -> UnixTime { UnixTime(secondsSince1970: SimulatorConfiguration.wallClock()) }
    func currentToken() async -> ChannelToken? { ChannelToken(value: self.appKey) }
    func renewToken() async throws -> ChannelToken { ChannelToken(value: self.appKey) }
    func emit(_ event: ChannelEvent) { self.forward.withLock { $0 }?(event) }
}

func cpuTime() -> Duration {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let micros = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + Int(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
    return .microseconds(micros)
}

func milliseconds(_ d: Duration) -> String {
    let value = Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    return "\(Double(Int((value * 10).rounded())) / 10) ms"
}

var configuration = SimulatorConfiguration()
configuration.karte.campaigns = [
    {
        var popup = KarteCampaign(id: "bench", kind: .popup, trigger: KarteCampaign.Trigger(eventName: "view"))
        popup.title = "Bench"
        popup.body = "A campaign for the benchmark."
        popup.links = [KarteCampaign.Link(label: "Open", url: "https://example.com/")]
        return popup
    }()
]
let simulator = try await ContactCenterSimulator.start(configuration)
let host = BenchHost(appKey: simulator.karte.appKey)
let channel = try KarteActionsPluginFactory().makeChannel(settings: ChannelSettings(["url": .string(simulator.karte.baseURL)]), host: host)
let running = Task { await channel.run() }
try await channel.listen()

// 1. Track → Notify.
let server = try await NotificationServer.start()
defer { server.stop() }
var logger = Logger(label: "bench")
logger.logLevel = .error
let client = try await BusConnection.open(.custom(server.address))
let center = DesktopAlertCenter(
    connection: client,
    planner: AlertPlanner(configuration: AlertPlanner.Configuration()),
    logger: logger,
    perform: { _ in }
)
let alerts = Task { await center.run() }
while !center.notificationServerPresent { try await Task.sleep(for: .milliseconds(5)) }
host.forward.withLock { $0 = { event in Task { await center.present(event, channel: "bench") } } }

var fromTrack: [Duration] = []
var fromWire: [Duration] = []
for number in 0..<(views + 20) {
    let before = server.latest.count
    let tracked = monotonicNow()
    _ = try await channel.perform(.custom(command: "actions-view", arguments: ["name": "screen-\(number)"]))
    var arrived: Duration?
    while arrived == nil {
        let latest = server.latest
        if latest.count > before { arrived = latest.at }
        if arrived == nil { try await Task.sleep(for: .microseconds(50)) }
    }
    let sent = host.timed.lastSend.withLock { $0 }!
    if number >= 20 {
        fromTrack.append(arrived! - tracked)
        fromWire.append(arrived! - sent)
    }
    // Let message_open go out before the next view, so requests do not pile up.
    try await Task.sleep(for: .milliseconds(130))
}
print("view tracked → Notify at the server, \(fromTrack.count) views (after 20 warm-up; includes the 100 ms batching window):")
print("  " + Percentiles(fromTrack).line)
print("track request sent → Notify at the server:")
print("  " + Percentiles(fromWire).line)
host.forward.withLock { $0 = nil }
alerts.cancel()

// 2. 1000 events batched.
var runs: [(Duration, Duration, Int)] = []
for run in 0..<5 {
    try await Task.sleep(for: .milliseconds(300))
    simulator.karte.clearEvents()
    simulator.karte.clearRequests()
    let cpuBefore = cpuTime()
    let start = monotonicNow()
    for number in 0..<batchedEvents {
        _ = try await channel.perform(
            .custom(command: "actions-track", arguments: ["event": "bench_event", "values": #"{"run": \#(run), "n": \#(number)}"#])
        )
    }
    while simulator.karte.events.filter({ $0.eventName == "bench_event" }).count < batchedEvents {
        try await Task.sleep(for: .milliseconds(1))
    }
    let elapsed = monotonicNow() - start
    runs.append((elapsed, cpuTime() - cpuBefore, simulator.karte.requests.count))
}
let byTime = runs.sorted { $0.0 < $1.0 }
let median = byTime[2]
print(
    "\(batchedEvents) events tracked back to back → all recorded by the server (5 runs): median \(milliseconds(median.0)), min \(milliseconds(byTime[0].0)); \(median.2) requests; CPU (user+system, bench process incl. the simulator) \(milliseconds(median.1))"
)
await channel.stopListening()
running.cancel()
await simulator.stop()
