// Channel event → Notify call: how long the daemon's alert path takes, measured in one process.
//
//   swift run -c release attendant-notify-latency [contacts]     (default 1000)
//
// It starts a private dbus-daemon, serves a minimal org.freedesktop.Notifications on it (it notes the
// time each Notify arrives and answers with an id), and feeds DesktopAlertCenter — the daemon's own —
// one incoming call at a time, as the event router does. The figure per contact is from handing the
// event to the alert center to the Notify call arriving at the server, so it includes the bus trip.
import AttendantBenchSupport
import AttendantCore
import AttendantPluginAPI
import Systemd

let contacts = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1000

let server = try await NotificationServer.start()
defer { server.stop() }

var logger = Logger(label: "bench")
logger.logLevel = .error
let client = try await BusConnection.open(.custom(server.address))
let center = DesktopAlertCenter(connection: client, planner: AlertPlanner(), logger: logger, perform: { _ in })
let running = Task { await center.run() }
while !center.notificationServerPresent { try await Task.sleep(for: .milliseconds(5)) }

var latencies: [Duration] = []
latencies.reserveCapacity(contacts)
for number in 0..<(contacts + 50) {
    let caller = "Caller \(number)"
    let contact = Contact(
        id: "bench-\(number)",
        kind: .call,
        from: Party(displayName: caller, address: "sip:\(number)@example.org"),
        receivedAt: UnixTime(secondsSince1970: 0),
        actions: [.accept, .decline]
    )
    let sent = monotonicNow()
    await center.present(.incomingContact(contact), channel: "bench")
    await center.flush()
    let summary = "Incoming call from \(caller)"
    guard let arrived = server.arrival(summary: summary) else { fatalError("no Notify for \(summary)") }
    if number >= 50 { latencies.append(arrived - sent) }  // the first 50 warm up
    await center.present(.contactEnded(contactID: contact.id, outcome: .answered), channel: "bench")
}
await center.flush()
running.cancel()

print("event → Notify arriving at the server, \(latencies.count) contacts (after 50 warm-up):")
print("  " + Percentiles(latencies).line)
