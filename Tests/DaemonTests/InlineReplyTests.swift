import DaemonTestSupport
import Foundation
import TestSupport
import Testing

/// Answering an agent from the notification, through the real daemon, with a notification server that has
/// a text field (python-dbusmock's, advertising inline-reply as KDE Plasma and SwayNotificationCenter do)
/// and the simulator's CXone gateway, whose agent answers each message with "You wrote: …".
@Suite(.serialized, .timeLimit(.minutes(3))) struct InlineReplyTests {
    @Test func aReplyTypedInTheNotificationReachesTheAgentOnce() async throws {
        let simulator = try await CXoneChatDaemonTests.Simulator(["--cxone-auto-reply"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        try await desktop.startReplyServer()
        let config = try scratch.write("attendant.toml", CXoneChatDaemonTests.configuration(simulator))
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("ready: chat listening"), "\(daemon.stderr)")
        try #require(await daemon.waitForLog("notification server present (actions, body, inline-reply)"), "\(daemon.stderr)")
        func ctl(_ arguments: [String]) async throws -> (Int32, String) {
            try await run(TokenDaemonTests.attendantctl, arguments, environment: desktop.toolEnvironment)
        }
        func gatewayTexts() async throws -> [String] {
            CXoneChatDaemonTests.gatewayTexts(try await CXoneChatDaemonTests.gatewayThreads(simulator).first)
        }

        await #expect(try ctl(["chat", "send", "Hello"]).0 == 0)
        let alert = try await desktop.notifyCall(summary: "New message from Ada Lovelace")
        #expect(alert.body.contains("You wrote: Hello"))
        #expect(alert.actions == [NotificationAction(key: "inline-reply", label: "Reply")])
        #expect(alert.hints["x-kde-reply-placeholder-text"]?.string == "Reply to Ada Lovelace")
        let id = try #require(alert.returnedID)

        // The server sends the reply twice (a double Enter): the agent hears it once.
        let text = "Typed in the notification"
        try await desktop.reply(to: id, text)
        try await desktop.reply(to: id, text)
        try #require(await daemon.waitForLog("a reply typed on notification \(id) matches no chat notification shown now; nothing sent"))
        try await eventually("the reply and the agent's answer at the gateway") { try await gatewayTexts().count >= 4 }
        #expect(try await gatewayTexts() == ["Hello", "You wrote: Hello", text, "You wrote: \(text)"])
        #expect(await daemon.waitForLog("a reply (\(text.count) characters) typed on the notification of thread chat/"))
        #expect(!daemon.stderr.contains(text), "the journal never holds what the person wrote")
        await CXoneChatDaemonTests.stop(daemon)
    }
}
