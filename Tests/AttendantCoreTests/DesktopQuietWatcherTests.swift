import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation
import Systemd
import TestSupport
import Testing

/// Issue 30 part 5: the desktop's own do-not-disturb is followed. Each source against the real part where
/// it runs here (dunst, dconf with gsettings) and a python-dbusmock object where it cannot (plasmashell,
/// SwayNotificationCenter), on a private bus (QuietDesktopFixture.swift).
@Suite(.timeLimit(.minutes(2))) struct DesktopQuietWatcherTests {
    struct Report: Sendable, Equatable, CustomStringConvertible {
        var quiet: Bool
        var source: String
        var description: String { "\(self.source): \(self.quiet ? "quiet" : "not quiet")" }
    }

    /// A watcher running on `desktop`'s bus until the returned task is cancelled.
    final class Watching {
        let reports = Recorder<Report>()
        let records = LogRecords()
        let task: Task<Void, Never>

        init(_ desktop: QuietDesktop, environment: [String: String]? = nil) async throws {
            let connection = try await desktop.connect()
            let records = self.records
            var logger = Logger(label: "attendant.test") { _ in RecordingLogHandler(records: records) }
            logger.logLevel = .trace
            let watcher = DesktopQuietWatcher(connection: connection, logger: logger, environment: environment ?? desktop.environment)
            let reports = self.reports
            self.task = Task {
                await watcher.run { quiet, source in reports.add(Report(quiet: quiet, source: source)) }
                await connection.close()
            }
        }

        func next() async throws -> Report { try await self.reports.next(within: 60) }

        /// Waits (bounded) for a log message containing `text`.
        func logged(_ text: String) async throws {
            try await eventually("a log message with \(text.debugDescription); logged:\n\(self.records.text)") {
                self.records.all.contains { $0.message.contains(text) }
            }
        }

        var warnings: [String] { self.records.all.filter { $0.level >= .warning }.map(\.message) }

        /// Cancels the watcher and waits until `run` returned.
        func stop() async {
            self.task.cancel()
            await self.task.value
        }

        deinit { self.task.cancel() }
    }

    // MARK: dunst

    /// `dunstctl set-paused true|false` (Properties.Set of org.dunstproject.cmd0's `paused`): dunst 1.9
    /// sends PropertiesChanged, and the watcher reports each change; dunst leaving the bus while paused
    /// ends the quiet.
    @Test func dunstsPauseIsFollowed() async throws {
        let desktop = try await QuietDesktop()
        let dunst = try await desktop.startDunst()
        let watching = try await Watching(desktop)
        #expect(try await watching.next() == Report(quiet: false, source: "dunst"))

        try await desktop.run("dunstctl", "set-paused", "true")
        #expect(try await watching.next() == Report(quiet: true, source: "dunst"))
        try await desktop.run("dunstctl", "set-paused", "false")
        #expect(try await watching.next() == Report(quiet: false, source: "dunst"))
        try await desktop.run("dunstctl", "set-paused", "toggle")
        #expect(try await watching.next() == Report(quiet: true, source: "dunst"))

        try await desktop.stop(dunst, owning: "org.freedesktop.Notifications")
        #expect(try await watching.next() == Report(quiet: false, source: "dunst"))
        // dunst has no `Inhibited`: Plasma's source is not followed, and says so only at debug level.
        try await watching.logged("KDE Plasma's do-not-disturb is not followed")
        await watching.stop()
        #expect(watching.reports.all.allSatisfy { $0.source == "dunst" }, "\(watching.reports.all)")
        #expect(watching.warnings.isEmpty)
    }

    // MARK: KDE Plasma

    /// plasmashell's `Inhibited` property on org.freedesktop.Notifications, with the PropertiesChanged that
    /// plasma-workspace sends (a dbusmock object: UpdateProperties sets it and sends the signal).
    @Test func plasmasInhibitedIsFollowed() async throws {
        let desktop = try await QuietDesktop()
        let server = try await desktop.startMock(
            "org.freedesktop.Notifications",
            path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.Notifications"
        )
        try await desktop.busctl(
            "call",
            "org.freedesktop.Notifications",
            "/org/freedesktop/Notifications",
            "org.freedesktop.DBus.Mock",
            "AddProperty",
            "ssv",
            "org.freedesktop.Notifications",
            "Inhibited",
            "b",
            "true"
        )
        let watching = try await Watching(desktop)
        #expect(try await watching.next() == Report(quiet: true, source: "KDE Plasma"))

        for inhibited in [false, true] {
            try await desktop.busctl(
                "call",
                "org.freedesktop.Notifications",
                "/org/freedesktop/Notifications",
                "org.freedesktop.DBus.Mock",
                "UpdateProperties",
                "sa{sv}",
                "org.freedesktop.Notifications",
                "1",
                "Inhibited",
                "b",
                "\(inhibited)"
            )
            #expect(try await watching.next() == Report(quiet: inhibited, source: "KDE Plasma"))
        }

        try await desktop.stop(server, owning: "org.freedesktop.Notifications")
        #expect(try await watching.next() == Report(quiet: false, source: "KDE Plasma"))
        await watching.stop()
        #expect(watching.reports.all.allSatisfy { $0.source == "KDE Plasma" }, "\(watching.reports.all)")
        #expect(watching.warnings.isEmpty)
    }

    // MARK: SwayNotificationCenter

    /// SwayNotificationCenter's control center: `GetDnd`, and on each change `Subscribe(u, b dnd, b)`
    /// (0.7.3) or `SubscribeV2(u, b dnd, b, b)` (0.8 and later), as `swaync-client --dnd-on` causes them
    /// (`SetDnd` on the mock sets the state and sends the signal, as swaync's `on_dnd_toggle` does).
    @Test(arguments: [("Subscribe", "ubb", "[0, args[0], False]"), ("SubscribeV2", "ubbb", "[0, args[0], False, False]")])
    func swayncsDoNotDisturbIsFollowed(signal: String, signature: String, arguments: String) async throws {
        let desktop = try await QuietDesktop()
        let interface = "org.erikreider.swaync.cc"
        let path = "/org/erikreider/swaync/cc"
        try await desktop.startMock(interface, path: path, interface: interface)
        try await desktop.busctl(
            "call",
            interface,
            path,
            "org.freedesktop.DBus.Mock",
            "AddMethod",
            "sssss",
            interface,
            "GetDnd",
            "",
            "b",
            "ret = getattr(self, 'dnd', False)"
        )
        try await desktop.busctl(
            "call",
            interface,
            path,
            "org.freedesktop.DBus.Mock",
            "AddMethod",
            "sssss",
            interface,
            "SetDnd",
            "b",
            "",
            "self.dnd = args[0]; self.EmitSignal('\(interface)', '\(signal)', '\(signature)', \(arguments))"
        )
        try await desktop.busctl("call", interface, path, interface, "SetDnd", "b", "true")
        let watching = try await Watching(desktop)
        #expect(try await watching.next() == Report(quiet: true, source: "SwayNotificationCenter"))

        for dnd in [false, true, false] {
            try await desktop.busctl("call", interface, path, interface, "SetDnd", "b", "\(dnd)")
            #expect(try await watching.next() == Report(quiet: dnd, source: "SwayNotificationCenter"))
        }
        await watching.stop()
        #expect(watching.reports.all.count == 4, "\(watching.reports.all)")
        #expect(watching.warnings.isEmpty)
    }

    // MARK: GNOME

    /// GNOME's `show-banners` through real dconf: `gsettings set` writes through dconf-service, whose
    /// Notify makes the watcher read the key again; a reset of the schema's folder is seen too.
    @Test func gnomesShowBannersIsFollowed() async throws {
        let desktop = try await QuietDesktop()
        try await desktop.startDconf()
        var environment = desktop.environment
        environment["XDG_CURRENT_DESKTOP"] = "ubuntu:GNOME"
        let watching = try await Watching(desktop, environment: environment)
        #expect(try await watching.next() == Report(quiet: false, source: "GNOME"))

        try await desktop.run("gsettings", "set", "org.gnome.desktop.notifications", "show-banners", "false")
        #expect(try await watching.next() == Report(quiet: true, source: "GNOME"))
        try await desktop.run("gsettings", "set", "org.gnome.desktop.notifications", "show-banners", "true")
        #expect(try await watching.next() == Report(quiet: false, source: "GNOME"))
        try await desktop.run("gsettings", "set", "org.gnome.desktop.notifications", "show-banners", "false")
        #expect(try await watching.next() == Report(quiet: true, source: "GNOME"))
        try await desktop.run("gsettings", "reset-recursively", "org.gnome.desktop.notifications")
        #expect(try await watching.next() == Report(quiet: false, source: "GNOME"))
        await watching.stop()
        #expect(watching.reports.all.count == 5, "\(watching.reports.all)")
        #expect(watching.warnings.isEmpty)
    }

    // MARK: Absent sources

    /// Nothing on the bus, then a notification server with neither `Inhibited` nor `paused`; not a GNOME
    /// session; and a GNOME session without the schema: nothing is reported and nothing warned about.
    @Test func absentSourcesAreNotFollowed() async throws {
        let desktop = try await QuietDesktop()
        let watching = try await Watching(desktop)
        try await watching.logged("GNOME's do-not-disturb is not followed: not a GNOME session")
        try await desktop.startMock(
            "org.freedesktop.Notifications",
            path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.Notifications"
        )
        try await watching.logged("KDE Plasma's do-not-disturb is not followed")
        try await watching.logged("dunst's do-not-disturb is not followed")

        try FileManager.default.createDirectory(atPath: desktop.folder + "/no-schemas", withIntermediateDirectories: true)
        var environment = desktop.environment
        environment["XDG_CURRENT_DESKTOP"] = "GNOME"
        environment["XDG_DATA_DIRS"] = desktop.folder + "/no-schemas"
        let gnome = try await Watching(desktop, environment: environment)
        try await gnome.logged("GNOME's do-not-disturb is not followed: gsettings get org.gnome.desktop.notifications show-banners failed")

        await watching.stop()
        await gnome.stop()
        #expect(watching.reports.all.isEmpty && gnome.reports.all.isEmpty, "\(watching.reports.all) \(gnome.reports.all)")
        #expect(watching.warnings.isEmpty && gnome.warnings.isEmpty, "\(watching.warnings) \(gnome.warnings)")
    }
}
