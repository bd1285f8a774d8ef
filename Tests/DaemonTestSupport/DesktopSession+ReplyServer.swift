import Foundation
import Glibc
import TestSupport

// A notification server with a text field (inline-reply), as KDE Plasma and SwayNotificationCenter are:
// python-dbusmock's notification_daemon template, with the capabilities given as its parameter
// (protocols/field.md). Facts measured with python-dbusmock 0.38:
//   - GetCapabilities returns the list given; Notify returns 1, 2, … (or replaces_id when not 0) and shows
//     nothing; every call is in the mock's log (org.freedesktop.DBus.Mock.GetMethodCalls).
//   - CloseNotification is declared with an `i` argument, so a client's `u` call is refused: a close is
//     not seen as NotificationClosed here.
//   - Signals (NotificationReplied, ActionInvoked) come only through the mock's EmitSignal, broadcast.

extension DesktopSession {
    /// Replaces dunst with python-dbusmock's notification server advertising `capabilities`, and waits until
    /// it owns org.freedesktop.Notifications.
    package func startReplyServer(capabilities: [String] = ["body", "actions", "inline-reply"]) async throws {
        try await self.stopNotificationServer()
        let parameters = #"{"capabilities": "\#(capabilities.joined(separator: " "))"}"#
        let server = try FixtureProcess(
            "python-dbusmock notification server",
            Self.python,
            ["-m", "dbusmock", "--session", "--template", "notification_daemon", "--parameters", parameters],
            environment: self.toolEnvironment
        )
        self.children.add(server)
        let address = self.sessionBusAddress
        let tools = self.toolEnvironment
        try await eventually("the mock notification server to own org.freedesktop.Notifications", within: 60) {
            guard server.isRunning else { throw FixtureError("the mock notification server did not start: \(server.report)") }
            return try await Self.hasOwner("org.freedesktop.Notifications", address: address, environment: tools)
        }
    }

    /// The mock server emits NotificationReplied(id, text), as a server does when the person sends what
    /// they typed in a notification's text field.
    package func reply(to id: Int, _ text: String) async throws {
        try await Self.busctl(
            self.sessionBusAddress,
            self.toolEnvironment,
            [
                "call", "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.DBus.Mock", "EmitSignal",
                "sssav", "org.freedesktop.Notifications", "NotificationReplied", "us", "2", "u", "\(id)", "s", text,
            ]
        )
    }

    /// The mock server emits ActionInvoked(id, key), as a server does when the person presses one of the
    /// notification's buttons.
    package func invoke(_ key: String, on id: Int) async throws {
        try await Self.busctl(
            self.sessionBusAddress,
            self.toolEnvironment,
            [
                "call", "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.DBus.Mock", "EmitSignal",
                "sssav", "org.freedesktop.Notifications", "ActionInvoked", "us", "2", "u", "\(id)", "s", key,
            ]
        )
    }
}
