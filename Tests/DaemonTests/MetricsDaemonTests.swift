import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// The daemon's figures from the real `attendantd`: through the real `attendantctl metrics`, and through the
/// `[metrics] listen` endpoint scraped by a real Prometheus (Debian's `prometheus`), read back with a query.
///
/// The Loopback channel has no `contact-interval`, so it rings only when asked (its `ring` request, sent with
/// busctl as any D-Bus client would): every contact counted is one the test caused.
@Suite(.timeLimit(.minutes(3))) struct MetricsDaemonTests {
    static func configuration(listen port: UInt16? = nil) -> String {
        (port.map { "[metrics]\nlisten = \"127.0.0.1:\($0)\"\n\n" } ?? "") + """
            [[channel]]
            name = "desk"
            plugin = "loopback"
            [channel.loopback]
            ring-timeout = "1h"
            """
    }

    /// attendantd with `configuration` on `bus`, its channel listening.
    static func daemon(_ configuration: String, scratch: Scratch, bus: PrivateBus) async throws -> DaemonProcess {
        let daemon = try await TokenDaemonTests.daemon(configuration, scratch: scratch, bus: bus)
        let channel = try await TokenDaemonTests.channel("desk", bus: bus) { $0["state"] as? String == "listening" }
        #expect(channel["state"] as? String == "listening", "\(channel)\n\(daemon.stderr)")
        return daemon
    }

    /// One contact on the Loopback channel; its id.
    static func ring(_ bus: PrivateBus) async throws -> String { try await Self.ring(address: bus.address) }

    static func ring(address: String) async throws -> String {
        let (status, stdout, stderr) = try await runTool(
            "busctl",
            [
                "--address=\(address)", "call", "org.attendant.Attendant1", "/org/attendant/Attendant1", "org.attendant.Attendant1",
                "ChannelRequest", "ssa{ss}", "desk", "ring", "0",
            ],
            environment: ProcessInfo.processInfo.environment
        )
        // a{ss} 2 "contact" "loopback-1" "kind" "call"
        guard status == 0, let id = stdout.split(separator: "\"").dropFirst(3).first else {
            throw FixtureError("ring failed (\(status)): \(stdout)\(stderr)")
        }
        return String(id)
    }

    /// The value of `series` (`name{labels}` as the daemon writes it) in `text`.
    static func value(_ series: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.dropFirst(series.count + 1)) }
    }

    /// A channel removed by a reload takes its series with it, as does one that could not start: a scrape
    /// does not go on reporting them as they last were. The channel that stays keeps its counts.
    @Test func aChannelRemovedByAReloadLeavesTheFigures() async throws {
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let two =
            Self.configuration() + "\n\n[[channel]]\nname = \"side\"\nplugin = \"loopback\"\n"
            + "\n[[channel]]\nname = \"broken\"\nplugin = \"/nonexistent/libattendant-broken.so\"\n"
        let daemon = try await Self.daemon(two, scratch: scratch, bus: bus)
        _ = try await Self.ring(bus)
        let side = #"attendant_channel_state{channel="side",plugin="loopback",state="listening"}"#
        var text = ""
        try await eventually("attendantctl metrics to show both channels (last: \(text))") {
            text = try await TokenDaemonTests.ctl(["metrics"], bus: bus).1
            return Self.value(side, in: text) == 1
                && text.contains(#"channel="broken",plugin="/nonexistent/libattendant-broken.so",state="failed"} 1"#)
        }
        _ = try scratch.write("attendant.toml", Self.configuration())
        let (reloaded, output) = try await TokenDaemonTests.ctl(["reload"], bus: bus)
        #expect(reloaded == 0, "\(output)")
        try await eventually("the side channel's series to go (last: \(text))") {
            text = try await TokenDaemonTests.ctl(["metrics"], bus: bus).1
            return !text.contains(#"channel="side""#) && !text.contains(#"channel="broken""#)
        }
        #expect(Self.value(#"attendant_contacts_total{channel="desk",kind="call",outcome="rang"}"#, in: text) == 1, "\(text)")
        #expect(Self.value(#"attendant_channel_state{channel="desk",plugin="loopback",state="listening"}"#, in: text) == 1, "\(text)")
        withExtendedLifetime(daemon) {}
    }

    @Test func attendantctlMetricsCountsContactsByKindAndOutcome() async throws {
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.daemon(Self.configuration(), scratch: scratch, bus: bus)
        let first = try await Self.ring(bus)
        _ = try await Self.ring(bus)
        let (declined, output) = try await TokenDaemonTests.ctl(["decline", first, "--channel", "desk"], bus: bus)
        #expect(declined == 0, "\(output)")

        let rang = #"attendant_contacts_total{channel="desk",kind="call",outcome="rang"}"#
        let declinedSeries = #"attendant_contacts_total{channel="desk",kind="call",outcome="declined"}"#
        var text = ""
        try await eventually("attendantctl metrics to count two rang and one declined (last: \(text))") {
            let (status, output) = try await TokenDaemonTests.ctl(["metrics"], bus: bus)
            text = output
            return status == 0 && Self.value(rang, in: text) == 2 && Self.value(declinedSeries, in: text) == 1
        }
        #expect(text.contains("# TYPE attendant_contacts_total counter"), "\(text)")
        #expect(Self.value(#"attendant_channel_state{channel="desk",plugin="loopback",state="listening"}"#, in: text) == 1, "\(text)")
        #expect(Self.value(#"attendant_listen_attempts_total{channel="desk"}"#, in: text) == 1, "\(text)")
        #expect(Self.value(#"attendant_channel_listening_seconds_total{channel="desk"}"#, in: text) != nil, "\(text)")
        #expect(!text.contains("outcome=\"missed\""), "nothing was missed: \(text)")

        let (status, json) = try await TokenDaemonTests.ctl(["metrics", "--json"], bus: bus)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(status == 0 && (object?["metrics"] as? String ?? "").contains(rang + " 2"), "\(json)")
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }

    /// A real Prometheus scrapes the endpoint every second; a query reads the contact counter back as the
    /// number of contacts the test caused. The daemon then stops cleanly with Prometheus's connection open.
    @Test func prometheusScrapesTheEndpointAndReadsTheContactCounterBack() async throws {
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let port = try LoopbackPort.pickTCP()
        let prometheusPort = try LoopbackPort.pickTCP(avoiding: [port])
        let daemon = try await Self.daemon(Self.configuration(listen: port), scratch: scratch, bus: bus)
        #expect(await daemon.waitForLog("serving metrics at http://127.0.0.1:\(port)/metrics"), "\(daemon.stderr)")
        let contacts = 3
        for _ in 0..<contacts { _ = try await Self.ring(bus) }

        let configuration = try scratch.write(
            "prometheus.yml",
            """
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
            scrape_configs:
              - job_name: attendant
                static_configs:
                  - targets: ["127.0.0.1:\(port)"]
            """
        )
        let prometheus = try FixtureProcess(
            "prometheus",
            "prometheus",
            [
                "--config.file=\(configuration)", "--storage.tsdb.path=\(scratch.path)/prometheus-data",
                "--web.listen-address=127.0.0.1:\(prometheusPort)", "--log.level=warn",
            ],
            environment: ProcessInfo.processInfo.environment
        )
        defer { prometheus.terminate() }

        let query = #"attendant_contacts_total{channel="desk"}"#
        var answer = ""
        try await eventually("Prometheus to read \(contacts) contacts back (last answer: \(answer); prometheus: \(prometheus.report))") {
            guard prometheus.isRunning else { throw FixtureError("prometheus exited: \(prometheus.report)") }
            let (status, stdout, _) = try await runTool(
                "curl",
                ["-sS", "--max-time", "10", "-G", "http://127.0.0.1:\(prometheusPort)/api/v1/query", "--data-urlencode", "query=\(query)"],
                environment: ProcessInfo.processInfo.environment
            )
            answer = stdout
            guard status == 0, let series = Self.series(stdout), series.count == 1 else { return false }
            return series[0].value == String(contacts)
        }
        let series = try #require(Self.series(answer)?.first, "\(answer)")
        #expect(series.labels["job"] == "attendant" && series.labels["instance"] == "127.0.0.1:\(port)", "\(answer)")
        #expect(series.labels["kind"] == "call" && series.labels["outcome"] == "rang", "\(answer)")

        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
        await prometheus.terminate()
    }

    /// Each contact shown on the desktop (dunst, as the notification server) adds one latency, from its
    /// arrival at the daemon to the Notify reply.
    @Test func theAlertLatencyCountsEachContactShownOnTheDesktop() async throws {
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let file = try scratch.write("attendant.toml", Self.configuration())
        let daemon = try DaemonProcess(["--config", file], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("notification server present"), "no notification server seen:\n\(daemon.stderr)")
        try #require(await daemon.waitForLog("[desk] listening"), "\(daemon.stderr)")
        let address = desktop.sessionBusAddress
        for _ in 0..<2 { _ = try await Self.ring(address: address) }
        try await eventually("dunst to show both calls") { desktop.printed.filter { $0.summary.hasPrefix("Incoming call") }.count == 2 }

        let count = #"attendant_alert_latency_seconds_count{channel="desk"}"#
        var text = ""
        try await eventually("attendantctl metrics to count two alert latencies (last: \(text))") {
            let (status, output, _) = try await runTool(TokenDaemonTests.attendantctl, ["metrics"], environment: desktop.toolEnvironment)
            text = output
            return status == 0 && Self.value(count, in: text) == 2
        }
        #expect(text.contains("# TYPE attendant_alert_latency_seconds histogram"), "\(text)")
        #expect(Self.value(#"attendant_alert_latency_seconds_bucket{channel="desk",le="+Inf"}"#, in: text) == 2, "\(text)")
        let sum = try #require(Self.value(#"attendant_alert_latency_seconds_sum{channel="desk"}"#, in: text), "\(text)")
        #expect(sum > 0, "\(text)")
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }

    /// A port that is taken stops the start, naming the address, the key and the reason.
    @Test func aTakenPortIsAStartUpErrorNamingTheAddress() async throws {
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let holder = try Self.listen()
        defer { close(holder.fd) }
        let file = try scratch.write("attendant.toml", Self.configuration(listen: holder.port))
        let daemon = try DaemonProcess(
            ["--config", file],
            scratch: scratch,
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(scratch.path)/no-system-bus"]
        )
        let status = await daemon.waitForExit()
        #expect(status != nil && status != 0, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("cannot serve metrics on 127.0.0.1:\(holder.port) ([metrics] listen): "), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("Address already in use"), "\(daemon.stderr)")
    }

    /// A TCP socket listening on a free loopback port, held by the test.
    static func listen() throws -> (fd: Int32, port: UInt16) {
        for _ in 0..<20 {
            let port = try LoopbackPort.pickTCP()
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            if bound && Glibc.listen(fd, 1) == 0 { return (fd, port) }
            close(fd)
        }
        throw FixtureError("could not hold a listening port on 127.0.0.1")
    }

    /// The series of a Prometheus instant-query answer: labels and value.
    static func series(_ answer: String) -> [(labels: [String: String], value: String)]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any],
            object["status"] as? String == "success",
            let result = (object["data"] as? [String: Any])?["result"] as? [[String: Any]]
        else { return nil }
        return result.map { entry in
            (entry["metric"] as? [String: String] ?? [:], (entry["value"] as? [Any])?.last as? String ?? "")
        }
    }
}
