import Foundation
import Glibc
import Systemd
import TestSupport

/// A session bus of the test's own with the desktop parts whose do-not-disturb ``DesktopQuietWatcher``
/// follows, each started when a test asks: dunst on Xvfb (the real server), python-dbusmock objects in
/// place of plasmashell and SwayNotificationCenter (which cannot run here), and dconf-service for GNOME's
/// GSettings. The bus activates nothing (so no real dunst or dconf-service starts behind the test's back),
/// and dconf's database and runtime files live in the scratch folder, never the user's.
final class QuietDesktop {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    /// scripts/setup's venv with python-dbusmock (as Tests/DaemonTestSupport/DesktopSession.swift uses it).
    static let python = ProcessInfo.processInfo.environment["ATTENDANT_TEST_PYTHON"] ?? packageRoot + "/.build-python/bin/python3"

    let folder: String
    let address: String
    /// The whole environment of a tool in this desktop, and of the watcher.
    let environment: [String: String]
    private var children: [FixtureProcess] = []

    init() async throws {
        let folder = try makeTemporaryFolder("attendant-quiet")
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder + "/config", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let config = folder + "/bus.conf"
        try privateBusConfiguration(socket: folder + "/bus.sock").write(toFile: config, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        for key in [
            "WAYLAND_DISPLAY", "DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_CURRENT_DESKTOP", "GSETTINGS_BACKEND", "GSETTINGS_SCHEMA_DIR",
            "DCONF_PROFILE",
        ] {
            environment[key] = nil
        }
        environment["XDG_CONFIG_HOME"] = folder + "/config"
        environment["XDG_RUNTIME_DIR"] = folder + "/run"
        let bus = try FixtureProcess(
            "dbus-daemon",
            "dbus-daemon",
            ["--config-file=" + config, "--nofork", "--print-address"],
            environment: environment
        )
        self.children.append(bus)
        try await eventually("the bus to print its address") {
            guard bus.isRunning else { throw FixtureError("the bus did not start: \(bus.report)") }
            return bus.stdout.contains("\n")
        }
        self.address = bus.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        environment["DBUS_SESSION_BUS_ADDRESS"] = self.address
        self.environment = environment
    }

    func connect() async throws -> BusConnection {
        try await BusConnection.open(.custom(self.address), description: "quiet-watcher-test")
    }

    // MARK: Parts

    /// Starts `executable`, then waits until `name` has an owner on the bus.
    @discardableResult
    func start(
        _ label: String,
        _ executable: String,
        _ arguments: [String],
        owning name: String,
        environment: [String: String]? = nil
    ) async throws -> FixtureProcess {
        let child = try FixtureProcess(label, executable, arguments, environment: environment ?? self.environment)
        self.children.append(child)
        try await eventually("\(label) to own \(name)") {
            guard child.isRunning else { throw FixtureError("\(label) did not start: \(child.report)") }
            return try await self.hasOwner(name)
        }
        return child
    }

    /// dunst 1.9 on an Xvfb display of its own, with the desktop tests' dunstrc.
    func startDunst() async throws -> FixtureProcess {
        let xvfb = try FixtureProcess(
            "Xvfb",
            "Xvfb",
            ["-displayfd", "1", "-nolisten", "tcp", "-noreset", "-screen", "0", "800x600x24"],
            environment: self.environment
        )
        self.children.append(xvfb)
        try await eventually("Xvfb to report its display") {
            guard xvfb.isRunning else { throw FixtureError("Xvfb did not start: \(xvfb.report)") }
            return xvfb.stdout.contains("\n")
        }
        var environment = self.environment
        environment["DISPLAY"] = ":" + xvfb.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return try await self.start(
            "dunst",
            "dunst",
            ["-config", Self.packageRoot + "/Tests/Fixtures/desktop/dunstrc"],
            owning: "org.freedesktop.Notifications",
            environment: environment
        )
    }

    /// A python-dbusmock object `path` with `interface`, owning `name`.
    @discardableResult
    func startMock(_ name: String, path: String, interface: String) async throws -> FixtureProcess {
        guard access(Self.python, X_OK) == 0 else {
            throw FixtureError("\(Self.python) is missing: run scripts/setup (it installs python-dbusmock there)")
        }
        return try await self.start("dbusmock \(name)", Self.python, ["-m", "dbusmock", name, path, interface], owning: name)
    }

    /// dconf's writer, as GNOME's session starts it on demand (the bus here activates nothing).
    func startDconf() async throws {
        try await self.start("dconf-service", "/usr/libexec/dconf-service", [], owning: "ca.desrt.dconf")
    }

    /// Stops a part with SIGTERM (bounded) and waits until `name` has no owner.
    func stop(_ child: FixtureProcess, owning name: String) async throws {
        await child.terminate(within: 10)
        try await eventually("\(name) to lose its owner") { try await !self.hasOwner(name) }
    }

    // MARK: Tools

    /// Runs `tool ARGUMENTS` in this desktop; throws unless it succeeds.
    @discardableResult
    func run(_ tool: String, _ arguments: String...) async throws -> String {
        let result = try await runTool(tool, arguments, environment: self.environment)
        guard result.status == 0 else {
            throw FixtureError("\(tool) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }

    func busctl(_ arguments: String...) async throws {
        let result = try await runTool("busctl", ["--address=" + self.address, "--timeout=20"] + arguments, environment: self.environment)
        guard result.status == 0 else { throw FixtureError("busctl \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)") }
    }

    func hasOwner(_ name: String) async throws -> Bool {
        let result = try await runTool(
            "busctl",
            [
                "--address=" + self.address, "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", "s",
                name,
            ],
            environment: self.environment
        )
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "b true"
    }

    deinit {
        for child in self.children.reversed() { child.terminate() }
        try? FileManager.default.removeItem(atPath: self.folder)
    }
}
