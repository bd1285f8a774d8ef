import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation
import Glibc
import ServiceLifecycle
import TestSupport
import Testing

@testable import AttendantCore

/// The daemon's figures as the parts that feed them record them, read back in the Prometheus text format.
@Suite(.timeLimit(.minutes(2))) struct DaemonMetricsTests {
    /// The value of `series` (`name{labels}` exactly as written) in `text`, or nil when it is not there.
    static func value(_ series: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test func theChannelStateIsOneForTheCurrentStateAndZeroForTheOthers() {
        let metrics = DaemonMetrics()
        metrics.channelState("desk", plugin: "loopback", .starting)
        metrics.channelState("desk", plugin: "loopback", .listening)
        let text = metrics.prometheusText()
        #expect(text.contains("# TYPE attendant_channel_state gauge"), "\(text)")
        let state = { (name: String) in Self.value(#"attendant_channel_state{channel="desk",plugin="loopback",state="\#(name)"}"#, in: text) }
        #expect(state("listening") == 1)
        for other in ["starting", "background", "recovering", "failed", "stopping", "stopped"] {
            #expect(state(other) == 0, "\(other): \(text)")
        }
    }

    /// A channel removed from the configuration takes its series with it; the others stay.
    @Test func aForgottenChannelLeavesNoSeries() {
        let metrics = DaemonMetrics()
        for channel in ["gone", "kept"] {
            metrics.channelState(channel, plugin: "loopback", .listening)
            metrics.listenAttempted(channel: channel)
            metrics.listenFailed(channel: channel, errorClass: "transient")
            metrics.reconnected(channel: channel)
            metrics.tokenRenewed(channel: channel, expiresAt: UnixTime(secondsSince1970: 2_000_000_000))
            metrics.tokenRenewalFailed(channel: channel, errorClass: "source")
            metrics.contact(channel: channel, kind: .call, outcome: DaemonMetrics.rang)
            let key = AlertKey.contact(channel: channel, contactID: "c1")
            metrics.alertAwaited(key)
            metrics.alertShown(key)
        }
        let before = metrics.prometheusText()
        #expect(before.contains(#"channel="gone""#), "\(before)")
        metrics.forget(channel: "gone")
        let after = metrics.prometheusText()
        #expect(!after.contains(#"channel="gone""#), "\(after)")
        #expect(Self.value(#"attendant_listen_attempts_total{channel="kept"}"#, in: after) == 1, "\(after)")
        #expect(Self.value(#"attendant_contacts_total{channel="kept",kind="call",outcome="rang"}"#, in: after) == 1, "\(after)")
        // The channel back again starts from nothing.
        metrics.listenAttempted(channel: "gone")
        #expect(Self.value(#"attendant_listen_attempts_total{channel="gone"}"#, in: metrics.prometheusText()) == 1)
    }

    /// The seconds listening grow while the channel listens, and stop growing once it does not.
    @Test func listeningSecondsAddUpOnlyWhileListening() throws {
        let metrics = DaemonMetrics()
        let series = #"attendant_channel_listening_seconds_total{channel="desk"}"#
        metrics.channelState("desk", plugin: "loopback", .starting)
        #expect(Self.value(series, in: metrics.prometheusText()) == nil, "not listening yet")
        metrics.channelState("desk", plugin: "loopback", .listening)
        let first = try #require(Self.value(series, in: metrics.prometheusText()))
        let second = try #require(Self.value(series, in: metrics.prometheusText()))
        #expect(first >= 0 && second >= first)
        metrics.channelState("desk", plugin: "loopback", .recovering)
        let stopped = try #require(Self.value(series, in: metrics.prometheusText()))
        #expect(stopped >= second)
        #expect(Self.value(series, in: metrics.prometheusText()) == stopped, "no growth while recovering")
    }

    /// Listen attempts and failures by class through the real supervisor loop, and a reconnect after a drop.
    @Test func theSupervisorCountsListenAttemptsFailuresAndReconnects() async {
        let clock = ManualClock()
        let host = InMemoryChannelHost(channelName: "desk", clock: clock)
        let channel = ScriptedChannel(host: host)
        channel.script(listen: [.fail(ChannelError(.transient, "network unreachable")), .succeed, .succeed])
        let metrics = DaemonMetrics()
        var configuration = ChannelSupervisor.Configuration()
        configuration.callTimeout = .seconds(30)
        // The states as published (the metrics are recorded before), to wait for the next `listening`.
        let (published, publishing) = AsyncStream<ChannelStatus.State>.makeStream()
        var states = published.makeAsyncIterator()
        let supervisor = ChannelSupervisor(
            name: "desk",
            plugin: "scripted",
            channel: channel,
            tokens: NoTokenKeeper(channelName: "desk"),
            clock: clock,
            logger: host.logger,
            configuration: configuration,
            metrics: metrics,
            onStatus: { publishing.yield($0.state) }
        )
        let run = Task { await supervisor.run() }
        await clock.waitForSleepers { $0.contains { $0.offset <= .seconds(1) } }  // the retry after the failure
        clock.advanceToNextDeadline()
        while let state = await states.next(), state != .listening {}
        var text = metrics.prometheusText()
        #expect(Self.value(#"attendant_listen_attempts_total{channel="desk"}"#, in: text) == 2, "\(text)")
        #expect(Self.value(#"attendant_listen_failures_total{channel="desk",class="transient"}"#, in: text) == 1, "\(text)")
        #expect(Self.value(#"attendant_reconnects_total{channel="desk"}"#, in: text) == nil, "the first listen is no reconnect")

        supervisor.channelStoppedListening(ChannelError(.transient, "connection reset by peer"))
        // The retry's backoff (seconds, jittered), not the keep-alive that slept until 600 s.
        await clock.waitForSleepers { $0.contains { $0.offset < .seconds(300) } }
        clock.advanceToNextDeadline()
        while let state = await states.next(), state != .listening {}
        text = metrics.prometheusText()
        #expect(Self.value(#"attendant_listen_attempts_total{channel="desk"}"#, in: text) == 3, "\(text)")
        #expect(Self.value(#"attendant_reconnects_total{channel="desk"}"#, in: text) == 1, "\(text)")
        #expect(Self.value(#"attendant_channel_state{channel="desk",plugin="scripted",state="listening"}"#, in: text) == 1, "\(text)")
        supervisor.stop()
        await run.value
        #expect(Self.value(#"attendant_channel_state{channel="desk",plugin="scripted",state="stopped"}"#, in: metrics.prometheusText()) == 1)
    }

    /// Renewals, failures by class, and the seconds to the token's expiry on the keeper's wall clock.
    @Test func theTokenManagerCountsRenewalsAndFailuresAndTheExpiry() async throws {
        let clock = ManualClock()
        let source = ScriptedTokenSource()
        let epoch = clock.epoch.secondsSince1970
        source.script(
            .token(TestJWT.capability(issuedAt: epoch, lifetime: 3600)),
            .fail(TokenError(.timeout, "token command: no answer within 10 s"))
        )
        let metrics = DaemonMetrics(wallClock: { clock.unixTime() })
        let manager = TokenManager(
            channelName: "desk",
            settings: TokenSettings(source: .command(["/usr/local/bin/scripted"])),
            source: source,
            clock: clock,
            wallClock: { clock.unixTime() },
            logger: Logger(label: "attendant.test"),
            metrics: metrics
        )
        _ = try await manager.renew()
        var text = metrics.prometheusText()
        #expect(Self.value(#"attendant_token_renewals_total{channel="desk"}"#, in: text) == 1, "\(text)")
        #expect(Self.value(#"attendant_token_expiry_seconds{channel="desk"}"#, in: text) == 3600, "\(text)")
        await #expect(throws: TokenError.self) { try await manager.renew() }
        text = metrics.prometheusText()
        #expect(Self.value(#"attendant_token_renewal_failures_total{channel="desk",class="timeout"}"#, in: text) == 1, "\(text)")
        #expect(Self.value(#"attendant_token_renewals_total{channel="desk"}"#, in: text) == 1)
    }

    /// Contacts count by the kind recorded at arrival (`rang`) and by how they ended; an end without an
    /// arrival is not counted.
    @Test func theRouterCountsContactsByKindAndOutcome() async throws {
        let folder = try makeTemporaryFolder("metrics-router")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try StateStore(directory: folder)
        let metrics = DaemonMetrics()
        let router = EventRouter(store: store, logger: Logger(label: "attendant.test"), presenters: [], metrics: metrics)
        let run = Task { await router.run() }
        let now = SystemWallClock.now()
        let caller = Party(displayName: "Ann Lee", address: "sip:ann@example.test")
        for (id, kind) in [("c1", ContactKind.call), ("c2", .call), ("h1", .chat)] {
            router.deliver(.incomingContact(Contact(id: id, kind: kind, from: caller, summary: "", receivedAt: now)), from: "desk")
        }
        router.deliver(.contactUpdated(Contact(id: "c1", kind: .call, from: caller, summary: "again", receivedAt: now)), from: "desk")
        router.deliver(.contactEnded(contactID: "c1", outcome: .missed), from: "desk")
        router.deliver(.contactEnded(contactID: "c2", outcome: .answeredElsewhere), from: "desk")
        router.deliver(.contactEnded(contactID: "h1", outcome: .answered), from: "desk")
        router.deliver(.contactEnded(contactID: "never-rang", outcome: .declined), from: "desk")
        let series = { (kind: String, outcome: String) in #"attendant_contacts_total{channel="desk",kind="\#(kind)",outcome="\#(outcome)"}"# }
        try await eventually("the router to record the four ends") {
            (try await store.recentContacts()).filter { $0.outcome != nil }.count == 3
                && Self.value(series("chat", "answered"), in: metrics.prometheusText()) != nil
        }
        let text = metrics.prometheusText()
        #expect(Self.value(series("call", "rang"), in: text) == 2, "\(text)")
        #expect(Self.value(series("chat", "rang"), in: text) == 1, "\(text)")
        #expect(Self.value(series("call", "missed"), in: text) == 1, "\(text)")
        #expect(Self.value(series("call", "answered-elsewhere"), in: text) == 1, "\(text)")
        #expect(Self.value(series("chat", "answered"), in: text) == 1, "\(text)")
        #expect(!text.contains(#"outcome="declined""#), "\(text)")
        run.cancel()
    }

    /// The latency runs from the arrival to the first time its notification is shown, once.
    @Test func alertLatencyIsRecordedOncePerArrival() throws {
        let metrics = DaemonMetrics()
        let key = AlertKey.contact(channel: "desk", contactID: "c1")
        metrics.alertShown(key)
        #expect(!metrics.prometheusText().contains("attendant_alert_latency_seconds"), "shown without an arrival")
        metrics.alertAwaited(key)
        metrics.alertShown(key)
        metrics.alertShown(key)
        let text = metrics.prometheusText()
        #expect(text.contains("# TYPE attendant_alert_latency_seconds histogram"), "\(text)")
        #expect(Self.value(#"attendant_alert_latency_seconds_count{channel="desk"}"#, in: text) == 1, "\(text)")
        #expect(Self.value(#"attendant_alert_latency_seconds_bucket{channel="desk",le="+Inf"}"#, in: text) == 1, "\(text)")
        #expect(text.contains(#"attendant_alert_latency_seconds_bucket{channel="desk",le="0.001"}"#), "the sub-millisecond buckets: \(text)")
    }

    /// Contacts never shown do not pile up: past the limit the oldest waits are forgotten.
    @Test func awaitedAlertsAreBounded() {
        let metrics = DaemonMetrics()
        for number in 0...DaemonMetrics.pendingAlertLimit {
            metrics.alertAwaited(.contact(channel: "desk", contactID: "c\(number)"))
        }
        metrics.alertShown(.contact(channel: "desk", contactID: "c0"))
        #expect(!metrics.prometheusText().contains("attendant_alert_latency_seconds_count"), "the oldest wait was dropped")
        metrics.alertShown(.contact(channel: "desk", contactID: "c\(DaemonMetrics.pendingAlertLimit)"))
        #expect(Self.value(#"attendant_alert_latency_seconds_count{channel="desk"}"#, in: metrics.prometheusText()) == 1)
    }
}

/// The `[metrics] listen` endpoint on a real socket, asked by curl.
@Suite(.timeLimit(.minutes(2))) struct MetricsEndpointTests {
    static func curl(_ arguments: [String]) async throws -> String {
        let (status, stdout, stderr) = try await runTool("curl", ["-sS", "-i", "--max-time", "30"] + arguments, environment: [:])
        guard status == 0 else { throw FixtureError("curl \(arguments.joined(separator: " ")) failed (\(status)): \(stderr)") }
        return stdout
    }

    @Test func servesMetricsAtSlashMetricsOnlyAndRefusesATakenPort() async throws {
        let metrics = DaemonMetrics()
        metrics.contact(channel: "desk", kind: .call, outcome: DaemonMetrics.rang)
        let endpoint = try await MetricsEndpoint.bind(.init(host: "127.0.0.1", port: 0), metrics: metrics, logger: Logger(label: "attendant.test"))
        let port = try #require(endpoint.port)
        let serving = Task { try await endpoint.run() }

        let ok = try await Self.curl(["http://127.0.0.1:\(port)/metrics"])
        #expect(ok.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(ok)")
        #expect(ok.lowercased().contains("content-type: text/plain; version=0.0.4; charset=utf-8\r\n"), "\(ok)")
        #expect(ok.contains(#"attendant_contacts_total{channel="desk",kind="call",outcome="rang"} 1"#), "\(ok)")
        let elsewhere = try await Self.curl(["http://127.0.0.1:\(port)/"])
        #expect(elsewhere.hasPrefix("HTTP/1.1 404 Not Found\r\n"), "\(elsewhere)")
        let post = try await Self.curl(["-X", "POST", "http://127.0.0.1:\(port)/metrics"])
        #expect(post.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n") && post.contains("Allow: GET, HEAD\r\n"), "\(post)")

        let taken = MetricsSettings.Address(host: "127.0.0.1", port: port)
        let error = await #expect(throws: DaemonStartError.self) {
            _ = try await MetricsEndpoint.bind(taken, metrics: metrics, logger: Logger(label: "attendant.test"))
        }
        let message = error?.description ?? ""
        #expect(message.hasPrefix("cannot serve metrics on 127.0.0.1:\(port) ([metrics] listen): "), "\(message)")
        #expect(message.contains("Address already in use"), "\(message)")

        serving.cancel()
        try? await serving.value
    }

    /// A TCP connection to 127.0.0.1:`port` that sends `request`, if any, and stays open; -1 if refused.
    static func connect(_ port: Int, sending request: String? = nil) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            close(fd)
            return -1
        }
        if let request { _ = request.withCString { send(fd, $0, strlen($0), 0) } }
        return fd
    }

    /// The daemon stopping while connections arrive: a burst of them, some idle, some kept alive after an
    /// answer, then the graceful shutdown at once. Each is served or closed and the endpoint ends. It
    /// trapped before ("Deinited NIOAsyncWriter without calling finish()": the shutdown cancelled the loop,
    /// and a connection accepted but not yet taken from the server channel's stream was dropped unserved;
    /// swift-nio#2637), which killed attendantd stopped while Prometheus scraped it.
    @Test func aShutdownDuringABurstOfConnectionsServesOrClosesEachAndEnds() async throws {
        // Few enough descriptors at a time (the server's side is in this process too): Foundation's
        // Process.run, used by tests running beside this one, crashes once descriptors pass about 1,024.
        for _ in 0..<3 {
            let endpoint = try await MetricsEndpoint.bind(
                .init(host: "127.0.0.1", port: 0),
                metrics: DaemonMetrics(),
                logger: Logger(label: "attendant.test")
            )
            let port = try #require(endpoint.port)
            let group = ServiceGroup(configuration: .init(services: [endpoint], logger: Logger(label: "attendant.test")))
            let running = Task { try await group.run() }
            let keptAlive = Self.connect(port, sending: "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            var burst: [Int32] = []
            for index in 0..<24 { burst.append(Self.connect(port, sending: index.isMultiple(of: 2) ? nil : "GET /metrics HTTP/1.1\r\n")) }
            await group.triggerGracefulShutdown()
            try await running.value
            for fd in burst + [keptAlive] where fd >= 0 { close(fd) }
        }
    }
}
