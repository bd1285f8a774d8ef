// Channel event → Notify call: how long the daemon's alert path takes, measured in one process.
//
//   swift run -c release attendant-notify-latency [contacts]     (default 1000)
//
// It starts a private dbus-daemon, serves a minimal org.freedesktop.Notifications on it (it notes the
// time each Notify arrives and answers with an id), and feeds DesktopAlertCenter — the daemon's own —
// one incoming call at a time, as the event router does. The figure per contact is from handing the
// event to the alert center to the Notify call arriving at the server, so it includes the bus trip.
import AttendantCore
import AttendantPluginAPI
import Glibc
import Synchronization
import Systemd

let contacts = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1000

/// Starts `dbus-daemon` on a socket in a fresh folder and returns its address and pid.
func startBus() -> (address: String, pid: pid_t) {
    var template = Array("/tmp/attendant-bench-XXXXXX".utf8CString)
    let folder = String(cString: mkdtemp(&template)!)
    let address = "unix:path=\(folder)/bus"
    var pid: pid_t = 0
    let arguments = ["/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=\(address)"]
    var argv = arguments.map { strdup($0) } + [nil]
    let spawned = posix_spawn(&pid, arguments[0], nil, nil, &argv, environ)
    precondition(spawned == 0, "cannot start dbus-daemon: \(String(cString: strerror(spawned)))")
    for _ in 0..<500 where access(folder + "/bus", F_OK) != 0 { usleep(10_000) }
    return (address, pid)
}

func now() -> Duration {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return .seconds(ts.tv_sec) + .nanoseconds(ts.tv_nsec)
}

let (address, busPID) = startBus()
defer { kill(busPID, SIGKILL) }

let arrivals = Mutex<[String: Duration]>([:])
let server = try await BusConnection.open(.custom(address))
_ = try await server.requestName("org.freedesktop.Notifications")
let nextID = Atomic<UInt32>(1)
try await server.export(
    BusObject(
        path: "/org/freedesktop/Notifications",
        interface: "org.freedesktop.Notifications",
        methods: [
            .init("Notify", inputs: [.init("app_name", "s"), .init("replaces_id", "u"), .init("app_icon", "s"), .init("summary", "s"),
                                     .init("body", "s"), .init("actions", "as"), .init("hints", "a{sv}"), .init("expire_timeout", "i")],
                  outputs: [.init("id", "u")]) { arguments in
                let arrived = now()
                let summary = arguments[3].string ?? ""
                arrivals.withLock { $0[summary] = arrived }
                return [.uint32(nextID.wrappingAdd(1, ordering: .relaxed).oldValue)]
            },
            .init("CloseNotification", inputs: [.init("id", "u")]) { _ in [] },
            .init("GetCapabilities", outputs: [.init("capabilities", "as")]) { _ in [.strings(["actions", "body", "body-markup"])] },
            .init("GetServerInformation", outputs: [.init("name", "s"), .init("vendor", "s"), .init("version", "s"), .init("spec_version", "s")]) { _ in
                [.string("bench"), .string("attendant"), .string("1"), .string("1.2")]
            },
        ],
        signals: [.init("ActionInvoked", [.init("id", "u"), .init("action_key", "s")]),
                  .init("NotificationClosed", [.init("id", "u"), .init("reason", "u")])]
    )
)

var logger = Logger(label: "bench")
logger.logLevel = .error
let client = try await BusConnection.open(.custom(address))
let center = DesktopAlertCenter(connection: client, planner: AlertPlanner(), logger: logger, perform: { _ in })
let running = Task { await center.run() }
while !center.notificationServerPresent { try await Task.sleep(for: .milliseconds(5)) }

var latencies: [Duration] = []
latencies.reserveCapacity(contacts)
for number in 0..<(contacts + 50) {
    let caller = "Caller \(number)"
    let contact = Contact(
        id: "bench-\(number)", kind: .call, from: Party(displayName: caller, address: "sip:\(number)@example.org"),
        receivedAt: UnixTime(secondsSince1970: 0), actions: [.accept, .decline]
    )
    let sent = now()
    await center.present(.incomingContact(contact), channel: "bench")
    await center.flush()
    let summary = "Incoming call from \(caller)"
    guard let arrived = arrivals.withLock({ $0[summary] }) else { fatalError("no Notify for \(summary)") }
    if number >= 50 { latencies.append(arrived - sent) }  // the first 50 warm up
    await center.present(.contactEnded(contactID: contact.id, outcome: .answered), channel: "bench")
}
await center.flush()
running.cancel()

let sorted = latencies.sorted()
func microseconds(_ d: Duration) -> Double { Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12 }
func percentile(_ p: Double) -> Double { microseconds(sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]) }
print("event → Notify arriving at the server, \(sorted.count) contacts (after 50 warm-up):")
func format(_ value: Double) -> String { "\(Double(Int((value * 10).rounded())) / 10) µs" }
print("  median \(format(percentile(0.5)))   p90 \(format(percentile(0.9)))   p99 \(format(percentile(0.99)))   max \(format(microseconds(sorted.last!)))")
