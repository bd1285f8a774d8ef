package import AttendantPluginAPI
import Glibc
import ServiceLifecycle
import Synchronization
package import Systemd

/// Follows logind on the system bus and tells every channel when the desktop goes to the background
/// and comes back, as the mobile SDKs hear of backgrounding and foregrounding.
///
/// - `PrepareForSleep(true)`: the daemon holds a *delay* inhibitor lock, so the machine waits while
///   every channel goes to the background (CXone says goodbye, …); the lock is released once all have,
///   or after `sleep-delay`, whichever is first.
/// - `PrepareForSleep(false)`: the lock is taken again, every channel comes to the foreground, and every
///   channel that is recovering retries at once instead of waiting out its backoff.
/// - The session's `Lock` / `Unlock`: background / foreground when `[session] background-on` lists
///   `lock`; otherwise only logged.
package final class SessionMonitor: Service {
    static let logind = "org.freedesktop.login1"
    static let managerPath = "/org/freedesktop/login1"
    static let managerInterface = "org.freedesktop.login1.Manager"
    static let sessionInterface = "org.freedesktop.login1.Session"

    private let address: BusConnection.Address
    private let fleet: ChannelFleet
    private let currentSettings: Mutex<SessionSettings>
    private var settings: SessionSettings { self.currentSettings.withLock { $0 } }
    private let environment: [String: String]
    private let logger: Logger
    private let clock: any Clock<Duration>

    package init(
        address: BusConnection.Address = .system,
        fleet: ChannelFleet,
        settings: SessionSettings,
        environment: [String: String],
        logger: Logger,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.address = address
        self.fleet = fleet
        self.currentSettings = Mutex(settings)
        self.environment = environment
        self.logger = logger
        self.clock = clock
    }

    /// Applies a reloaded `[session]` table.
    package func update(_ settings: SessionSettings) {
        self.currentSettings.withLock { $0 = settings }
    }

    package func run() async {
        let connection: BusConnection
        do {
            connection = try await BusConnection.open(self.address, description: "attendant-session")
        } catch {
            self.logger.warning("cannot reach logind on the \(self.address) (\(error)); suspend and screen lock are not followed")
            await self.waitForShutdown()
            return
        }
        defer { Task { await connection.close() } }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.followSleep(connection) }
            group.addTask { await self.followLock(connection) }
            await self.waitForShutdown()
            group.cancelAll()
        }
    }

    private func waitForShutdown() async {
        try? await gracefulShutdown()
    }

    // MARK: Sleep

    private func followSleep(_ connection: BusConnection) async {
        let signals: AsyncStream<BusSignal>
        do {
            signals = try await connection.signals(
                BusMatchRule(sender: Self.logind, path: Self.managerPath, interface: Self.managerInterface, member: "PrepareForSleep")
            )
        } catch {
            self.logger.warning("cannot follow suspend through logind: \(error)")
            return
        }
        var inhibitor = await self.takeInhibitor(connection)
        defer { if inhibitor >= 0 { close(inhibitor) } }
        for await signal in signals {
            guard let start = signal.arguments.first?.bool else { continue }
            if start {
                self.logger.notice("going to sleep")
                if self.settings.backgroundOn.contains(.sleep) {
                    await self.sendToBackground(within: self.settings.sleepDelay)
                }
                if inhibitor >= 0 {
                    close(inhibitor)
                    inhibitor = -1
                    self.logger.info("sleep inhibitor released")
                }
            } else {
                self.logger.notice("woke up: every channel listens again now")
                inhibitor = await self.takeInhibitor(connection)
                await self.fleet.setApplicationState(.foreground)
                self.fleet.resumeAll()
            }
        }
    }

    /// Takes a delay lock on sleep; -1 if logind refuses (the daemon works on, without the grace period).
    private func takeInhibitor(_ connection: BusConnection) async -> Int32 {
        do {
            let reply = try await connection.call(
                destination: Self.logind,
                path: Self.managerPath,
                interface: Self.managerInterface,
                member: "Inhibit",
                arguments: [
                    .string("sleep"), .string("Attendant"),
                    .string("Channels tell their servers they are going away"), .string("delay"),
                ]
            )
            guard case .unixFD(let fd)? = reply.first else { throw BusError.malformed("Inhibit returned \(reply)") }
            self.logger.debug("sleep inhibitor taken")
            return fd
        } catch {
            self.logger.warning("logind refused a sleep delay lock (\(error)); channels may not say goodbye before sleep")
            return -1
        }
    }

    /// Sends every channel to the background; gives up waiting after `limit`.
    private func sendToBackground(within limit: Duration) async {
        let fleet = self.fleet
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await fleet.setApplicationState(.background)
                return true
            }
            group.addTask { [clock] in
                try? await clock.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if finished {
            self.logger.info("every channel is in the background")
        } else {
            self.logger.warning("not every channel went to the background within \(limit); sleeping anyway")
        }
    }

    // MARK: Lock

    private func followLock(_ connection: BusConnection) async {
        guard let session = await self.sessionPath(connection) else {
            self.logger.info("no graphical login session found for this user; screen lock is not followed")
            return
        }
        let signals: AsyncStream<BusSignal>
        do {
            signals = try await connection.signals(BusMatchRule(sender: Self.logind, path: session, interface: Self.sessionInterface))
        } catch {
            self.logger.warning("cannot follow the screen lock of \(session): \(error)")
            return
        }
        self.logger.debug("following the screen lock of \(session)")
        let lockMeansBackground = self.settings.backgroundOn.contains(.lock)
        for await signal in signals {
            switch signal.member {
            case "Lock":
                self.logger.notice(lockMeansBackground ? "screen locked: channels go to the background" : "screen locked")
                if lockMeansBackground { await self.fleet.setApplicationState(.background) }
            case "Unlock":
                self.logger.notice("screen unlocked")
                if lockMeansBackground {
                    await self.fleet.setApplicationState(.foreground)
                    self.fleet.resumeAll()
                }
            default:
                continue
            }
        }
    }

    /// The login session whose lock matters: `$XDG_SESSION_ID`'s, else the user's display session
    /// (a user service runs outside any session).
    private func sessionPath(_ connection: BusConnection) async -> String? {
        if let id = self.environment["XDG_SESSION_ID"], !id.isEmpty,
            let path = try? await connection.call(
                destination: Self.logind,
                path: Self.managerPath,
                interface: Self.managerInterface,
                member: "GetSession",
                arguments: [.string(id)]
            ).first?.string
        {
            return path
        }
        guard
            let user = try? await connection.call(
                destination: Self.logind,
                path: Self.managerPath,
                interface: Self.managerInterface,
                member: "GetUser",
                arguments: [.uint32(getuid())]
            ).first?.string,
            let display = try? await connection.call(
                destination: Self.logind,
                path: user,
                interface: "org.freedesktop.DBus.Properties",
                member: "Get",
                arguments: [.string("org.freedesktop.login1.User"), .string("Display")]
            ).first?.elements?.last?.string,
            display != "/"
        else { return nil }
        return display
    }
}
