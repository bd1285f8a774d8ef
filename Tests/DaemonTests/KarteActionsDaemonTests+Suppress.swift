import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// Suppress: actions held back until unsuppress, and forgotten on a restart by default.
extension KarteActionsDaemonTests {
    /// Suppress closes what is shown (message_close) and holds every later action back with
    /// `_message_suppressed` and the SDK's reason; unsuppress shows them again. Not kept across a restart
    /// by default; kept with `suppress-persists`.
    @Test func suppressHoldsActionsBackUntilUnsuppress() async throws {
        let setup = try await Self.start(extra: "suppress-persists = true")
        defer { setup.stop() }
        try await setup.actions("view", "home")
        _ = try await setup.desktop.notifyCall(summary: Self.welcome)
        let suppressed = try await setup.actions("suppress")
        #expect(suppressed["dismissed"] as? String == "1")
        try await eventually("message_close") { try await setup.messages(of: "message_close").count == 1 }
        let shownBefore = setup.desktop.notifyCalls.filter { $0.summary == Self.welcome }.count
        try await setup.actions("view", "cart")
        try await eventually("_message_suppressed") { try await !setup.events(named: "_message_suppressed").isEmpty }
        let event = try #require(try await setup.events(named: "_message_suppressed").first)
        #expect((event["values"] as? [String: Any])?["reason"] as? String == "The display is suppressed by suppress mode.")
        #expect(setup.desktop.notifyCalls.filter { $0.summary == Self.welcome }.count == shownBefore)
        #expect(try await setup.actions("list")["suppressed"] as? String == "true")

        // Kept across a restart (suppress-persists = true).
        setup.daemon.signal(SIGTERM)
        _ = await setup.daemon.waitForExit()
        let again = try await setup.restarted()
        defer { again.signal(SIGTERM) }
        try await setup.actions("view", "after-restart")
        try await eventually("suppressed after the restart") { try await setup.events(named: "_message_suppressed").count == 2 }

        try await setup.actions("unsuppress")
        try await setup.actions("view", "home")
        try await eventually("shown again") { setup.desktop.notifyCalls.filter { $0.summary == Self.welcome }.count == shownBefore + 1 }
    }

    /// By default suppress lives in memory only, as in the SDKs: a restarted daemon shows actions again.
    @Test func suppressIsForgottenOnRestartByDefault() async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        try await setup.actions("suppress")
        setup.daemon.signal(SIGTERM)
        _ = await setup.daemon.waitForExit()
        let again = try await setup.restarted()
        defer { again.signal(SIGTERM) }
        #expect(try await setup.actions("list")["suppressed"] as? String == "false")
        try await setup.actions("view", "home")
        _ = try await setup.desktop.notifyCall(summary: Self.welcome)
        #expect(try await setup.events(named: "_message_suppressed").isEmpty)
    }

    // MARK: Only on the sending screen

    /// A limit-mode campaign answered after the person moved on (`view` between the event and the
    /// answer) is not shown: `_message_suppressed` with the display-limit reason. Without a view in
    /// between, it shows.
    @Test func aLimitModeActionShowsOnlyOnTheScreenThatSentTheEvent() async throws {
        let campaigns = """
            [{"id": "limited", "shorten_id": "lim1", "kind": "popup", "trigger": {"event_name": "buy"}, "limit_mode": true,
              "delay_ms": 1500, "title": "Thanks for buying", "body": "Only here", "links": []}]
            """
        let setup = try await Self.start(campaigns: campaigns)
        defer { setup.stop() }
        try await setup.actions("view", "a_page")
        try await setup.actions("track", "buy")
        try await Task.sleep(for: .milliseconds(400))
        try await setup.actions("view", "another")
        try await eventually("_message_suppressed") { try await !setup.events(named: "_message_suppressed").isEmpty }
        let event = try #require(try await setup.events(named: "_message_suppressed").first)
        #expect((event["values"] as? [String: Any])?["reason"] as? String == "The display is suppressed by native_app_display_limit_mode.")
        #expect(!setup.desktop.notifyCalls.contains { $0.summary == "Thanks for buying" })

        try await setup.actions("track", "buy")
        _ = try await setup.desktop.notifyCall(summary: "Thanks for buying")
    }
}
