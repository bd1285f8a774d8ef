import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// KARTE in-app messaging when things go wrong: failed, refused and bad answers, a crash, and the app
/// key's secrecy.
extension KarteActionsDaemonTests {
    // MARK: Failures

    /// A 5xx is retried with `_retry: true`, and the answer to the retry shows nothing; a 4xx is dropped.
    @Test func retriesAreMarkedAndTheirAnswersNeverShow() async throws {
        let setup = try await Self.start(extra: "request-timeout = \"1s\"")
        defer { setup.stop() }
        try await setup.settled()
        _ = try await setup.simulator.control("POST", "/control/karte/fault", body: #"{"mode": "status", "status": 500, "count": 1}"#)
        try await setup.actions("view", "home")
        try await eventually("the retry") { try await setup.events(named: "view").count == 2 }
        let views = try await setup.events(named: "view")
        #expect(views.map { $0["retry"] as? Bool } == [false, true])
        try await Task.sleep(for: .seconds(1))
        #expect(!setup.desktop.notifyCalls.contains { $0.summary == Self.welcome }, "the answer to a retry shows nothing")

        _ = try await setup.simulator.control("POST", "/control/karte/fault", body: #"{"mode": "status", "status": 400, "count": 1}"#)
        try await setup.actions("view", "cart")
        try await eventually("the 4xx logged") { setup.daemon.stderr.contains("HTTP status 400") }
        try await Task.sleep(for: .seconds(1))
        #expect(try await setup.events(named: "view").count == 3, "a 4xx is not retried")

        // No answer within request-timeout (1 s here) is a network failure: retried, marked.
        _ = try await setup.simulator.control("POST", "/control/karte/fault", body: #"{"mode": "hang", "seconds": 5, "count": 1}"#)
        try await setup.actions("view", "checkout")
        try await eventually("the retry after the timeout") { try await setup.events(named: "view").count == 5 }
        #expect(try await setup.events(named: "view").suffix(2).map { $0["retry"] as? Bool } == [false, true])
    }

    /// A daemon killed while a request is unanswered loses nothing: the next run sends its events again,
    /// marked `_retry` (so their answers show nothing), with the keys they were tracked with.
    @Test func eventsUnansweredAtACrashGoAgainAfterTheRestart() async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        try await setup.settled()
        _ = try await setup.simulator.control("POST", "/control/karte/fault", body: #"{"mode": "hang", "seconds": 30, "count": 1}"#)
        try await setup.actions("track", "buy", "--value", "item=\"tea\"")
        try await eventually("the held request") { try await setup.events(named: "buy").count == 1 }
        let first = try #require(try await setup.events(named: "buy").first)
        setup.daemon.signal(SIGKILL)
        _ = await setup.daemon.waitForExit()

        let again = try await setup.restarted()
        defer { again.signal(SIGTERM) }
        try await eventually("buy sent again") { try await setup.events(named: "buy").count == 2 }
        let resent = try #require(try await setup.events(named: "buy").last)
        #expect(resent["retry"] as? Bool == true)
        #expect((resent["keys"] as? [String: Any])?["pv_id"] as? String == (first["keys"] as? [String: Any])?["pv_id"] as? String)
        #expect((resent["values"] as? [String: Any])?["item"] as? String == "tea")
        #expect(again.stderr.contains("sending again 1 event(s) of an earlier run"))
        // Answered now: a third run does not send it again.
        try await Task.sleep(for: .milliseconds(300))
        again.signal(SIGTERM)
        _ = await again.waitForExit()
        let third = try await setup.restarted()
        defer { third.signal(SIGTERM) }
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await setup.events(named: "buy").count == 2)
        #expect(!third.stderr.contains("sending again"), "a clean stop leaves nothing unanswered")
    }

    /// Bad answers are named in the log (size and reason, never content) and the channel keeps working.
    @Test(arguments: [
        ("malformed", "bytes) is not JSON"),
        ("wrong-shape", "field \"response.messages\" is a string, expected an array"),
        ("oversize", "larger than 2097152 bytes"),
        ("fake-gzip", "is not gzip"),
    ])
    func aBadAnswerIsLoggedAndTheChannelKeepsWorking(mode: String, logged: String) async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        try await setup.settled()
        _ = try await setup.simulator.control("POST", "/control/karte/fault", body: #"{"mode": "\#(mode)", "count": 1}"#)
        try await setup.actions("view", "home")
        try await eventually("the bad answer logged") { setup.daemon.stderr.contains(logged) }
        #expect(!setup.desktop.notifyCalls.contains { $0.summary == Self.welcome }, "\(setup.daemon.stderr)")
        #expect(!setup.daemon.stderr.contains("Your refund"), "the log never quotes the answer")
        try await setup.actions("view", "cart")
        _ = try await setup.desktop.notifyCall(summary: Self.welcome)
    }

    /// A 2xx answer over the 2 MiB limit means KARTE has the events: they are posted once, never again
    /// (it used to count as a network failure, so the same view reached KARTE four times), and the
    /// answer's actions are dropped and logged. Both forms: a plain body past the limit, and a gzip body
    /// that unpacks past it.
    @Test(arguments: [false, true])
    func anOversizeAnswerDeliveredTheEventsAndIsNotRetried(gzip: Bool) async throws {
        let setup = try await Self.start(simulatorArguments: gzip ? [] : ["--karte-no-gzip-answers"])
        defer { setup.stop() }
        try await setup.settled()
        _ = try await setup.simulator.control("POST", "/control/karte/fault", body: #"{"mode": "oversize", "count": 4}"#)
        try await setup.actions("view", "home")
        // Logged once the answer is given up on: at once now, after the last retry before.
        try await eventually("the oversize answer logged") { setup.daemon.stderr.contains("larger than 2097152 bytes") }
        let homes = try await setup.events(named: "view").filter { ($0["values"] as? [String: Any])?["view_name"] as? String == "home" }
        #expect(homes.count == 1, "posted \(homes.count) times: \(setup.daemon.stderr)")
        #expect(!setup.desktop.notifyCalls.contains { $0.summary == Self.welcome }, "the oversize answer's actions are dropped")
    }

    /// An answer with unknown fields everywhere is read as usual; the fields of the envelope are named.
    @Test func unknownFieldsAreIgnored() async throws {
        let setup = try await Self.start(daemon: "log-level = \"debug\"")
        defer { setup.stop() }
        try await setup.settled()
        _ = try await setup.simulator.control("POST", "/control/karte/fault", body: #"{"mode": "unknown-fields", "count": 1}"#)
        try await setup.actions("view", "home")
        _ = try await setup.desktop.notifyCall(summary: Self.welcome)
        // Named (names only) at debug level.
        #expect(
            await setup.daemon.waitForLog(
                "field(s) this plugin does not read, ignored: response.messages[0].x_simulator_unknown, response.x_simulator_unknown, x_simulator_unknown"
            ),
            "\(setup.daemon.stderr)"
        )
    }

    // MARK: Secrets

    /// The app key is never in the log, a D-Bus reply or signal, or the state database.
    @Test func theAppKeyIsNeverLoggedSignalledOrStored() async throws {
        let setup = try await Self.start()
        let key = try #require(setup.simulator.announcement["karte_app_key"] as? String)
        try await setup.actions("view", "home")
        _ = try await setup.desktop.notifyCall(summary: Self.welcome)
        let replies = try await [setup.actions("list"), setup.actions("variables")].map { "\($0)" }.joined()
        let (_, channels) = try await run(TokenDaemonTests.attendantctl, ["channels", "--json"], environment: setup.environment)
        setup.stop()
        #expect(!setup.daemon.stderr.contains(key))
        #expect(!replies.contains(key) && !channels.contains(key))
        #expect(!setup.desktop.sessionBus.messages.contains { message in message.arguments.contains { "\($0)".contains(key) } })
        for file in try FileManager.default.subpathsOfDirectory(atPath: setup.scratch.path)
        where file.contains("state") && !file.hasSuffix("secrets.json") {
            let path = setup.scratch.path + "/" + file
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            #expect(data.range(of: Data(key.utf8)) == nil, "\(file) holds the app key")
        }
    }
}
