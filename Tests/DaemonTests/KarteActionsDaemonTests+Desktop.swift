import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// KARTE in-app messaging and the rest of the desktop: a D-Bus URL handler, logind's sleep as
/// background/foreground, do-not-disturb, an app key from secrets.json, a version update, and the
/// requests beyond view and track.
extension KarteActionsDaemonTests {
    /// A desktop app registered as the URL handler answers per URL: false claims the link (the daemon
    /// does not open it), true lets it open; a handler that never answers is waited for only
    /// `[links] handler-timeout`, then the link opens.
    @Test(arguments: [false, true])
    func aDBusURLHandlerDecidesPerLink(silent: Bool) async throws {
        let setup = try await Self.start(links: "handler-timeout = \"500ms\"")
        defer { setup.stop() }
        let asked = setup.scratch.path + "/asked"
        let handler = try FixtureProcess(
            "url-handler",
            "/usr/bin/python3",
            [BuildProducts.packageRoot + "/Tests/Fixtures/karte/url_handler.py", "refund", asked] + (silent ? ["--silent"] : []),
            environment: setup.environment
        )
        defer { handler.terminate() }
        try await eventually("the handler registered") { handler.stdout.contains("registered") }
        try #require(await setup.daemon.waitForLog("URL handler registered: org.example.Links"))

        try await setup.actions("view", "home")
        _ = try await setup.desktop.notifyCall(summary: Self.welcome)
        let blank = try await setup.actions("click", "--link", "1")  // https://example.com/help, not claimed
        #expect(blank["opened"] as? String == "opened")
        let claimed = try await setup.actions("click", "--link", "0")  // https://example.com/refund
        #expect(claimed["opened"] as? String == (silent ? "opened" : "claimed"), "\(claimed)")
        #expect(
            String(decoding: FileManager.default.contents(atPath: asked) ?? Data(), as: UTF8.self)
                == "https://example.com/help\nhttps://example.com/refund\n"
        )
        #expect(setup.urlsOpened() == (silent ? ["https://example.com/help", "https://example.com/refund"] : ["https://example.com/help"]))
        // Claimed or not, the click is tracked and resets the action.
        try await eventually("two message_click") { try await setup.events(named: "message_click").count == 2 }
        if silent { #expect(setup.daemon.stderr.contains("gave no answer within")) }
    }

    /// Sleep sends `native_app_background`, resume `native_app_foreground` (logind via python-dbusmock).
    @Test func sleepAndResumeAreBackgroundAndForeground() async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        try await setup.settled()
        try await setup.desktop.prepareForSleep(true)
        try await eventually("native_app_background") { try await !setup.events(named: "native_app_background").isEmpty }
        try await setup.desktop.prepareForSleep(false)
        try await eventually("native_app_foreground") { try await !setup.events(named: "native_app_foreground").isEmpty }
        let names = try await setup.events().compactMap { $0["event_name"] as? String }.filter { $0.hasPrefix("native_app_") }
        #expect(names == ["native_app_install", "native_app_open", "native_app_background", "native_app_foreground"])
    }

    /// Do-not-disturb holds the action's notification back (it is still shown as far as KARTE is
    /// concerned: no `_message_suppressed`); turning it off shows it.
    @Test func doNotDisturbHoldsActionsBackAndIsNotSuppress() async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        let (status, out, err) = try await runTool(TokenDaemonTests.attendantctl, ["dnd", "on"], environment: setup.environment)
        let output = out + err
        #expect(status == 0, "\(output)")
        try #require(await setup.daemon.waitForLog("do not disturb on"))
        try await setup.actions("view", "home")
        try await eventually("message_open") { try await !setup.messages(of: "message_open").isEmpty }
        try await Task.sleep(for: .milliseconds(500))
        #expect(!setup.desktop.notifyCalls.contains { $0.summary == Self.welcome })
        #expect(try await setup.events(named: "_message_suppressed").isEmpty)
        try await runTool(TokenDaemonTests.attendantctl, ["dnd", "off"], environment: setup.environment)
        _ = try await setup.desktop.notifyCall(summary: Self.welcome)
    }

    /// The app key from the channel's entry in secrets.json when it has no token source; a new
    /// `app-version` sends `native_app_update` with the previous version.
    @Test func appKeyFromSecretsAndVersionUpdate() async throws {
        let scratch = try Scratch()
        let simulator = try await Simulator([])
        defer { _ = simulator.stop() }
        let desktop = try await DesktopSession()
        let key = try #require(simulator.announcement["karte_app_key"] as? String)
        let port = simulator.httpPort
        let environment = desktop.toolEnvironment
        let state = scratch.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let secrets = try scratch.write("state/secrets.json", #"{"karte": {"app-key": "\#(key)"}}"#)
        chmod(secrets, 0o600)
        func configuration(_ version: String) throws -> String {
            try scratch.write(
                "attendant.toml",
                """
                [daemon]
                state-directory = "\(state)"

                [[channel]]
                name = "karte"
                plugin = "karte-actions"

                [channel.karte-actions]
                url = "\(simulator.announcement["karte_base"] as? String ?? "")"
                app-version = "\(version)"
                """
            )
        }
        let first = try DaemonProcess(["--config", try configuration("1.0")], scratch: scratch, environment: desktop.environment)
        try #require(await first.waitForLog("ready: karte listening"), "\(first.stderr)")
        first.signal(SIGTERM)
        _ = await first.waitForExit()
        let second = try DaemonProcess(["--config", try configuration("2.0")], scratch: scratch, environment: desktop.environment)
        defer { second.signal(SIGTERM) }
        try #require(await second.waitForLog("ready: karte listening"), "\(second.stderr)")
        let events: @Sendable () async throws -> [[String: Any]] = {
            let text = try await runTool(
                "/usr/bin/curl",
                ["-s", "--max-time", "20", "http://127.0.0.1:\(port)/control/karte/events"],
                environment: environment
            ).stdout
            return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] ?? []
        }
        try await eventually("native_app_update") { try await events().contains { $0["event_name"] as? String == "native_app_update" } }
        let names = try await events().compactMap { $0["event_name"] as? String }.filter { $0.hasPrefix("native_app_") }
        #expect(names == ["native_app_install", "native_app_open", "native_app_update", "native_app_open"])
        let update = try #require(try await events().first { $0["event_name"] as? String == "native_app_update" })
        #expect((update["values"] as? [String: Any])?["prev_version_name"] as? String == "1.0")
        #expect(!first.stderr.contains(key) && !second.stderr.contains(key))
    }

    /// identify and attribute carry their values; a marked boundary renews the pv_id and resets softly
    /// without sending an event.
    @Test func identifyAttributeAndBoundary() async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        try await setup.actions("identify", "user-42", "--value", "plan=\"gold\"")
        try await setup.actions("attribute", "--values", #"{"age": 41, "newsletter": true}"#)
        try await eventually("identify and attribute") { try await !setup.events(named: "attribute").isEmpty }
        let identify = try #require(try await setup.events(named: "identify").first?["values"] as? [String: Any])
        #expect(identify["user_id"] as? String == "user-42" && identify["plan"] as? String == "gold")
        let attribute = try #require(try await setup.events(named: "attribute").first?["values"] as? [String: Any])
        #expect(attribute["age"] as? Double == 41 && attribute["newsletter"] as? Bool == true)

        try await setup.actions("view", "home")
        _ = try await setup.desktop.notifyCall(summary: Self.welcome)
        try await eventually("message_open") { try await !setup.messages(of: "message_open").isEmpty }
        try await Task.sleep(for: .milliseconds(300))
        let before = try await setup.actions("list")
        let eventsBefore = try await setup.events().count
        let boundary = try await setup.actions("boundary")
        #expect(boundary["pv_id"] as? String != before["pv_id"] as? String)
        try await eventually("the soft reset") { setup.actionSignals().contains { $0.0 == "ActionDidDisappear" && $0.1.last == "soft" } }
        try await Task.sleep(for: .milliseconds(400))
        #expect(try await setup.events().count == eventsBefore, "a boundary sends no event")
        #expect(try await setup.messages(of: "message_close").isEmpty)
    }
}
