// The GenesysMessaging plugin's two figures (issue 35), measured in one process against the simulator's web
// messaging service on loopback, on the daemon's network (HostNetwork) and the real clock:
//
//   ATTENDANT_BENCHMARKS=1 swift build -c release --scratch-path .build-release --product attendant-genesys-messaging-bench
//   .build-release/release/attendant-genesys-messaging-bench [history] [messages]     (default 1000 and 1000)
//
// 1. History catch-up after a resume: the channel goes to the background (the socket closes), the agent
//    writes `history` messages, and the figure runs from the foreground call to the last of them handed to
//    the host (a new socket, configureSession, getJwt, the history API's pages, decoding, the ledger of
//    messages shown, one `messageReceived` per message, in order). Five runs; median and min.
// 2. A message on the wire → Notify call: one agent message at a time, from the simulator writing it to the
//    socket to the `Notify` call arriving at a notification server on a private bus, through the daemon's
//    own DesktopAlertCenter (coalescing off, so every message is shown at once). Median, p90, p99, max
//    after 50 warm-up messages.
import AttendantBenchSupport
import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import ContactCenterSim
import GenesysMessaging
import Synchronization
import Systemd

let arguments = CommandLine.arguments.dropFirst()
let historyMessages = arguments.first.flatMap(Int.init) ?? 1000
let messages = arguments.dropFirst().first.flatMap(Int.init) ?? 1000

/// A host that counts the agent's messages, keeps their order, and can forward each event to an alert
/// center.
final class BenchHost: ChannelHost {
    let channelName = "bench"
    let logger: Logger
    let clock: any Clock<Duration> = ContinuousClock()
    let store: any ChannelStore = InMemoryChannelStore()
    let secrets: any ChannelSecrets = InMemoryChannelSecrets()
    let network: any ChannelNetwork = HostNetwork(logger: Logger(label: "bench.network"))
    let hashing: any ChannelHashing = HostHashing()
    let agentTexts = Mutex<[String]>([])
    let forward = Mutex<(@Sendable (ChannelEvent) -> Void)?>(nil)

    init() {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        self.logger = logger
    }

    var agentMessages: Int { self.agentTexts.withLock { $0.count } }

    func now() -> UnixTime { UnixTime(secondsSince1970: SimulatorConfiguration.wallClock()) }
    func currentToken() async -> ChannelToken? { nil }
    func renewToken() async throws -> ChannelToken { throw ChannelError(.authentication, "a guest session needs no token") }

    func emit(_ event: ChannelEvent) {
        if case .messageReceived(let message) = event, message.direction == .fromAgent {
            self.agentTexts.withLock { $0.append(message.text) }
        }
        self.forward.withLock { $0 }?(event)
    }

    func waitForAgentMessages(_ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while self.agentMessages < count {
            guard ContinuousClock.now < deadline else { fatalError("only \(self.agentMessages) of \(count) agent messages arrived") }
            try await Task.sleep(for: .microseconds(200))
        }
    }
}

/// A listening channel in a configured session.
func startChannel(_ simulator: ContactCenterSimulator, host: BenchHost) async throws -> any Channel {
    let endpoints = simulator.genesysEndpoints
    let settings = ChannelSettings(["endpoint": .string(endpoints.endpoint), "deployment-id": .string(endpoints.deploymentId)])
    let channel = try GenesysMessagingPluginFactory().makeChannel(settings: settings, host: host)
    Task { await channel.run() }
    try await channel.listen()
    return channel
}

func milliseconds(_ d: Duration) -> String {
    let value = Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    return "\(Double(Int((value * 10).rounded())) / 10) ms"
}

let simulator = try await ContactCenterSimulator.start(SimulatorConfiguration())

// 1. History catch-up after a resume.
do {
    let host = BenchHost()
    let channel = try await startChannel(simulator, host: host)
    // One message first: the conversation exists and the channel has shown something.
    _ = try simulator.genesys.agentSays(text: "Hello before the runs")
    try await host.waitForAgentMessages(1)
    var runs: [Duration] = []
    for run in 0..<5 {
        await channel.applicationStateDidChange(.background)
        for number in 0..<historyMessages {
            _ = try simulator.genesys.agentSays(text: "Run \(run), message \(number), about as long as a chat line is")
        }
        let target = host.agentMessages + historyMessages
        let start = monotonicNow()
        await channel.applicationStateDidChange(.foreground)
        try await host.waitForAgentMessages(target)
        runs.append(monotonicNow() - start)
        let shown = host.agentTexts.withLock { Array($0.suffix(historyMessages)) }
        let expected = (0..<historyMessages).map { "Run \(run), message \($0), about as long as a chat line is" }
        guard shown == expected else { fatalError("run \(run): the caught-up messages are not each once and in order") }
    }
    let sorted = runs.sorted()
    print(
        "history catch-up of \(historyMessages) messages after a resume (5 runs, each once and in order): median \(milliseconds(sorted[2]))   min \(milliseconds(sorted[0]))"
    )
    await channel.stopListening()
}

// 2. A message on the wire → Notify.
do {
    let server = try await NotificationServer.start()
    defer { server.stop() }
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
    let channel = try await startChannel(simulator, host: host)
    var latencies: [Duration] = []
    for number in 0..<(messages + 50) {
        let text = "Wire to notify \(number)."
        let sent = monotonicNow()
        _ = try simulator.genesys.agentSays(text: text)
        var arrived: Duration?
        while arrived == nil {
            arrived = server.arrival(bodyContaining: text)
            if arrived == nil { try await Task.sleep(for: .microseconds(50)) }
        }
        if number >= 50 { latencies.append(arrived! - sent) }
    }
    print("agent message on the wire → Notify at the server, \(latencies.count) messages (after 50 warm-up):")
    print("  " + Percentiles(latencies).line)
    await channel.stopListening()
    running.cancel()
}
await simulator.stop()
