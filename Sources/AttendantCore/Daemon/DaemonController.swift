package import AttendantPluginAPI
import ServiceLifecycle
package import Systemd
import UnixSignals

/// Talks to systemd and handles reloads: `READY=1` once every channel has started (or failed to),
/// `STATUS=` on every change, `WATCHDOG=1` at half the watchdog interval after pinging every
/// supervisor's loop, `RELOADING=1` … `READY=1` around a `SIGHUP` reload, `STOPPING=1` on shutdown.
package final class DaemonController: Service {
    private let fleet: ChannelFleet
    private let notifier: ServiceNotifier
    private let logger: Logger
    private let initialConfiguration: AttendantConfiguration
    private let reloadConfiguration: @Sendable () async throws -> AttendantConfiguration
    private let onConfiguration: @Sendable (AttendantConfiguration) -> Void
    private let watchdogInterval: Duration?
    private let statusChanges: AsyncStream<Void>

    package init(
        fleet: ChannelFleet,
        notifier: ServiceNotifier,
        logger: Logger,
        configuration: AttendantConfiguration,
        watchdogInterval: Duration?,
        statusChanges: AsyncStream<Void>,
        reloadConfiguration: @escaping @Sendable () async throws -> AttendantConfiguration,
        onConfiguration: @escaping @Sendable (AttendantConfiguration) -> Void = { _ in }
    ) {
        self.fleet = fleet
        self.notifier = notifier
        self.logger = logger
        self.initialConfiguration = configuration
        self.watchdogInterval = watchdogInterval
        self.statusChanges = statusChanges
        self.reloadConfiguration = reloadConfiguration
        self.onConfiguration = onConfiguration
    }

    /// Publishes the channels' status line on every status change.
    ///
    /// These loops end on graceful shutdown through `cancelWhenGracefulShutdown`, never through a
    /// sequence's `cancelOnGracefulShutdown()`: that merges two sequences with swift-async-algorithms'
    /// `merge`, whose `next()` holds its lock across `withUnsafeThrowingContinuation`. The runtime may
    /// enqueue the task before running that closure, and on the daemon's one executor thread the next job
    /// then waits for the lock forever: about one SIGTERM in 150 hung right after "stopping" (found with
    /// gdb; apple/swift-async-algorithms#430). `scripts/test` keeps it out of `Sources/`.
    private func publishStatuses() async {
        await cancelWhenGracefulShutdown {
            for await _ in self.statusChanges {
                self.notifier.status(StatusLine.summarize(self.fleet.statuses))
            }
        }
    }

    package func run() async {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.startUp() }
                if let interval = self.watchdogInterval {
                    group.addTask { await self.pingWatchdog(every: interval / 2) }
                }
                group.addTask { await self.handleReloads() }
                group.addTask { await self.publishStatuses() }
            }
        } onGracefulShutdown: {
            self.notifier.stopping(status: "stopping: " + StatusLine.summarize(self.fleet.statuses))
            self.logger.info("stopping")
        }
    }

    private func startUp() async {
        await self.fleet.apply(self.initialConfiguration)
        await self.fleet.waitUntilSettled()
        let status = StatusLine.summarize(self.fleet.statuses)
        self.notifier.ready(status: status)
        self.logger.notice("ready: \(status)")
    }

    private func pingWatchdog(every period: Duration) async {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: period) }
            } catch {
                return
            }
            await self.fleet.pingAll()
            self.notifier.watchdog()
        }
    }

    private func handleReloads() async {
        await cancelWhenGracefulShutdown {
            for await _ in await UnixSignalsSequence(trapping: .sighup) {
                self.logger.notice("SIGHUP: reloading the configuration")
                _ = try? await self.reload()
            }
        }
    }

    /// Re-reads the configuration and restarts the channels whose settings changed (SIGHUP and the
    /// control API's `Reload`); a configuration that does not load leaves the running one in place.
    /// Returns the new status line.
    package func reload() async throws -> String {
        self.notifier.reloading(status: "reloading the configuration")
        do {
            let configuration = try await self.reloadConfiguration()
            self.onConfiguration(configuration)
            await self.fleet.apply(configuration)
            await self.fleet.waitUntilSettled()
            let status = StatusLine.summarize(self.fleet.statuses)
            self.logger.notice("reloaded: \(status)")
            self.notifier.ready(status: status)
            return status
        } catch {
            self.logger.error("reload failed, keeping the running configuration:\n\(error)")
            self.notifier.ready(status: "reload failed, still running the previous configuration: \(error)")
            throw error
        }
    }
}
