// The GMSChat plugin's two figures (issue 12), measured in one process against the simulator's GMS server
// on loopback, on the daemon's network (HostNetwork) and the real clock:
//
//   swift run -c release attendant-gms-chat-bench [events] [messages]     (default 10000 and 1000)
//
// 1. Replay to ready: the channel goes to the background (`/meta/disconnect` with its position), the agent
//    writes `events` messages, and the figure runs from the foreground call to the last of them handed to
//    the host (a new handshake, connect, `requestNotifications`, GMS's answer with every row, decoding, the
//    ledger, one `messageReceived` per row). Five runs per transport; median and min.
// 2. Event on the wire → Notify call: one agent message at a time, from the simulator writing it (to the
//    held long-poll or the socket) to the `Notify` call arriving at a notification server on a private
//    bus, through the daemon's own DesktopAlertCenter (coalescing off, so every message is shown at once).
//    Median, p90, p99, max after 50 warm-up messages.
// 3. Recovery inside GMS's 10-second window: see below.
import AttendantBenchSupport
import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import ContactCenterSim
import GMSChat
import Synchronization
import Systemd

let arguments = CommandLine.arguments.dropFirst()
let replayEvents = arguments.first.flatMap(Int.init) ?? 10_000
let messages = arguments.dropFirst().first.flatMap(Int.init) ?? 1000

/// A host that counts the agent's messages and can forward each event to an alert center.
final class BenchHost: ChannelHost {
    let channelName = "bench"
    let logger: Logger
    let clock: any Clock<Duration> = ContinuousClock()
    let store: any ChannelStore = InMemoryChannelStore()
    let secrets: any ChannelSecrets = InMemoryChannelSecrets()
    let network: any ChannelNetwork = HostNetwork(logger: Logger(label: "bench.network"))
    let hashing: any ChannelHashing = HostHashing()
    let agentMessages = Atomic<Int>(0)
    let forward = Mutex<(@Sendable (ChannelEvent) -> Void)?>(nil)

    init() {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        self.logger = logger
    }

    func now() -> UnixTime { UnixTime(secondsSince1970: SimulatorConfiguration.wallClock()) }
    func currentToken() async -> ChannelToken? { nil }
    func renewToken() async throws -> ChannelToken { throw ChannelError(.authentication, "GMS needs no token") }

    func emit(_ event: ChannelEvent) {
        if case .messageReceived(let message) = event, message.direction == .fromAgent {
            self.agentMessages.add(1, ordering: .relaxed)
        }
        self.forward.withLock { $0 }?(event)
    }

    func waitForAgentMessages(_ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while self.agentMessages.load(ordering: .relaxed) < count {
            guard ContinuousClock.now < deadline else {
                fatalError("only \(self.agentMessages.load(ordering: .relaxed)) of \(count) agent messages arrived")
            }
            try await Task.sleep(for: .microseconds(200))
        }
    }
}

/// A started chat over `transport`.
func startChat(_ simulator: ContactCenterSimulator, transport: String, host: BenchHost) async throws -> any Channel {
    let settings = ChannelSettings([
        "url": .string(simulator.gms.baseURL), "service": .string(simulator.gms.serviceName),
        "transport": .string(transport), "nickname": .string("Bench"),
    ])
    let channel = try GMSChatPluginFactory().makeChannel(settings: settings, host: host)
    Task { await channel.run() }
    try await channel.listen()
    _ = try await channel.perform(.connect)
    return channel
}

/// Waits until the channel's CometD session has a connect answered again.
func waitUntilConnected(_ channel: any Channel) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while true {
        if case .fields(let fields) = try await channel.perform(.custom(command: "chat-status", arguments: [:])), fields["connected"] == "yes" {
            return
        }
        guard ContinuousClock.now < deadline else { fatalError("the channel did not connect again within 30 s") }
        try await Task.sleep(for: .microseconds(200))
    }
}

func milliseconds(_ d: Duration) -> String {
    let value = Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    return "\(Double(Int((value * 10).rounded())) / 10) ms"
}

var configuration = SimulatorConfiguration()
configuration.gms.greeting = nil
configuration.gms.greetingDelay = .zero
let simulator = try await ContactCenterSimulator.start(configuration)

// 1. Replay to ready.
for transport in ["websocket", "long-polling"] {
    let host = BenchHost()
    let channel = try await startChat(simulator, transport: transport, host: host)
    let chatID = try await simulator.gms.waitForChat(timeout: .seconds(30)).id
    var runs: [Duration] = []
    for _ in 0..<5 {
        await channel.applicationStateDidChange(.background)
        for number in 0..<replayEvents { try simulator.gms.agentSays("Replayed message \(number), about as long as a chat line is", chatID: chatID) }
        let target = host.agentMessages.load(ordering: .relaxed) + replayEvents
        let start = monotonicNow()
        await channel.applicationStateDidChange(.foreground)
        try await host.waitForAgentMessages(target)
        runs.append(monotonicNow() - start)
    }
    let sorted = runs.sorted()
    print(
        "replay of \(replayEvents) transcript events to ready over \(transport) (5 runs): median \(milliseconds(sorted[2]))   min \(milliseconds(sorted[0]))"
    )
    await channel.stopListening()
    try simulator.gms.endChat(chatID: chatID)
}

// 3. Recovery: the server cuts every held connection (drop) or forgets every client (restart, GMS then
//    answers 402 Unknown client); the agent writes at once; the figure runs from the fault to that message
//    handed to the host (a new connect, or a new handshake and requestNotifications). Each fault comes once
//    the session is connected again after the last.
for transport in ["websocket", "long-polling"] {
    let host = BenchHost()
    let channel = try await startChat(simulator, transport: transport, host: host)
    let chatID = try await simulator.gms.waitForChat(timeout: .seconds(30)).id
    for fault in ["drop", "restart"] {
        var runs: [Duration] = []
        for number in 0..<20 {
            try await Task.sleep(for: .milliseconds(100))
            let target = host.agentMessages.load(ordering: .relaxed) + 1
            let start = monotonicNow()
            if fault == "drop" { simulator.gms.dropConnections() } else { simulator.gms.restart() }
            try simulator.gms.agentSays("After \(fault) \(number)", chatID: chatID)
            try await host.waitForAgentMessages(target)
            runs.append(monotonicNow() - start)
            // The message may come in the answer to the request for the chat's events while the new
            // connect is still held by the server. A fault then would be a second failure in a row, which
            // the client meets with a jittered backoff (as CometD clients do), not a recovery: one more
            // message, untimed, answers the held connect first.
            try simulator.gms.agentSays("Settled after \(fault) \(number)", chatID: chatID)
            try await host.waitForAgentMessages(target + 1)
            try await waitUntilConnected(channel)
        }
        print("\(fault) → the next agent message delivered over \(transport) (20 runs): " + Percentiles(runs).line)
    }
    await channel.stopListening()
    try simulator.gms.endChat(chatID: chatID)
}

// 2. Event on the wire → Notify.
let server = try await NotificationServer.start()
defer { server.stop() }
for transport in ["websocket", "long-polling"] {
    var logger = Logger(label: "bench")
    logger.logLevel = .error
    let client = try await BusConnection.open(.custom(server.address))
    var alerts = AlertPlanner.Configuration()
    alerts.coalesce = .zero
    let center = DesktopAlertCenter(connection: client, planner: AlertPlanner(configuration: alerts), logger: logger, perform: { _ in })
    let running = Task { await center.run() }
    while !center.notificationServerPresent { try await Task.sleep(for: .milliseconds(5)) }
    let host = BenchHost()
    host.forward.withLock { $0 = { event in Task { await center.present(event, channel: "bench") } } }
    let channel = try await startChat(simulator, transport: transport, host: host)
    let chatID = try await simulator.gms.waitForChat(timeout: .seconds(30)).id
    var latencies: [Duration] = []
    for number in 0..<(messages + 50) {
        let text = "Wire to notify \(transport) \(number)."
        let sent = monotonicNow()
        try simulator.gms.agentSays(text, chatID: chatID)
        var arrived: Duration?
        while arrived == nil {
            arrived = server.arrival(bodyContaining: text)
            if arrived == nil { try await Task.sleep(for: .microseconds(50)) }
        }
        if number >= 50 { latencies.append(arrived! - sent) }
    }
    print("agent message on the wire → Notify at the server over \(transport), \(latencies.count) messages (after 50 warm-up):")
    print("  " + Percentiles(latencies).line)
    await channel.stopListening()
    try simulator.gms.endChat(chatID: chatID)
    running.cancel()
}
await simulator.stop()
