import DaemonTestSupport
import Foundation
import GRDB
import Glibc
import TestSupport
import Testing

/// The real daemon with real desktop parts: dunst under Xvfb on a private session bus, python-dbusmock's
/// logind on a private system bus (see DesktopSession).
@Suite(.serialized) struct DesktopAlertTests {
    /// Channel "desk" calls from `caller` every `interval`, each ringing for `ringTimeout`; channel "second"
    /// calls from Grace Hopper every `secondInterval`, each ringing until it is answered or declined.
    static func configuration(
        interval: String = "1h",
        ringTimeout: String = "1h",
        caller: String = "Ada Lovelace",
        address: String = "sip:ada@example.org",
        secondInterval: String = "1h",
        session: String = ""
    ) -> String {
        """
        [[channel]]
        name = "desk"
        plugin = "loopback"
        [channel.loopback]
        contact-interval = "\(interval)"
        ring-timeout = "\(ringTimeout)"
        caller = "\(caller)"
        caller-address = "\(address)"

        [[channel]]
        name = "second"
        plugin = "loopback"
        [channel.loopback]
        contact-interval = "\(secondInterval)"
        ring-timeout = "1h"
        caller = "Grace Hopper"
        \(session)
        """
    }

    static func start(_ scratch: Scratch, _ desktop: DesktopSession, configuration: String) async throws -> DaemonProcess {
        let config = try scratch.write("attendant.toml", configuration)
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("ready: 2 channels listening"), "daemon did not start:\n\(daemon.stderr)")
        try #require(await daemon.waitForLog("notification server present"), "no notification server seen:\n\(daemon.stderr)")
        return daemon
    }

    static func channelValue(_ scratch: Scratch, channel: String, key: String) throws -> String? {
        let queue = try DatabaseQueue(path: scratch.path + "/state/attendant/state.sqlite")
        return try queue.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM channel_value WHERE channel = ? AND key = ?", arguments: [channel, key])
        }
    }

    static func outcome(_ scratch: Scratch, contact: String, channel: String = "desk") throws -> String? {
        let queue = try DatabaseQueue(path: scratch.path + "/state/attendant/state.sqlite")
        return try queue.read { db in
            try String.fetchOne(db, sql: "SELECT outcome FROM contact WHERE channel = ? AND id = ?", arguments: [channel, contact])
        }
    }

    @Test func aCallRingsInDunstAcceptReachesTheChannelAndTheEndClosesIt() async throws {
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.start(
            scratch,
            desktop,
            configuration: Self.configuration(interval: "300ms", caller: "Ada Lovelace", address: "sip:<b>ada</b>&co@example.org")
        )

        // The first call, as dunst shows it: summary, escaped body, critical, no expiry, Accept/Decline.
        try await eventually("dunst to show the first call") { desktop.printed.contains { $0.summary == "Incoming call from Ada Lovelace" } }
        let shown = try #require(desktop.printed.first { $0.summary == "Incoming call from Ada Lovelace" })
        #expect(shown.appname == "Attendant")
        #expect(shown.urgency == "CRITICAL")
        #expect(shown.timeout == 0)
        #expect(Set(shown.actions.map(\.label)) == ["Accept", "Decline"])
        #expect(shown.category == "call.incoming")
        // The remote party's markup shows literally.
        let text = try await desktop.shownText(shown.formatted)
        #expect(text.contains("sip:<b>ada</b>&co@example.org"), "dunst draws: \(text)")
        #expect(text.contains("Channel: desk"))
        // The hints dunst does not print, read from the bus.
        let call = try await desktop.notifyCall(summary: "Incoming call from Ada Lovelace")
        #expect(call.urgency == 2)
        #expect(call.hints["sound-name"] == .string("phone-incoming-call"))

        // Stop ringing new calls, then Accept the first one through dunst's own menu.
        let invoked = try await desktop.invokeAction(label: "Accept", notification: shown.id)
        #expect(invoked.key == "accept")
        try await eventually("the channel to record the call as answered") { try Self.outcome(scratch, contact: "loopback-1") == "answered" }
        #expect(await daemon.waitForLog("[desk] contact ended: answered contact=loopback-1"))

        // The contact's end closed its notification (CloseNotification → NotificationClosed reason 3).
        let closed = try await desktop.sessionBus.waitFor("NotificationClosed(\(shown.id))") {
            $0.type == "signal" && $0.member == "NotificationClosed" && $0.arguments.first?.int == shown.id
        }
        #expect(closed.arguments.last?.int == 3)

        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }

    @Test func aMissedCallIsAnnouncedAndDeclineWorks() async throws {
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.start(
            scratch,
            desktop,
            configuration: Self.configuration(interval: "500ms", ringTimeout: "1500ms", secondInterval: "500ms")
        )
        try await eventually("the first call") { desktop.printed.contains { $0.summary == "Incoming call from Ada Lovelace" } }
        let first = try #require(desktop.printed.first { $0.summary == "Incoming call from Ada Lovelace" })
        // Nobody answers: the ring times out, the call's notification closes, a missed-call notice follows.
        try await eventually("a missed-call notice") { desktop.printed.contains { $0.summary == "Missed call from Ada Lovelace" } }
        let missed = try #require(desktop.printed.first { $0.summary == "Missed call from Ada Lovelace" })
        #expect(missed.urgency == "NORMAL")
        #expect(missed.actions.isEmpty)
        #expect(try Self.outcome(scratch, contact: "loopback-1") == "missed")
        _ = first

        // A call declined through dunst: one of the second channel's, which ring until someone acts (a call
        // of the first rings 1.5 s, and on a busy machine could end missed before the Decline reaches it).
        try await eventually("a call from Grace Hopper") { desktop.printed.contains { $0.summary == "Incoming call from Grace Hopper" } }
        let later = try #require(desktop.printed.last { $0.summary == "Incoming call from Grace Hopper" })
        let number = later.formatted.components(separatedBy: "Loopback call number ").last?.prefix { $0.isNumber } ?? ""
        try await desktop.invokeAction(label: "Decline", notification: later.id)
        try await eventually("the later call declined") { try Self.outcome(scratch, contact: "loopback-\(number)", channel: "second") == "declined" }
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }

    @Test func dunstStoppedAndStartedAgainLosesNoContact() async throws {
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.start(scratch, desktop, configuration: Self.configuration(interval: "400ms", ringTimeout: "200ms"))
        try await eventually("a first alert") { desktop.printed.contains { $0.server == 1 } }

        try await desktop.stopNotificationServer()
        #expect(await daemon.waitForLog("notification server left the bus"))
        let recordedBefore = daemon.stderr.components(separatedBy: "incoming call from").count - 1
        // Contacts keep coming while no server is there: recorded and logged.
        try await eventually("two more contacts recorded without a server") {
            daemon.stderr.components(separatedBy: "incoming call from").count - 1 >= recordedBefore + 2
        }
        try await desktop.startNotificationServer()
        // Missed-call notices kept while dunst was away, and later calls, show on the new server.
        try await eventually("alerts on the restarted dunst") {
            desktop.printed.contains { $0.server == 2 && $0.summary == "Incoming call from Ada Lovelace" }
        }
        #expect(desktop.printed.contains { $0.server == 2 && $0.summary == "Missed call from Ada Lovelace" })

        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
        // Every contact the daemon logged is in the database.
        let logged = Set(
            daemon.stderr.components(separatedBy: "\n").compactMap { line -> String? in
                guard line.contains(": recorded contact=") else { return nil }
                return line.components(separatedBy: "contact=").last
            }
        )
        let queue = try DatabaseQueue(path: scratch.path + "/state/attendant/state.sqlite")
        let stored = Set(try await queue.read { db in try String.fetchAll(db, sql: "SELECT id FROM contact") })
        #expect(!logged.isEmpty && logged.isSubset(of: stored))
    }

    @Test func suspendAndResumeAndLockFollowTheConfiguredMapping() async throws {
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.start(
            scratch,
            desktop,
            configuration: Self.configuration(session: "[session]\nbackground-on = [\"sleep\", \"lock\"]\nsleep-delay = \"2s\"")
        )
        // The delay lock is held while awake.
        try await eventually("the sleep delay lock") { try await desktop.inhibitors().contains { $0.what == "sleep" && $0.mode == "delay" } }

        try await desktop.prepareForSleep(true)
        try await eventually("both channels in the background") {
            try Self.channelValue(scratch, channel: "desk", key: "application-state") == "background"
                && Self.channelValue(scratch, channel: "second", key: "application-state") == "background"
        }
        try await eventually("the lock released") { try await desktop.inhibitors().isEmpty }
        #expect(await daemon.waitForLog("every channel is in the background"))

        try await desktop.prepareForSleep(false)
        try await eventually("both channels in the foreground") {
            try Self.channelValue(scratch, channel: "desk", key: "application-state") == "foreground"
                && Self.channelValue(scratch, channel: "second", key: "application-state") == "foreground"
        }
        try await eventually("the lock taken again") { try await desktop.inhibitors().count == 1 }

        try await desktop.lock()
        try await eventually("background on lock") { try Self.channelValue(scratch, channel: "desk", key: "application-state") == "background" }
        try await desktop.unlock()
        try await eventually("foreground on unlock") { try Self.channelValue(scratch, channel: "desk", key: "application-state") == "foreground" }

        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }

    @Test func lockIsOnlyLoggedWhenNotMappedToBackground() async throws {
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.start(scratch, desktop, configuration: Self.configuration())
        try await eventually("the sleep delay lock") { try await desktop.inhibitors().count == 1 }
        try await desktop.lock()
        #expect(await daemon.waitForLog("screen locked"))
        #expect(try Self.channelValue(scratch, channel: "desk", key: "application-state") == nil)
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }

    @Test func refusedCredentialsRaiseASignInAlert() async throws {
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let config = try scratch.write(
            "attendant.toml",
            """
            [[channel]]
            name = "desk"
            plugin = "loopback"
            [channel.loopback]
            listen-failures = 1
            listen-failure = "authentication"
            """
        )
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("[desk] sign-in needed: "), "\(daemon.stderr)")
        try await eventually("the sign-in alert") { desktop.printed.contains { $0.summary == "Sign-in needed for desk" } }
        let alert = try #require(desktop.printed.first { $0.summary == "Sign-in needed for desk" })
        #expect(alert.urgency == "CRITICAL")
        #expect(alert.body.contains("no token source configured"), "\(alert.body)")
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }

    @Test func aSecondDaemonOnTheSameSessionBusIsRefused() async throws {
        let desktop = try await DesktopSession()
        let first = try Scratch()
        let daemon = try await Self.start(first, desktop, configuration: Self.configuration())
        // Another runtime folder, so the file lock does not catch it first: the bus name does.
        let second = try Scratch()
        let config = try second.write("attendant.toml", Self.configuration())
        let other = try DaemonProcess(["--config", config], scratch: second, environment: desktop.environment)
        #expect(await other.waitForExit() == 1)
        #expect(
            other.stderr.contains(
                "attendantd is already running on this session bus (pid \(daemon.process.processIdentifier)): it owns org.attendant.Attendant1"
            ),
            "\(other.stderr)"
        )
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }
}

/// The control interface as any D-Bus client sees it (busctl), and do-not-disturb through it.
@Suite(.serialized) struct ControlInterfaceTests {
    static func busctl(_ desktop: DesktopSession, _ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await runTool("busctl", ["--address=\(desktop.sessionBusAddress)"] + arguments, environment: desktop.toolEnvironment)
    }

    @Test func busctlIntrospectShowsTheInterface() async throws {
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await DesktopAlertTests.start(scratch, desktop, configuration: DesktopAlertTests.configuration())
        let result = try await Self.busctl(
            desktop,
            ["introspect", "org.attendant.Attendant1", "/org/attendant/Attendant1", "org.attendant.Attendant1"]
        )
        #expect(result.status == 0, "\(result.stderr)")
        for member in [
            "GetStatus", "ListChannels", "ListContacts", "Accept", "Decline", "RenewToken", "Reload", "SetDoNotDisturb",
            "ChatPrepare", "ChatConnect", "ChatViewPage", "ChatListThreads", "ChatOpenThread", "ChatCreateThread",
            "ChatSendMessage", "ChatEndConversation",
            "ChannelEvent", "ChannelStateChanged", "DoNotDisturbChanged",
        ] {
            #expect(result.stdout.contains(".\(member) "), "\(member) missing from:\n\(result.stdout)")
        }
        // The arguments have names (what d-feet and busctl --xml-interface show).
        let xml = try await Self.busctl(desktop, ["introspect", "--xml-interface", "org.attendant.Attendant1", "/org/attendant/Attendant1"])
        for argument in [
            #"name="channel""#, #"name="title""#, #"name="url""#, #"name="thread""#, #"name="fields""#, #"name="text""#, #"name="threads""#,
        ] {
            #expect(xml.stdout.contains(argument), "\(argument) missing from:\n\(xml.stdout)")
        }
        let status = try await Self.busctl(
            desktop,
            ["--json=short", "call", "org.attendant.Attendant1", "/org/attendant/Attendant1", "org.attendant.Attendant1", "GetStatus"]
        )
        #expect(status.stdout.contains(#""Status":{"type":"s","data":"2 channels listening"}"#), "\(status.stdout)")
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }

    @Test func doNotDisturbHoldsAlertsBackWithoutLosingContacts() async throws {
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await DesktopAlertTests.start(
            scratch,
            desktop,
            configuration: DesktopAlertTests.configuration(interval: "300ms", caller: "Grace Hopper")
        )
        try await eventually("a first alert") { desktop.printed.contains { $0.summary == "Incoming call from Grace Hopper" } }
        let on = try await Self.busctl(
            desktop,
            ["call", "org.attendant.Attendant1", "/org/attendant/Attendant1", "org.attendant.Attendant1", "SetDoNotDisturb", "b", "true"]
        )
        #expect(on.status == 0, "\(on.stderr)")
        #expect(await daemon.waitForLog("do not disturb on"))
        // Shown ones are closed; new contacts are recorded but not shown.
        try await eventually("nothing on screen") { try await desktop.displayedCount() == 0 }
        let shownBefore = desktop.printed.count
        let recordedBefore = daemon.stderr.components(separatedBy: ": recorded").count
        try await eventually("two more contacts recorded") { daemon.stderr.components(separatedBy: ": recorded").count >= recordedBefore + 2 }
        #expect(desktop.printed.count == shownBefore, "alerts were shown during do-not-disturb")

        _ = try await Self.busctl(
            desktop,
            ["call", "org.attendant.Attendant1", "/org/attendant/Attendant1", "org.attendant.Attendant1", "SetDoNotDisturb", "b", "false"]
        )
        try await eventually("alerts again") { desktop.printed.count > shownBefore }
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }
}
