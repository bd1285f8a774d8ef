import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// The desktop fixture checked with off-the-shelf clients only (notify-send, busctl, dbus-monitor, python's
/// dbus), so the daemon's desktop tests can trust what it reports.
@Suite(.serialized) struct DesktopSessionTests {
    /// notify-send in the fixture's desktop; `--wait`-like runs (with actions) stay until closed or invoked.
    static func notifySend(_ session: DesktopSession, _ arguments: [String]) throws -> FixtureProcess {
        try FixtureProcess("notify-send", "notify-send", arguments, environment: session.toolEnvironment)
    }

    @Test func actionsUrgencyAndHintsReachDunstAndAnActionIsInvokedThroughItsContextMenu() async throws {
        let session = try await DesktopSession()
        let client = try Self.notifySend(
            session,
            [
                "--action=accept=Accept", "--action=decline=Decline", "--urgency=critical", "--app-name=attendant-selftest",
                "--hint=string:sound-name:phone-incoming-call", "Incoming call", "Grace Hopper",
            ]
        )

        // What dunst printed (-print): urgency and actions, which its history lacks.
        try await eventually("dunst to print the call") { session.printed.contains { $0.summary == "Incoming call" } }
        let printed = try #require(session.printed.first { $0.summary == "Incoming call" })
        #expect(printed.server == 1)
        #expect(printed.appname == "attendant-selftest")
        #expect(printed.body == "Grace Hopper")
        #expect(printed.urgency == "CRITICAL")
        #expect(printed.timeout == 0)
        #expect(Set(printed.actions) == [NotificationAction(key: "accept", label: "Accept"), NotificationAction(key: "decline", label: "Decline")])
        #expect(printed.formatted == "<b>Incoming call</b>\nGrace Hopper")
        #expect(printed.fields["sound-name"] == nil, "dunst -print shows no sound-name: \(printed.fields)")

        // What the client sent, read from the bus: the hints dunst does not show, and the id it returned.
        let call = try await session.notifyCall(summary: "Incoming call")
        #expect(call.appName == "attendant-selftest")
        #expect(call.actions == [NotificationAction(key: "accept", label: "Accept"), NotificationAction(key: "decline", label: "Decline")])
        #expect(call.urgency == 2)
        #expect(call.hints["sound-name"] == .string("phone-incoming-call"))
        #expect(call.replacesID == 0)
        #expect(call.returnedID == printed.id)

        // On screen, not yet in the history.
        #expect(try await session.displayedCount() == 1)
        #expect(try await session.displayed().map(\.id) == [printed.id])
        #expect(try await session.history().isEmpty)

        // Accept through dunst's own context menu: dunst emits ActionInvoked, notify-send prints the key.
        let invoked = try await session.invokeAction(label: "Accept")
        #expect(invoked.notificationID == printed.id)
        #expect(invoked.key == "accept")
        #expect(Set(invoked.menu) == ["#Accept (Incoming call) [\(printed.id),accept]", "#Decline (Incoming call) [\(printed.id),decline]"])
        let status = await client.waitForExit()
        #expect(status == 0, "notify-send: \(client.report)")
        #expect(client.stdout == "accept\n")

        // dunst only signalled the action; notify-send then closed the notification (reason 3: closed by a
        // CloseNotification call), so now it is history (without urgency or actions).
        let closed = try await session.sessionBus.waitFor("NotificationClosed(\(printed.id))") {
            $0.type == "signal" && $0.member == "NotificationClosed" && $0.arguments.first?.int == printed.id
        }
        #expect(closed.arguments.last?.int == 3)
        #expect(session.sessionBus.calls("CloseNotification").map { $0.arguments.first?.int } == [printed.id])
        #expect(closed.destination == call.sender)
        #expect(session.sessionBus.signals("ActionInvoked").first?.destination == call.sender)
        #expect(try await session.displayedCount() == 0)
        let entry = try #require(try await session.history().first)
        #expect(entry.id == printed.id)
        #expect(entry.summary == "Incoming call")
        #expect(entry.body == "Grace Hopper")
        #expect(entry.appname == "attendant-selftest")
        #expect(entry.message == "<b>Incoming call</b>\nGrace Hopper")
        #expect(entry.fields["urgency"] == nil && entry.fields["actions"] == nil, "history fields: \(entry.fields.keys.sorted())")
        #expect(
            Set(entry.fields.keys)
                == [
                    "body", "message", "summary", "appname", "category", "default_action_name", "icon_path", "id", "timestamp", "timeout", "progress",
                ]
        )
    }

    @Test func theContextMenuChoosesByLabelAndNotificationAndCancelsWhenTheLabelIsMissing() async throws {
        let session = try await DesktopSession()
        let first = try Self.notifySend(session, ["--action=open=Open", "First", "one"])
        try await eventually("the first notification") { session.printed.count == 1 }
        let second = try Self.notifySend(session, ["--action=open=Open", "Second", "two"])
        try await eventually("the second notification") { session.printed.count == 2 }
        let ids = session.printed.map(\.id)

        // No such label: the picker prints nothing, dunst invokes nothing.
        await #expect(throws: FixtureError.self) { try await session.invokeAction(label: "Accept") }
        #expect(session.contextMenus.last?.chosen == nil)
        #expect(try await session.displayedCount() == 2)

        // Without an id, the newest notification's; with one, that notification's.
        let newest = try await session.invokeAction(label: "Open")
        #expect(newest.notificationID == ids[1])
        #expect(await second.waitForExit() == 0)
        #expect(second.stdout == "open\n")
        #expect(first.isRunning)
        let older = try await session.invokeAction(label: "Open", notification: ids[0])
        #expect(older.notificationID == ids[0])
        #expect(await first.waitForExit() == 0)
        #expect(first.stdout == "open\n")
    }

    @Test func markupIsRenderedUnlessEscaped() async throws {
        let session = try await DesktopSession()
        for (summary, body) in [
            ("Tags", "<b>x</b> &amp;"),
            ("Escaped", "&lt;b&gt;x&lt;/b&gt; &amp;amp;"),
            ("Ampersand", "Tom & Jerry"),
            ("Unclosed", "<b>open"),
        ] {
            let client = try Self.notifySend(session, ["--app-name=markup", summary, body])
            #expect(await client.waitForExit() == 0, "notify-send: \(client.report)")
        }
        try await eventually("dunst to print four notifications") { session.printed.count == 4 }
        // dunst logs a Pango error once it tried to render the unclosed tag.
        try await eventually("dunst to reject the unclosed tag") { session.notificationServerStderr.contains("Unable to parse markup") }
        try await session.closeAll()
        let history = Dictionary(uniqueKeysWithValues: try await session.history().map { ($0.summary, $0) })

        // Tags are rendered: the user sees "x &" (bold x).
        let tags = try #require(history["Tags"])
        #expect(tags.body == "<b>x</b> &amp;")
        #expect(tags.message == "<b>Tags</b>\n<b>x</b> &amp;")
        #expect(try await session.shownText(tags.message) == "Tags\nx &")

        // Escaped markup shows literally: what an escaping daemon sends for a body "<b>x</b> &amp;".
        let escaped = try #require(history["Escaped"])
        #expect(try await session.shownText(escaped.message) == "Escaped\n<b>x</b> &amp;")

        // dunst escapes a lone & itself.
        let ampersand = try #require(history["Ampersand"])
        #expect(ampersand.body == "Tom & Jerry")
        #expect(ampersand.message == "<b>Ampersand</b>\nTom &amp; Jerry")
        #expect(try await session.shownText(ampersand.message) == "Ampersand\nTom & Jerry")

        // An unclosed tag is kept, Pango rejects it (dunst then shows the text with tags stripped).
        let unclosed = try #require(history["Unclosed"])
        #expect(unclosed.message == "<b>Unclosed</b>\n<b>open")
        await #expect(throws: FixtureError.self) { try await session.shownText(unclosed.message) }

        // -print shows the same formatted text.
        #expect(session.printed.first { $0.summary == "Ampersand" }?.formatted == "<b>Ampersand</b>\nTom &amp; Jerry")
    }

    @Test func dunstStopsAndStartsAgain() async throws {
        let session = try await DesktopSession()
        let before = try Self.notifySend(session, ["Before", "the restart"])
        #expect(await before.waitForExit() == 0, "notify-send: \(before.report)")
        try await eventually("dunst to print it") { session.printed.count == 1 }

        try await session.stopNotificationServer()
        #expect(!session.notificationServerRunning)
        // No notification server: nothing is activated in its place (the private bus has no services).
        let refused = try Self.notifySend(session, ["While", "stopped"])
        let status = await refused.waitForExit()
        #expect(status != 0 && status != nil, "notify-send should fail without a server: \(refused.report)")
        #expect(refused.stderr.contains("org.freedesktop.Notifications"), "\(refused.stderr)")

        try await session.startNotificationServer()
        #expect(session.notificationServerRunning)
        let after = try Self.notifySend(session, ["After", "the restart"])
        #expect(await after.waitForExit() == 0, "notify-send: \(after.report)")
        try await eventually("the new dunst to print it") { session.printed.contains { $0.summary == "After" } }
        #expect(session.printed.map(\.server) == [1, 2])
        // A new dunst counts ids from the beginning again.
        #expect(session.printed.map(\.id)[0] == session.printed.map(\.id)[1])
        #expect(try await session.displayed().map(\.summary) == ["After"])
        #expect(try await session.history().isEmpty)
    }

    @Test func twoDesktopsRunSideBySide() async throws {
        let first = try await DesktopSession()
        let second = try await DesktopSession()
        #expect(first.display != second.display)
        #expect(first.sessionBusAddress != second.sessionBusAddress)
        #expect(first.systemBusAddress != second.systemBusAddress)
        let client = try Self.notifySend(second, ["Only", "on the second"])
        #expect(await client.waitForExit() == 0, "notify-send: \(client.report)")
        try await eventually("the second dunst to print it") { second.printed.count == 1 }
        #expect(first.printed.isEmpty)
        let directory = first.directory
        first.stop()
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test func theDaemonFindsItsSessionByIDOrByPID() async throws {
        let session = try await DesktopSession()
        #expect(session.environment["XDG_SESSION_ID"] == session.sessionID)
        let address = "--address=" + session.systemBusAddress
        let byID = try await runTool(
            "busctl",
            [
                address, "call", "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "GetSession", "s",
                session.sessionID,
            ],
            environment: session.toolEnvironment
        )
        #expect(byID.stdout == "o \"\(session.sessionPath)\"\n", "\(byID)")
        let byPID = try await runTool(
            "busctl",
            [
                address, "call", "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "GetSessionByPID", "u",
                "\(getpid())",
            ],
            environment: session.toolEnvironment
        )
        #expect(byPID.stdout == "o \"\(session.sessionPath)\"\n", "\(byPID)")
        let sessions = try await runTool(
            "busctl",
            [address, "call", "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "ListSessions"],
            environment: session.toolEnvironment
        )
        #expect(sessions.stdout.hasPrefix("a(susso) 1 \"\(session.sessionID)\" \(getuid()) "), "\(sessions)")
        let display = try await runTool(
            "busctl",
            [address, "get-property", "org.freedesktop.login1", session.sessionPath, "org.freedesktop.login1.Session", "Display"],
            environment: session.toolEnvironment
        )
        #expect(display.stdout == "s \"\(session.display)\"\n", "\(display)")
    }

    @Test func prepareForSleepLockAndUnlockAreSignalledOnTheSystemBus() async throws {
        let session = try await DesktopSession()
        let monitor = try await session.monitorSystemBus()
        // An independent observer: dbus-monitor. Becoming a monitor costs it its name, and the NameLost
        // signal is the first thing it prints: from then on it sees everything.
        let dbusMonitor = try FixtureProcess(
            "dbus-monitor",
            "dbus-monitor",
            ["--address", session.systemBusAddress, "type='signal'"],
            environment: session.toolEnvironment
        )
        try await eventually("dbus-monitor to start") { dbusMonitor.stdout.contains("member=NameLost") }

        try await session.prepareForSleep(true)
        try await session.lock()
        try await session.unlock()
        try await session.prepareForSleep(false)

        let expected = ["PrepareForSleep true", "Lock", "Unlock", "PrepareForSleep false"]
        func seen() -> [String] {
            monitor.messages.filter { $0.type == "signal" && ["PrepareForSleep", "Lock", "Unlock"].contains($0.member ?? "") }.map {
                ([$0.member ?? ""] + $0.arguments.map { $0.bool.map(String.init) ?? "\($0)" }).joined(separator: " ")
            }
        }
        try await eventually("the four signals") { seen().count == 4 }
        #expect(seen() == expected)
        let sleep = monitor.signals("PrepareForSleep")
        #expect(sleep.allSatisfy { $0.path == "/org/freedesktop/login1" && $0.interface == "org.freedesktop.login1.Manager" && $0.signature == "b" })
        let locks = monitor.signals("Lock") + monitor.signals("Unlock")
        #expect(locks.allSatisfy { $0.path == session.sessionPath && $0.interface == "org.freedesktop.login1.Session" && $0.signature == "" })
        // Sent by the owner of org.freedesktop.login1 (what a match on sender='org.freedesktop.login1' needs).
        let owner = try await runTool(
            "busctl",
            ["--address=" + session.systemBusAddress, "status", "org.freedesktop.login1"],
            environment: session.toolEnvironment
        )
        let unique = try #require(sleep.first?.sender)
        #expect(owner.stdout.contains("UniqueName=\(unique)"), "\(owner.stdout)")

        try await eventually("dbus-monitor to see the last PrepareForSleep") {
            dbusMonitor.stdout.components(separatedBy: "member=PrepareForSleep").count == 3
        }
        let text = dbusMonitor.stdout
        #expect(text.contains("path=/org/freedesktop/login1; interface=org.freedesktop.login1.Manager; member=PrepareForSleep\n   boolean true"))
        #expect(text.contains("path=/org/freedesktop/login1; interface=org.freedesktop.login1.Manager; member=PrepareForSleep\n   boolean false"))
        #expect(text.contains("path=\(session.sessionPath); interface=org.freedesktop.login1.Session; member=Lock"))
        #expect(text.contains("path=\(session.sessionPath); interface=org.freedesktop.login1.Session; member=Unlock"))
        await dbusMonitor.terminate()

        // The property follows the signal.
        let preparing = try await runTool(
            "busctl",
            [
                "--address=" + session.systemBusAddress, "get-property", "org.freedesktop.login1", "/org/freedesktop/login1",
                "org.freedesktop.login1.Manager", "PreparingForSleep",
            ],
            environment: session.toolEnvironment
        )
        #expect(preparing.stdout == "b false\n")
    }

    @Test func inhibitorLocksAreListedWhileHeld() async throws {
        let session = try await DesktopSession()
        #expect(try await session.inhibitors().isEmpty)

        // A client that holds a delay lock until told to close its fd, and stays running after that.
        let holder = try FixtureProcess(
            "inhibitor",
            DesktopSession.python,
            [
                "-c",
                """
                import dbus, os, sys
                manager = dbus.Interface(dbus.SystemBus().get_object("org.freedesktop.login1", "/org/freedesktop/login1"), "org.freedesktop.login1.Manager")
                fd = manager.Inhibit("sleep", "attendant-selftest", "sending disconnects", "delay").take()
                print("held", flush=True)
                sys.stdin.readline()
                os.close(fd)
                print("released", flush=True)
                sys.stdin.read()
                """,
            ],
            environment: session.toolEnvironment,
            withInput: true
        )
        try await eventually("the lock to be taken") {
            guard holder.isRunning || holder.stdout.contains("held") else { throw FixtureError("inhibitor client: \(holder.report)") }
            return holder.stdout.contains("held")
        }
        #expect(
            try await session.inhibitors() == [
                Inhibitor(what: "sleep", who: "attendant-selftest", why: "sending disconnects", mode: "delay", uid: 1000, pid: 123456)
            ]
        )

        holder.write("\n")
        try await eventually("the client to close its fd") { holder.stdout.contains("released") }
        try await eventually("the lock to go") { try await session.inhibitors().isEmpty }
        #expect(holder.isRunning)
        holder.closeInput()
        #expect(await holder.waitForExit() == 0, "inhibitor client: \(holder.report)")

        // busctl closes the fd as it exits: the lock comes and goes, the call log keeps it.
        let call = try await runTool(
            "busctl",
            [
                "--address=" + session.systemBusAddress, "call", "org.freedesktop.login1", "/org/freedesktop/login1",
                "org.freedesktop.login1.Manager", "Inhibit", "ssss", "sleep", "busctl", "test", "delay",
            ],
            environment: session.toolEnvironment
        )
        #expect(call.status == 0, "\(call)")
        #expect(call.stdout.hasPrefix("h "))
        try await eventually("busctl's lock to go") { try await session.inhibitors().isEmpty }
        #expect(
            try await session.logindCalls("Inhibit") == [
                [.string("sleep"), .string("attendant-selftest"), .string("sending disconnects"), .string("delay")],
                [.string("sleep"), .string("busctl"), .string("test"), .string("delay")],
            ]
        )
    }
}
