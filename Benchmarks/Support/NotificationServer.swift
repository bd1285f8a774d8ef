import Glibc
import Synchronization
import Systemd

/// A private `dbus-daemon` and a minimal `org.freedesktop.Notifications` on it that notes when each
/// `Notify` call arrives, for the benchmarks that end at a Notify call.
package final class NotificationServer: Sendable {
    /// The bus's address, for the client side (`BusConnection.open(.custom(address))`).
    package let address: String
    private let busPID: pid_t
    private let server: BusConnection
    private let arrivals = Mutex<[(summary: String, body: String, at: Duration)]>([])

    private init(address: String, busPID: pid_t, server: BusConnection) {
        self.address = address
        self.busPID = busPID
        self.server = server
    }

    /// Starts `dbus-daemon` on a socket in a fresh folder and serves the notifications on it.
    package static func start() async throws -> NotificationServer {
        var template = Array("/tmp/attendant-bench-XXXXXX".utf8CString)
        let folder = String(cString: mkdtemp(&template)!)
        let address = "unix:path=\(folder)/bus"
        var pid: pid_t = 0
        let arguments = ["/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=\(address)"]
        var argv = arguments.map { strdup($0) } + [nil]
        let spawned = posix_spawn(&pid, arguments[0], nil, nil, &argv, environ)
        precondition(spawned == 0, "cannot start dbus-daemon: \(String(cString: strerror(spawned)))")
        for _ in 0..<500 where access(folder + "/bus", F_OK) != 0 { usleep(10_000) }
        let server = try await BusConnection.open(.custom(address))
        let notifications = NotificationServer(address: address, busPID: pid, server: server)
        try await notifications.serve()
        return notifications
    }

    private func serve() async throws {
        _ = try await self.server.requestName("org.freedesktop.Notifications")
        let nextID = Atomic<UInt32>(1)
        try await self.server.export(
            BusObject(
                path: "/org/freedesktop/Notifications",
                interface: "org.freedesktop.Notifications",
                methods: [
                    .init(
                        "Notify",
                        inputs: [
                            .init("app_name", "s"), .init("replaces_id", "u"), .init("app_icon", "s"), .init("summary", "s"),
                            .init("body", "s"), .init("actions", "as"), .init("hints", "a{sv}"), .init("expire_timeout", "i"),
                        ],
                        outputs: [.init("id", "u")]
                    ) { [self] arguments in
                        let arrived = monotonicNow()
                        self.arrivals.withLock { $0.append((arguments[3].string ?? "", arguments[4].string ?? "", arrived)) }
                        return [.uint32(nextID.wrappingAdd(1, ordering: .relaxed).oldValue)]
                    },
                    .init("CloseNotification", inputs: [.init("id", "u")]) { _ in [] },
                    .init("GetCapabilities", outputs: [.init("capabilities", "as")]) { _ in [.strings(["actions", "body", "body-markup"])] },
                    .init(
                        "GetServerInformation",
                        outputs: [.init("name", "s"), .init("vendor", "s"), .init("version", "s"), .init("spec_version", "s")]
                    ) { _ in
                        [.string("bench"), .string("attendant"), .string("1"), .string("1.2")]
                    },
                ],
                signals: [
                    .init("ActionInvoked", [.init("id", "u"), .init("action_key", "s")]),
                    .init("NotificationClosed", [.init("id", "u"), .init("reason", "u")]),
                ]
            )
        )
    }

    /// When the first Notify whose summary is `summary` arrived.
    package func arrival(summary: String) -> Duration? {
        self.arrivals.withLock { $0.first { $0.summary == summary }?.at }
    }

    /// When the first Notify whose body contains `text` arrived.
    package func arrival(bodyContaining text: String) -> Duration? {
        self.arrivals.withLock { $0.first { $0.body.contains(text) }?.at }
    }

    /// How many Notify calls arrived, and when the last one did.
    package var latest: (count: Int, at: Duration?) {
        self.arrivals.withLock { ($0.count, $0.last?.at) }
    }

    package func stop() {
        kill(self.busPID, SIGKILL)
    }
}

/// `CLOCK_MONOTONIC` now.
package func monotonicNow() -> Duration {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return .seconds(ts.tv_sec) + .nanoseconds(ts.tv_nsec)
}

/// Median, p90, p99 and max of a set of durations, in microseconds.
package struct Percentiles {
    let sorted: [Duration]

    package init(_ values: [Duration]) { self.sorted = values.sorted() }

    package func microseconds(_ d: Duration) -> Double { Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12 }

    package func percentile(_ p: Double) -> Double {
        self.microseconds(self.sorted[min(self.sorted.count - 1, max(0, Int((Double(self.sorted.count) * p).rounded(.up)) - 1))])
    }

    package func format(_ value: Double) -> String {
        value >= 10_000 ? "\(Double(Int((value / 100).rounded())) / 10) ms" : "\(Double(Int((value * 10).rounded())) / 10) µs"
    }

    /// `median … p90 … p99 … max …`.
    package var line: String {
        guard !self.sorted.isEmpty else { return "no samples" }
        return
            "median \(self.format(self.percentile(0.5)))   p90 \(self.format(self.percentile(0.9)))   p99 \(self.format(self.percentile(0.99)))   max \(self.format(self.microseconds(self.sorted.last!)))"
    }
}
