import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// Idle means idle (DESIGN.md section 8): the real `attendantd` with one Loopback channel, which has no
/// protocol timers, must not wake at all while nothing happens. This is the check that catches a toolchain
/// whose custom-executor SPI changed: the daemon then falls back to Swift's default executors, libdispatch's
/// worker-pool monitor thread appears and ticks once a second, and the counts below are no longer zero.
@Suite(.serialized, .timeLimit(.minutes(2))) struct IdleWakeupTests {
    /// One thread of a process: its name and its context switches so far (voluntary + involuntary).
    struct ThreadSample: Equatable, CustomStringConvertible {
        var name: String
        var switches: Int
        var description: String { "\(self.name)=\(self.switches)" }
    }

    /// Every thread of `pid`, by thread id, from `/proc/PID/task/*/{comm,status}`.
    static func threads(of pid: Int32) throws -> [Int: ThreadSample] {
        let folder = "/proc/\(pid)/task"
        var result: [Int: ThreadSample] = [:]
        for entry in try FileManager.default.contentsOfDirectory(atPath: folder) {
            guard let tid = Int(entry),
                let name = try? String(contentsOfFile: "\(folder)/\(entry)/comm", encoding: .utf8),
                let status = try? String(contentsOfFile: "\(folder)/\(entry)/status", encoding: .utf8)
            else { continue }  // the thread ended between listing and reading
            var switches = 0
            for line in status.split(separator: "\n")
            where line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
                switches += Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
            result[tid] = ThreadSample(name: name.trimmingCharacters(in: .whitespacesAndNewlines), switches: switches)
        }
        return result
    }

    /// A worker of one of libdispatch's non-overcommit pools (Linux names threads after their root queue,
    /// cut to 15 characters: `oot.default-qos`, `user-initiated-qos`…). The first such worker starts the
    /// once-a-second pool monitor; Swift's default global executor is such a pool. The overcommit pool's
    /// thread (`-qos.overcommit`) may exist without ticking: serial queues (the signal source of
    /// swift-service-lifecycle, GRDB's database queues) run there, and it sleeps in epoll while idle.
    static func isDispatchPoolWorker(_ name: String) -> Bool {
        name.contains("qos") && !name.contains("overcommit")
    }

    @Test func anIdleDaemonWithALoopbackChannelDoesNotWake() async throws {
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        // No contact-interval: the Loopback channel raises nothing by itself; the keep-alive cycle is the
        // default 600 s, far beyond this test.
        let file = try scratch.write(
            "attendant.toml",
            """
            [[channel]]
            name = "desk"
            plugin = "loopback"
            """
        )
        let daemon = try DaemonProcess(
            ["--config", file],
            scratch: scratch,
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(scratch.path)/no-system-bus"]
        )
        try #require(await daemon.waitForLog("ready: "), "attendantd did not get ready:\n\(daemon.stderr)")
        #expect(
            !daemon.stderr.contains("runs on Swift's default executors"),
            "the idle executor was not installed (has the custom-executor SPI changed?):\n\(daemon.stderr)"
        )
        try await Self.expectNoWakeUps(daemon)
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }

    /// An idle KarteActions channel, too, wakes nothing: the track API is request and answer, and the
    /// kit's session driver (its worker, the operations beside it) waits without timers once the start's
    /// events are answered. (CXoneChat and GMSChat keep protocol timers: a heartbeat, a held connect.)
    @Test func anIdleDaemonWithAKarteActionsChannelDoesNotWake() async throws {
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        // No campaigns, so no action is shown; the start's events (install, open) are tracked and answered.
        let simulator = try await SimulatorDaemonTests.Simulator(["--karte-campaigns", try scratch.write("campaigns.json", "[]")])
        defer { _ = simulator.stop() }
        let file = try scratch.write("attendant.toml", try KarteActionsDaemonTests.channel("app", on: simulator, scratch: scratch))
        let daemon = try DaemonProcess(
            ["--config", file],
            scratch: scratch,
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(scratch.path)/no-system-bus"]
        )
        try #require(await daemon.waitForLog("ready: "), "attendantd did not get ready:\n\(daemon.stderr)")
        try await eventually("the start's events tracked") { try await simulator.control("GET", "/control/karte/events").contains("native_app_open") }
        // What comes after activity dies out first: the new connection's connect timeout (10 s), which
        // async-http-client cancels once connected, still wakes its event loop at its old deadline.
        try await Self.expectNoWakeUps(daemon, settle: .seconds(12))
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }

    /// Lets start-up finish for `settle` (the channel's first status, the bus name; slower on a loaded
    /// machine), then watches 5 s of nothing: no libdispatch pool, and no thread of the daemon switched once.
    static func expectNoWakeUps(_ daemon: DaemonProcess, settle: Duration = .seconds(5)) async throws {
        let pid = daemon.process.processIdentifier

        try await Task.sleep(for: settle)
        let before = try Self.threads(of: pid)
        try await Task.sleep(for: .seconds(5))
        let after = try Self.threads(of: pid)
        try #require(daemon.process.isRunning, "attendantd exited while idle:\n\(daemon.stderr)")

        let poolWorkers = (Array(before.values) + Array(after.values)).filter { Self.isDispatchPoolWorker($0.name) }
        #expect(
            poolWorkers.isEmpty,
            "libdispatch's worker pool runs in the daemon (its monitor wakes once a second): \(poolWorkers)"
        )
        // Every thread that existed before must show the same count after; a thread that started in
        // between is itself a wake-up.
        var woke: [String] = []
        for (tid, sample) in after.sorted(by: { $0.key < $1.key }) {
            let earlier = before[tid]?.switches ?? 0
            if sample.switches != earlier || before[tid] == nil {
                woke.append("\(sample.name) (tid \(tid)): \(sample.switches - earlier) context switches")
            }
        }
        #expect(woke.isEmpty, "the idle daemon woke in 5 s:\n\(woke.joined(separator: "\n"))\nthreads: \(after)")

    }
}
