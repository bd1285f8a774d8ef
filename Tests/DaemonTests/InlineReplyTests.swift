import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// Answering an agent from the notification, through the real daemon, with a notification server that has
/// a text field (python-dbusmock's, advertising inline-reply as KDE Plasma and SwayNotificationCenter do)
/// and the simulator's CXone gateway, whose agent answers each message with "You wrote: …".
@Suite(.serialized, .timeLimit(.minutes(3))) struct InlineReplyTests {
    /// The daemon with the simulator's CXone chat, listening, on a desktop whose notification server
    /// advertises inline-reply.
    static func daemon(_ simulator: CXoneChatDaemonTests.Simulator, scratch: Scratch, desktop: DesktopSession) async throws -> DaemonProcess {
        let config = try scratch.write("attendant.toml", CXoneChatDaemonTests.configuration(simulator))
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("ready: chat listening"), "\(daemon.stderr)")
        try #require(await daemon.waitForLog("notification server present (actions, body, inline-reply)"), "\(daemon.stderr)")
        return daemon
    }

    @Test func aReplyTypedInTheNotificationReachesTheAgentOnce() async throws {
        let simulator = try await CXoneChatDaemonTests.Simulator(["--cxone-auto-reply"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        try await desktop.startReplyServer()
        let daemon = try await Self.daemon(simulator, scratch: scratch, desktop: desktop)
        func ctl(_ arguments: [String]) async throws -> (Int32, String) {
            try await run(TokenDaemonTests.attendantctl, arguments, environment: desktop.toolEnvironment)
        }
        func gatewayTexts() async throws -> [String] {
            CXoneChatDaemonTests.gatewayTexts(try await CXoneChatDaemonTests.gatewayThreads(simulator).first)
        }

        await #expect(try ctl(["chat", "send", "Hello"]).0 == 0)
        let alert = try await desktop.notifyCall(summary: "New message from Ada Lovelace")
        #expect(alert.body.contains("You wrote: Hello"))
        #expect(alert.actions == [NotificationAction(key: "default", label: "Open"), NotificationAction(key: "inline-reply", label: "Reply")])
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

    /// The agent's choices as the notification's buttons, through the same server: ActionInvoked on a quick
    /// reply's button answers with its postback, and the inactivity popup's notification is urgent. That
    /// popup answered with `attendantctl chat choose` closes its notification, though its answer never
    /// comes back as a message (the CXone SDK keeps it out of the thread).
    @Test func aChoiceButtonAnswersWithItsPostbackAndAPromptAnsweredElsewhereClosesItsNotification() async throws {
        let simulator = try await CXoneChatDaemonTests.Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        try await desktop.startReplyServer()
        let daemon = try await Self.daemon(simulator, scratch: scratch, desktop: desktop)
        func ctl(_ arguments: [String]) async throws -> (Int32, String) {
            try await run(TokenDaemonTests.attendantctl, arguments, environment: desktop.toolEnvironment)
        }
        func offered(_ label: String) async throws -> NotifyCall {
            var found: NotifyCall?
            try await eventually("a notification with the button \(label)") {
                found = desktop.notifyCalls.last { $0.replied && $0.actions.contains { $0.label == label } }
                return found != nil
            }
            return try #require(found)
        }

        await #expect(try ctl(["chat", "send", "Hello"]).0 == 0)
        try await eventually("the thread at the gateway") { try await CXoneChatDaemonTests.gatewayThreads(simulator).count == 1 }
        let thread = try #require(try await CXoneChatDaemonTests.gatewayThreads(simulator).first?["id"] as? String)

        _ = try await simulator.control("POST", "/control/cxone/rich?thread=\(thread)&kind=quick-replies")
        let replies = try await offered("Delivery")
        #expect(replies.actions.prefix(2).map(\.label) == ["Billing", "Delivery"], "\(replies.actions)")
        let delivery = try #require(replies.actions.first { $0.label == "Delivery" })
        try await desktop.invoke(delivery.key, on: try #require(replies.returnedID))
        try await eventually("the chosen reply at the gateway") {
            try await CXoneChatDaemonTests.gatewayMessages(simulator).last?["text"] as? String == "Delivery"
        }
        #expect(try await CXoneChatDaemonTests.gatewayMessages(simulator).last?["postback"] as? String == #"{"topic":"delivery"}"#)

        let popup = try await CXoneChatDaemonTests.offer(simulator, thread: thread, kind: "inactivity-popup")
        let prompt = try await offered("I'm still here")
        #expect(prompt.urgency == 2, "an unanswered popup is critical: \(prompt.hints)")
        let promptID = try #require(prompt.returnedID)
        let closesBefore = desktop.sessionBus.calls("CloseNotification").filter { $0.arguments.first?.int == promptID }.count
        let (status, output) = try await ctl(["chat", "choose", popup, "refresh"])
        #expect(status == 0, "\(output)")
        try await eventually("the popup's answer at the gateway") {
            try await CXoneChatDaemonTests.gatewayMessages(simulator).last?["inactivity_popup_answer"] as? Bool == true
        }
        try await eventually("the popup's notification closed") {
            desktop.sessionBus.calls("CloseNotification").filter { $0.arguments.first?.int == promptID }.count > closesBefore
        }
        await CXoneChatDaemonTests.stop(daemon)
    }
}

/// Opening the conversation from a chat notification with dunst, which has no text field: its Reply button
/// runs `[alerts] terminal` (here a stand-in that records what it was asked to run) with
/// `attendantctl chat talk` for the thread.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ConversationFromTheNotificationTests {
    @Test func replyOnADunstNotificationOpensTheConversationInTheConfiguredTerminal() async throws {
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let terminal = try scratch.write("terminal", "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"\(scratch.path)/terminal.args\"\n")
        chmod(terminal, 0o755)
        let config = try scratch.write(
            "attendant.toml",
            """
            [alerts]
            terminal = ["\(terminal)"]

            [[channel]]
            name = "desk"
            plugin = "loopback"
            [channel.loopback]
            contact-kind = "chat"
            echo-agent = true
            """
        )
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("ready: desk listening"), "\(daemon.stderr)")
        try #require(await daemon.waitForLog("notification server present"), "\(daemon.stderr)")
        for command in [["prepare"], ["connect"], ["create"], ["send", "Hello"]] {
            let (status, output) = try await run(TokenDaemonTests.attendantctl, ["chat"] + command, environment: desktop.toolEnvironment)
            try #require(status == 0, "chat \(command): \(output)")
        }
        let alert = try await desktop.notifyCall(summary: "New message from Loopback Agent")
        #expect(alert.actions == [NotificationAction(key: "default", label: "Open"), NotificationAction(key: "talk", label: "Reply")])

        try await desktop.invokeAction(label: "Reply")
        try #require(await daemon.waitForLog("opened the conversation of thread thread-1 with \(terminal)"), "\(daemon.stderr)")
        let arguments = try String(contentsOfFile: scratch.path + "/terminal.args", encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(arguments == [BuildProducts.directory + "/attendantctl", "chat", "talk", "--channel", "desk", "--thread", "thread-1"])
        await CXoneChatDaemonTests.stop(daemon)
    }
}
