import Foundation
import Glibc
import Synchronization
import TestSupport

// A desktop made of real parts, for the daemon's notification and session tests (DESIGN.md section 6):
//
//   - a private dbus-daemon as the session bus and another as the system bus (no service activation, so
//     nothing starts behind a test's back: with dunst stopped, org.freedesktop.Notifications has no owner);
//   - Xvfb on a free display (Xvfb picks it itself: `-displayfd`);
//   - dunst 1.9 on that display and bus, with Tests/Fixtures/desktop/dunstrc, started with `-print`;
//   - python-dbusmock's `logind` template on the system bus, with one session for the current user;
//   - `busctl monitor` on the session bus from the start, so a test sees every Notify call as sent.

/// The real-parts desktop: see the top of this file. Everything stops and the scratch folder goes when it
/// is released (or at `stop()`).
package final class DesktopSession {
    package static let fixtures = BuildProducts.packageRoot + "/Tests/Fixtures/desktop"

    /// The python that scripts/setup installed python-dbusmock into (a venv over Debian's python3 with its
    /// python3-dbus and python3-gi); ATTENDANT_TEST_PYTHON overrides it.
    package static let python: String =
        ProcessInfo.processInfo.environment["ATTENDANT_TEST_PYTHON"]
        ?? BuildProducts.packageRoot + "/.build-python/bin/python3"

    package static let login1 = "org.freedesktop.login1"
    package static let managerPath = "/org/freedesktop/login1"
    package static let managerInterface = "org.freedesktop.login1.Manager"
    package static let sessionInterface = "org.freedesktop.login1.Session"
    package static let mockInterface = "org.freedesktop.DBus.Mock"

    package let directory: String
    package let sessionBusAddress: String
    package let systemBusAddress: String
    /// ":N"
    package let display: String
    /// The logind session the mock knows for this user.
    package let sessionID = "test1"
    package var sessionPath: String { "/org/freedesktop/login1/session/" + self.sessionID }
    /// The file the context-menu picker reads (see Tests/Fixtures/desktop/pick-action).
    package let pickFile: String
    /// Every message on the session bus since the start.
    package let sessionBus: BusMonitor

    /// What a test merges into the daemon's environment.
    package var environment: [String: String] {
        [
            "DBUS_SESSION_BUS_ADDRESS": self.sessionBusAddress,
            "DBUS_SYSTEM_BUS_ADDRESS": self.systemBusAddress,
            "DISPLAY": self.display,
            "XDG_SESSION_ID": self.sessionID,
        ]
    }

    /// The whole environment for a tool run in this desktop (no Wayland: dunst would prefer it).
    package var toolEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.merging(self.environment) { $1 }
        environment["WAYLAND_DISPLAY"] = nil
        return environment
    }

    let children: Children
    let sessionDaemon: FixtureProcess
    let systemDaemon: FixtureProcess
    let xvfb: FixtureProcess
    let logind: FixtureProcess
    let dunst = Mutex<(current: FixtureProcess?, servers: [FixtureProcess])>((nil, []))

    /// The processes to stop, in start order, and the folder to remove; stops them if `init` fails half-way.
    final class Children: Sendable {
        let directory: String
        let list = Mutex<[FixtureProcess]>([])

        init(directory: String) { self.directory = directory }

        func add(_ child: FixtureProcess) { self.list.withLock { $0.append(child) } }

        func stop() {
            for child in self.list.withLock({ $0 }).reversed() { child.terminate() }
            try? FileManager.default.removeItem(atPath: self.directory)
        }

        deinit { self.stop() }
    }

    package init() async throws {
        let directory = try makeTemporaryFolder("attendant-desktop")
        let children = Children(directory: directory)
        self.directory = directory
        self.children = children
        self.pickFile = directory + "/pick"
        var base = ProcessInfo.processInfo.environment
        for key in ["WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "DISPLAY"] { base[key] = nil }

        // The two buses.
        func startBus(_ name: String) async throws -> (FixtureProcess, String) {
            let config = directory + "/\(name).conf"
            try privateBusConfiguration(socket: directory + "/\(name).sock").write(toFile: config, atomically: true, encoding: .utf8)
            let bus = try FixtureProcess(
                "dbus-daemon (\(name) bus)",
                "dbus-daemon",
                ["--config-file=" + config, "--nofork", "--print-address"],
                environment: base
            )
            children.add(bus)
            try await eventually("the \(name) bus to print its address") {
                guard bus.isRunning else { throw FixtureError("the \(name) bus did not start: \(bus.report)") }
                return bus.stdout.contains("\n")
            }
            return (bus, bus.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        (self.sessionDaemon, self.sessionBusAddress) = try await startBus("session")
        (self.systemDaemon, self.systemBusAddress) = try await startBus("system")

        // Xvfb picks a free display itself and writes its number to fd 1 once it accepts clients.
        let xvfb = try FixtureProcess(
            "Xvfb",
            "Xvfb",
            ["-displayfd", "1", "-nolisten", "tcp", "-noreset", "-screen", "0", "1280x1024x24"],
            environment: base
        )
        children.add(xvfb)
        self.xvfb = xvfb
        try await eventually("Xvfb to report its display") {
            guard xvfb.isRunning else { throw FixtureError("Xvfb did not start: \(xvfb.report)") }
            return xvfb.stdout.contains("\n")
        }
        self.display = ":" + xvfb.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let environment = base.merging([
            "DBUS_SESSION_BUS_ADDRESS": self.sessionBusAddress,
            "DBUS_SYSTEM_BUS_ADDRESS": self.systemBusAddress,
            "DISPLAY": self.display,
        ]) { $1 }

        self.sessionBus = try await BusMonitor(address: self.sessionBusAddress, environment: environment)

        // logind: python-dbusmock's template on the system bus, plus a session for this user.
        guard access(Self.python, X_OK) == 0 else {
            throw FixtureError("\(Self.python) is missing: run scripts/setup (it installs python-dbusmock there)")
        }
        let logind = try FixtureProcess(
            "python-dbusmock logind",
            Self.python,
            ["-m", "dbusmock", "--system", "--template", "logind"],
            environment: environment
        )
        children.add(logind)
        self.logind = logind
        let systemBus = self.systemBusAddress
        try await eventually("the logind mock to own \(Self.login1)", within: 60) {
            guard logind.isRunning else { throw FixtureError("the logind mock did not start: \(logind.report)") }
            return try await Self.hasOwner(Self.login1, address: systemBus, environment: environment)
        }
        let uid = getuid()
        let user = getpwuid(uid).map { String(cString: $0.pointee.pw_name) } ?? "user\(uid)"
        try await Self.busctl(
            systemBus,
            environment,
            ["call", Self.login1, Self.managerPath, Self.mockInterface, "AddSession", "ssusb", self.sessionID, "seat0", "\(uid)", user, "true"]
        )
        try await Self.busctl(
            systemBus,
            environment,
            [
                "call", Self.login1, Self.managerPath, Self.mockInterface, "AddMethod", "sssss", Self.managerInterface,
                "GetSessionByPID", "u", "o", "ret = '/org/freedesktop/login1/session/\(self.sessionID)'",
            ]
        )

        try await self.startNotificationServer()
    }

    // MARK: Teardown

    /// Stops every part and removes the scratch folder.
    package func stop() {
        self.sessionBus.stop()
        self.children.stop()
    }

    deinit { self.stop() }
}
