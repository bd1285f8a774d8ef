import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// KARTE in-app messaging through the real `attendantd` with the KarteActions plugin against the real
/// `attendant-sim` KARTE endpoint, on the real desktop: dunst shows the actions (read back), the daemon's
/// D-Bus signals show their lifecycle, `attendantctl actions` drives the channel, and the simulator's
/// record of every event tracked is the proof of what went back to KARTE.
@Suite(.serialized, .timeLimit(.minutes(3))) struct KarteActionsDaemonTests {
    typealias Simulator = SimulatorDaemonTests.Simulator

    /// The simulator's default campaigns: a popup on every `view`, variables on `native_app_open`.
    static let welcome = "Welcome back"

    struct Setup {
        let simulator: Simulator
        let scratch: Scratch
        let desktop: DesktopSession
        let daemon: DaemonProcess
        /// The file the test's opener appends every URL it is asked to open to.
        let opened: String

        var environment: [String: String] { self.desktop.toolEnvironment }

        /// `attendantctl actions …` with --json, as an object.
        @discardableResult
        func actions(_ arguments: String...) async throws -> [String: Any] {
            let (status, output, _) = try await runTool(
                TokenDaemonTests.attendantctl,
                ["actions"] + arguments + ["--json"],
                environment: self.environment
            )
            guard status == 0 else { throw FixtureError("attendantctl actions \(arguments.joined(separator: " ")) failed (\(status)): \(output)") }
            return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
        }

        /// Every event the simulator recorded, oldest first.
        func events() async throws -> [[String: Any]] {
            let (status, text, _) = try await runTool(
                "/usr/bin/curl",
                ["-s", "--max-time", "20", "http://127.0.0.1:\(self.simulator.httpPort)/control/karte/events"],
                environment: self.environment
            )
            guard status == 0 else { throw FixtureError("curl /control/karte/events failed (\(status)): \(text)") }
            return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] ?? []
        }

        func events(named name: String) async throws -> [[String: Any]] {
            try await self.events().filter { $0["event_name"] as? String == name }
        }

        /// The `values.message` of the events named `name`.
        func messages(of name: String) async throws -> [[String: Any]] {
            try await self.events(named: name).compactMap { ($0["values"] as? [String: Any])?["message"] as? [String: Any] }
        }

        /// The daemon's in-app action signals: (member, arguments as strings).
        func actionSignals() -> [(String, [String])] {
            self.desktop.sessionBus.messages.compactMap { message in
                guard message.type == "signal", let member = message.member, member.hasPrefix("Action") else { return nil }
                return (member, message.arguments.compactMap(\.string))
            }
        }

        /// Start-up traffic is over: the default campaigns' variables answered `native_app_open` and
        /// `_message_ready` went back, so a fault set now meets the test's own request.
        func settled() async throws {
            try await eventually("_message_ready after the start") { try await !self.events(named: "_message_ready").isEmpty }
            try await Task.sleep(for: .milliseconds(300))
        }

        func urlsOpened() -> [String] {
            ((try? String(contentsOfFile: self.opened, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        func stop() {
            self.daemon.signal(SIGTERM)
            _ = self.simulator.stop()
        }

        /// A new daemon on the same configuration and state folder, listening (the one before was stopped
        /// or killed).
        func restarted() async throws -> DaemonProcess {
            let again = try DaemonProcess(
                ["--config", self.scratch.path + "/attendant.toml"],
                scratch: self.scratch,
                environment: self.desktop.environment
            )
            try #require(await again.waitForLog("ready: karte listening"), "\(again.stderr)")
            return again
        }
    }

    /// A karte-actions channel named "karte" on the simulator, its app key from a token file, links
    /// opened by a recording script. `campaigns` replaces the simulator's defaults.
    static func start(
        campaigns: String? = nil,
        simulatorArguments: [String] = [],
        extra: String = "",
        links: String = "",
        daemon: String = "",
        desktop: DesktopSession? = nil,
        scratch: Scratch? = nil
    ) async throws -> Setup {
        let scratch = try scratch ?? Scratch()
        var arguments = simulatorArguments
        if let campaigns { arguments += ["--karte-campaigns", try scratch.write("campaigns.json", campaigns)] }
        let simulator = try await Simulator(arguments)
        let desktop = if let desktop { desktop } else { try await DesktopSession() }
        let channel = try Self.channel("karte", on: simulator, scratch: scratch, extra: extra)
        let opened = scratch.path + "/opened"
        let opener = try scratch.write("opener", "#!/bin/sh\necho \"$1\" >> \(opened)\n")
        chmod(opener, 0o755)
        let config = try scratch.write(
            "attendant.toml",
            """
            [daemon]
            \(daemon)

            \(channel)

            [links]
            opener = ["\(opener)"]
            \(links)
            """
        )
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("ready: karte listening"), "\(daemon.stderr)")
        return Setup(simulator: simulator, scratch: scratch, desktop: desktop, daemon: daemon, opened: opened)
    }

    /// A KarteActions channel `name` on `simulator`'s KARTE endpoint (its configuration's TOML), the app
    /// key in a file of `scratch` only its owner reads.
    static func channel(_ name: String, on simulator: Simulator, scratch: Scratch, extra: String = "") throws -> String {
        let key = try scratch.write("karte.key", (simulator.announcement["karte_app_key"] as? String ?? "") + "\n")
        chmod(key, 0o600)
        return """
            [[channel]]
            name = "\(name)"
            plugin = "karte-actions"
            token-file = "\(key)"

            [channel.karte-actions]
            url = "\(simulator.announcement["karte_base"] as? String ?? "")"
            \(extra)
            """
    }

    // MARK: Tracking

    /// Start: `native_app_install` then `native_app_open`, gzipped, with the keys and the Linux app_info;
    /// a restart of the same version sends only `native_app_open`, with the same visitor id.
    @Test func startTracksInstallThenOpenAndTheVisitorIDPersists() async throws {
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let setup = try await Self.start(desktop: desktop, scratch: scratch)
        try await eventually("native_app_open") { try await !setup.events(named: "native_app_open").isEmpty }
        let first = try await setup.events()
        #expect(first.prefix(2).compactMap { $0["event_name"] as? String } == ["native_app_install", "native_app_open"])
        let keys = try #require(first.first?["keys"] as? [String: Any])
        let visitor = try #require(keys["visitor_id"] as? String)
        #expect(keys["pv_id"] as? String == keys["original_pv_id"] as? String, "no view yet: pv_id is the original")
        #expect(first.allSatisfy { $0["gzip"] as? Bool == true })
        let requests =
            try await JSONSerialization.jsonObject(with: Data(setup.simulator.control("GET", "/control/karte/requests").utf8)) as? [[String: Any]]
            ?? []
        #expect(requests.allSatisfy { $0["app_key_ok"] as? Bool == true }, "\(requests)")

        setup.daemon.signal(SIGTERM)
        _ = await setup.daemon.waitForExit()
        _ = try await setup.simulator.control("DELETE", "/control/karte/events")
        let config = setup.scratch.path + "/attendant.toml"
        let again = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        defer { again.signal(SIGTERM) }
        try #require(await again.waitForLog("ready: karte listening"), "\(again.stderr)")
        try await eventually("native_app_open again") { try await !setup.events(named: "native_app_open").isEmpty }
        let second = try await setup.events()
        #expect(second.compactMap { $0["event_name"] as? String }.filter { $0.hasPrefix("native_app_") } == ["native_app_open"])
        #expect((second.first?["keys"] as? [String: Any])?["visitor_id"] as? String == visitor)
        _ = setup.simulator.stop()
    }

    /// A `view` renews the pv_id before it is recorded; the first view does not reset; events tracked
    /// together go in one request; refused field names are refused with the SDK's rule.
    @Test func viewsRenewThePageAndFieldNamesAreChecked() async throws {
        let setup = try await Self.start(campaigns: "[]")
        defer { setup.stop() }
        let view = try await setup.actions("view", "home", "--title", "Home")
        let pv = try #require(view["pv_id"] as? String)
        #expect(pv != view["original_pv_id"] as? String)
        try await setup.actions("track", "buy", "--value", "price=120", "--value", "item=tea")
        try await eventually("view and buy") { try await setup.events(named: "buy").count == 1 }
        let events = try await setup.events()
        let home = try #require(events.first { $0["event_name"] as? String == "view" })
        #expect((home["keys"] as? [String: Any])?["pv_id"] as? String == pv)
        #expect((home["values"] as? [String: Any])?["view_name"] as? String == "home")
        let buy = try #require(events.first { $0["event_name"] as? String == "buy" })
        #expect((buy["values"] as? [String: Any])?["price"] as? Double == 120)
        #expect((buy["keys"] as? [String: Any])?["pv_id"] as? String == pv)

        let (status, out, err) = try await runTool(
            TokenDaemonTests.attendantctl,
            ["actions", "track", "buy", "--value", "count=1"],
            environment: setup.environment
        )
        let output = out + err
        #expect(status != 0)
        #expect(output.contains("count"), "\(output)")
    }

    // MARK: Showing, resets, events back

    /// A view's campaign shows in dunst with its title, body and a button per link; the action's JSON goes
    /// out on D-Bus with will/did-appear and window-presented; `message_open` goes back with the ids.
    /// The next view resets it softly: closed, no `message_close`.
    @Test func aViewsCampaignShowsAndTheNextViewResetsItSoftly() async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        try await setup.actions("view", "home")
        let call = try await setup.desktop.notifyCall(summary: Self.welcome)
        #expect(call.body.contains("Your refund is on its way."))
        #expect(call.actions.map(\.label).contains("Track refund"))
        #expect(call.actions.map(\.label).contains("Open in new window"))
        try await eventually("dunst showed it") { setup.desktop.printed.contains { $0.summary == Self.welcome } }
        try await eventually("message_open") { try await !setup.messages(of: "message_open").isEmpty }
        let open = try #require(try await setup.messages(of: "message_open").first)
        #expect(open["campaign_id"] as? String != nil && open["shorten_id"] as? String != nil)

        let members = setup.actionSignals().map(\.0)
        #expect(Array(members.prefix(4)) == ["ActionWillAppear", "ActionWindowPresented", "ActionReceived", "ActionDidAppear"], "\(members)")
        let received = try #require(setup.actionSignals().first { $0.0 == "ActionReceived" })
        let json = try JSONSerialization.jsonObject(with: Data(received.1[2].utf8)) as? [String: Any]
        #expect((json?["campaign"] as? [String: Any])?["_id"] as? String == open["campaign_id"] as? String)

        try await setup.actions("view", "cart")
        try await eventually("the soft reset") { setup.actionSignals().contains { $0.0 == "ActionDidDisappear" } }
        let disappear = try #require(setup.actionSignals().first { $0.0 == "ActionWillDisappear" })
        #expect(disappear.1.last == "soft")
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await setup.events(named: "message_close").isEmpty, "a soft reset sends no message_close")
    }

    /// Dismiss: `message_close` and a hard close; dismissing the notification in dunst does the same.
    @Test func dismissSendsMessageCloseFromTheCLIAndFromDunst() async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        try await setup.actions("view", "home")
        _ = try await setup.desktop.notifyCall(summary: Self.welcome)
        let reply = try await setup.actions("dismiss")
        #expect(reply["dismissed"] as? String == "1")
        try await eventually("message_close") { try await setup.messages(of: "message_close").count == 1 }

        try await setup.actions("view", "cart")
        try await eventually("the next action") { setup.desktop.notifyCalls.filter { $0.summary == Self.welcome }.count == 2 }
        try await eventually("dunst shows it") { try await setup.desktop.displayedCount() >= 1 }
        try await setup.desktop.closeAll()
        try await eventually("message_close from dunst") { try await setup.messages(of: "message_close").count == 2 }
        #expect(try await (setup.actions("list")["actions"] as? [Any])?.isEmpty == true)
    }

    /// A link button: `message_click`, the URL opened by the configured opener, and a soft reset unless
    /// the link's target is `_blank`.
    @Test func linksClickTrackOpenAndResetUnlessBlank() async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        try await setup.actions("view", "home")
        _ = try await setup.desktop.notifyCall(summary: Self.welcome)
        // `_blank` keeps the action shown.
        let blank = try await setup.actions("click", "--link", "1")
        #expect(blank["opened"] as? String == "opened")
        #expect(blank["reset"] as? String == "false")
        #expect(try await (setup.actions("list")["actions"] as? [Any])?.count == 1)
        // The `_self` link, from the notification's button: opened, and the action closes.
        _ = try await setup.desktop.invokeAction(label: "Track refund")
        try await eventually("the click's reset") { try await (setup.actions("list")["actions"] as? [Any])?.isEmpty == true }
        try await eventually("both URLs opened") { setup.urlsOpened().count == 2 }
        #expect(setup.urlsOpened() == ["https://example.com/help", "https://example.com/refund"])
        try await eventually("two message_click") { try await setup.events(named: "message_click").count == 2 }
        #expect(try await setup.messages(of: "message_close").isEmpty, "a click's reset is soft")
        #expect(setup.actionSignals().contains { $0.0 == "ActionDidDisappear" && $0.1.last == "click" })
    }

    /// Only http, https and `[links] schemes` are ever opened: a campaign's `javascript:` or `file:` link
    /// is refused (attendantctl exits 1 and says why), logged, and never reaches the opener. A refused link
    /// is not a click: no `message_click`, and the action stays shown (its `_self` target resets nothing).
    /// A scheme the user allowed opens, and that click is tracked.
    @Test func linksOfOtherSchemesAreRefusedAndLoggedAndAreNoClick() async throws {
        let campaigns = """
            [{"id": "odd", "kind": "popup", "trigger": {"event_name": "view"}, "title": "Odd links", "body": "b",
              "links": [{"label": "Run", "url": "javascript:alert(1)", "target": "_self"},
                        {"label": "File", "url": "file:///etc/passwd", "target": "_blank"},
                        {"label": "Mail", "url": "mailto:help@example.com", "target": "_blank"}]}]
            """
        let setup = try await Self.start(campaigns: campaigns, links: "schemes = [\"mailto\"]")
        defer { setup.stop() }
        try await setup.actions("view", "home")
        _ = try await setup.desktop.notifyCall(summary: "Odd links")
        for index in ["0", "1"] {
            let (status, out, err) = try await runTool(
                TokenDaemonTests.attendantctl,
                ["actions", "click", "--link", index],
                environment: setup.environment
            )
            let output = out + err
            #expect(status == 1, "\(output)")
            #expect(output.contains("is not allowed"), "\(output)")
        }
        #expect(try await (setup.actions("list")["actions"] as? [Any])?.count == 1, "a refused _self link closes nothing")
        let mail = try await setup.actions("click", "--link", "2")
        #expect(mail["opened"] as? String == "opened")
        #expect(setup.urlsOpened() == ["mailto:help@example.com"])
        #expect(setup.daemon.stderr.components(separatedBy: "link refused").count - 1 == 2, "\(setup.daemon.stderr)")
        // The refused clicks came first: by the time the allowed one's message_click is in, theirs would be.
        try await eventually("the mailto message_click") {
            try await setup.events(named: "message_click").contains {
                ($0["values"] as? [String: Any])?["url"] as? String == "mailto:help@example.com"
            }
        }
        let clicked = try await setup.events(named: "message_click").compactMap { ($0["values"] as? [String: Any])?["url"] as? String }
        #expect(clicked == ["mailto:help@example.com"], "only the link that opened is a click")
        #expect(try await setup.messages(of: "message_close").isEmpty)
    }

    // MARK: Variables, control group, expiry

    /// remote_config: variables kept and shown by `actions variables`, `_message_ready` sent; a control
    /// group is never shown; an action whose answer is older than 180 s shows without `message_open`.
    @Test func variablesControlGroupAndMessageOpenExpiry() async throws {
        let campaigns = """
            [{"id": "vars", "shorten_id": "v1", "kind": "remote_config", "trigger": {"event_name": "native_app_open"},
              "variables": [{"name": "greeting", "value": "Hello from KARTE"}]},
             {"id": "control", "shorten_id": "c1", "kind": "popup", "control_group": true, "trigger": {"event_name": "view"}, "title": "Never shown"},
             {"id": "old", "shorten_id": "o1", "kind": "popup", "age_s": 200, "trigger": {"event_name": "view"}, "title": "An old answer", "body": "b"}]
            """
        let setup = try await Self.start(campaigns: campaigns)
        defer { setup.stop() }
        try await eventually("_message_ready") { try await !setup.events(named: "_message_ready").isEmpty }
        let variables = try await setup.actions("variables")
        #expect(((variables["variables"] as? [String: Any])?["greeting"] as? [String: Any])?["value"] as? String == "Hello from KARTE")
        let fetched = try await setup.actions("variables", "--fetch")
        #expect(fetched["fetched"] as? Bool == true || fetched["fetched"] as? String == "true")

        try await setup.actions("view", "home")
        _ = try await setup.desktop.notifyCall(summary: "An old answer")
        try await Task.sleep(for: .milliseconds(500))
        #expect(!setup.desktop.notifyCalls.contains { $0.summary == "Never shown" })
        #expect(try await setup.events(named: "message_open").isEmpty, "an answer older than 180 s sends no message_open")
    }
}
