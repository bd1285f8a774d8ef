import AttendantControl
package import AttendantPluginAPI
import ServiceLifecycle
import Synchronization
package import Systemd
import UnixSignals

/// The whole daemon: one instance lock, the state store, the plugin loader, and a `ServiceGroup` of the
/// event router, the channel fleet and the controller that talks to systemd.
package struct AttendantDaemon {
    package struct Options: Sendable {
        /// The configuration's files, read again on reload; nil for the built-in demo configuration.
        package var configurationSources: ConfigurationSources?
        package var configuration: AttendantConfiguration
        package var environment: [String: String]
        /// Show contacts on standard output (the demo does).
        package var terminalAlerts = false
        /// Overrides the state directory (the demo uses a temporary one).
        package var stateDirectory: String?
        /// Where logind is (tests point it at a private bus).
        package var systemBus: BusConnection.Address = .system
        /// Reported by the control API.
        package var version = "attendantd"
        /// How a reload reads the files in a child process first (nil: the daemon reads them itself).
        package var configurationReadCheck: ConfigurationReadCheck?
        /// Run without the desktop when another daemon owns the bus name (the demo beside a running
        /// service) instead of refusing to start.
        package var desktopIsOptional = false
        /// The clock of every timer: channels' (`host.clock`), token and listen timeouts, logind's delay
        /// lock. `attendantd` passes the idle executor's clock, whose cancelled sleeps wake nothing.
        package var clock: any Clock<Duration> = ContinuousClock()

        package init(configurationSources: ConfigurationSources?, configuration: AttendantConfiguration, environment: [String: String]) {
            self.configurationSources = configurationSources
            self.configuration = configuration
            self.environment = environment
        }
    }

    package let options: Options
    package let logger: Logger

    package init(options: Options, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Where the instance lock lives: the runtime directory if there is one, else the state directory.
    package static func lockPath(environment: [String: String], stateDirectory: String) -> String {
        (Paths.runtimeDirectory(environment: environment) ?? stateDirectory) + "/attendantd.lock"
    }

    package func stateDirectory(for configuration: AttendantConfiguration) -> String {
        if let directory = self.options.stateDirectory { return directory }
        if let directory = configuration.daemon.stateDirectory {
            return Paths.expandingTilde(directory, environment: self.options.environment)
        }
        return Paths.defaultStateDirectory(environment: self.options.environment)
    }

    /// Runs until SIGTERM or SIGINT; throws only when start-up fails.
    package func run() async throws {
        let configuration = self.options.configuration
        let stateDirectory = self.stateDirectory(for: configuration)
        let lock = try InstanceLock(path: Self.lockPath(environment: self.options.environment, stateDirectory: stateDirectory))
        defer { withExtendedLifetime(lock) {} }

        let store: StateStore
        do {
            store = try StateStore(directory: stateDirectory)
        } catch {
            throw DaemonStartError(description: "cannot open the state database in \(stateDirectory): \(error)")
        }
        self.logger.info("state database \(store.path)")

        let searchPath = PluginLoader.defaultSearchPath(
            configured: configuration.daemon.pluginPath,
            environment: self.options.environment
        )
        self.logger.debug("plugin search path: \(searchPath.joined(separator: ":"))")
        let loader = PluginLoader(searchPath: searchPath)
        // The session bus: desktop alerts and the control API. Without one the daemon still runs.
        let session = try await self.openSessionBus()
        // Built in dependency order; where parts talk back to each other, through the wiring made first.
        let wiring = DaemonWiring()
        // The daemon's figures (attendantctl metrics, [metrics] listen): one registry of its own.
        let metrics = DaemonMetrics()
        // A plugin's own chat alert title, for channels that set none (a plugin that fails to load is
        // reported when the fleet starts its channel).
        let pluginTitle: @Sendable (String) -> String? = { plugin in try? loader.load(plugin).factory.defaultChatAlertTitle }
        // The ring of incoming calls ([alerts] ring, ring-sound), beside their notifications.
        let ringer =
            configuration.alerts.ring
            ? CallRinger(
                sound: configuration.alerts.ringSound.map { Paths.expandingTilde($0, environment: self.options.environment) },
                logger: self.logger
            )
            : nil
        let alerts = session.map { session in
            DesktopAlertCenter(
                connection: session,
                planner: AlertPlanner(configuration, pluginTitle: pluginTitle),
                ringer: ringer,
                desktopQuiet: DesktopQuietWatcher(connection: session, logger: self.logger, environment: self.options.environment),
                metrics: metrics,
                logger: self.logger
            ) { route in
                wiring.chosenActions.continuation.yield(route)
            }
        }
        let presenters: [any AlertPresenter] =
            (self.options.terminalAlerts ? [TerminalAlertPresenter()] : []) + (alerts.map { [$0, wiring.forwarder] } ?? [])
        let router = EventRouter(store: store, logger: self.logger, presenters: presenters, metrics: metrics)
        // Links from in-app actions: only with a desktop session (someone to open them for).
        let linkOpener = session.map { session in
            LinkOpener(
                settings: configuration.links,
                askHandler: { name, url, timeout in
                    let reply = try? await session.call(
                        destination: name,
                        path: URLHandlerInterface.objectPath,
                        interface: URLHandlerInterface.interface,
                        member: URLHandlerInterface.Method.shouldOpenURL,
                        arguments: [.string(url)],
                        timeout: timeout
                    )
                    return reply?.first?.bool
                },
                logger: self.logger
            )
        }
        // A chat notification's conversation view, in a terminal.
        let conversations = ConversationOpener(
            terminal: configuration.alerts.terminal,
            environment: self.options.environment,
            executableDirectory: Paths.executableDirectory(),
            logger: self.logger
        )
        let fleet = ChannelFleet(
            environment: .init(
                loader: loader,
                store: store,
                router: router,
                clock: self.options.clock,
                processEnvironment: self.options.environment,
                linkOpener: linkOpener,
                metrics: metrics,
                logger: self.logger
            ),
            onStatusChange: { wiring.statusChanged() }
        )
        let sessionMonitor = SessionMonitor(
            address: self.options.systemBus,
            fleet: fleet,
            settings: configuration.session,
            environment: self.options.environment,
            logger: self.logger,
            clock: self.options.clock
        )
        let sources = self.options.configurationSources
        let controller = DaemonController(
            fleet: fleet,
            notifier: ServiceNotifier(),
            logger: self.logger,
            configuration: configuration,
            watchdogInterval: ServiceWatchdog.interval(),
            statusChanges: wiring.controllerStatus.stream,
            reloadConfiguration: { [readCheck = self.options.configurationReadCheck, logger = self.logger] in
                guard let sources else { return configuration }
                try await readCheck?.check(try sources.files()) { logger.warning("\($0)") }
                return try AttendantConfiguration.load(sources)
            },
            onConfiguration: { [alerts, conversations, logger = self.logger, served = configuration.metrics.listen] configuration in
                if configuration.metrics.listen != served {
                    let wanted = configuration.metrics.listen.map { "on \($0)" } ?? "none"
                    logger.warning(
                        "[metrics] listen changed: the endpoint stays as it started until attendantd restarts (systemctl --user restart attendantd), which then serves \(wanted)"
                    )
                }
                alerts?.apply(AlertPlanner.Configuration(configuration, pluginTitle: pluginTitle))
                sessionMonitor.update(configuration.session)
                linkOpener?.update(configuration.links)
                conversations.update(terminal: configuration.alerts.terminal)
            }
        )
        var desktop: DesktopServices? = nil
        if let session, let alerts {
            let control = ControlBus(
                connection: session,
                target: .init(fleet: fleet, store: store, alerts: alerts, linkOpener: linkOpener, metrics: metrics, version: self.options.version) {
                    try await controller.reload()
                },
                logger: self.logger
            )
            try await control.export()
            desktop = DesktopServices(
                alerts: alerts,
                fleet: fleet,
                control: control,
                wiring: wiring,
                conversations: conversations,
                logger: self.logger
            )
        }
        // Only now is the daemon's name taken: a client calls as soon as it sees the name, and then the
        // objects are there and the channels are known (each `starting` until its supervisor says more),
        // instead of `Unknown object` or "no channels configured" (issue 29).
        // Bound before the name is taken: a port in use stops the start with the address and the reason.
        var endpoint: MetricsEndpoint? = nil
        if let address = configuration.metrics.listen {
            endpoint = try await MetricsEndpoint.bind(address, metrics: metrics, logger: self.logger)
        }
        fleet.announce(configuration)
        if let session { try await self.claimName(on: session) }

        var groupConfiguration = ServiceGroupConfiguration(
            // Started in this order, stopped in reverse: channels stop before the router drains their
            // last events to the desktop.
            // Named here: without a name the library describes each service (`"\(service)"`), and each
            // description is a dynamic cast that scans every conformance record in the process once per
            // service type, about 1 ms of the start (measured with `perf record`, issue 11).
            services: (endpoint.map { [ServiceGroupConfiguration.ServiceConfiguration(service: $0, serviceName: "metrics")] } ?? [])
                + (desktop.map { [ServiceGroupConfiguration.ServiceConfiguration(service: $0, serviceName: "desktop")] } ?? []) + [
                    .init(service: router, serviceName: "event-router"),
                    .init(service: fleet, serviceName: "channels"),
                    .init(service: sessionMonitor, serviceName: "session-monitor"),
                    .init(service: NetworkMonitor(fleet: fleet, logger: self.logger), serviceName: "network-monitor"),
                    .init(service: controller, serviceName: "systemd"),
                ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: self.logger
        )
        // Channels get `shutdown-timeout` to stop, and the services after them (the event router's last
        // alerts, the desktop's bus) the margin: a channel that uses all of its time is dropped with a
        // warning and the daemon still exits 0. Below the unit's TimeoutStopSec=15s by default, so the
        // daemon ends itself before systemd kills it.
        groupConfiguration.maximumGracefulShutdownDuration = configuration.daemon.gracefulShutdownBudget
        let group = ServiceGroup(configuration: groupConfiguration)
        try await group.run()
        self.logger.info("stopped")
    }
}

extension AttendantDaemon {
    /// Connects to the session bus and checks that no other daemon holds the daemon's name; nil (with a
    /// warning) when there is no session bus. Another daemon holding the name is a start failure. The
    /// name is claimed later, by ``claimName(on:)``, once the control objects are exported.
    func openSessionBus() async throws -> BusConnection? {
        let connection: BusConnection
        do {
            connection = try await BusConnection.open(.session, description: "attendantd")
        } catch {
            self.logger.warning("no session bus (\(error)): no desktop alerts and no control API; contacts are still recorded and logged")
            return nil
        }
        guard try await connection.nameOwner(ControlInterface.busName) != nil else { return connection }
        let pid = await connection.processID(ofOwnerOf: ControlInterface.busName)
        await connection.close()
        if self.options.desktopIsOptional {
            self.logger.warning(
                "another attendantd\(holder(pid)) owns \(ControlInterface.busName) on this session bus: running without desktop alerts and control API"
            )
            return nil
        }
        throw DaemonStartError.alreadyRunning(pid: pid)
    }

    /// Claims the daemon's name on the session bus. Another daemon that took it since
    /// ``openSessionBus()`` looked (two started at the same moment) makes this start fail.
    func claimName(on connection: BusConnection) async throws {
        switch try await connection.requestName(ControlInterface.busName) {
        case .acquired:
            return
        case .taken(let pid):
            await connection.close()
            throw DaemonStartError.alreadyRunning(pid: pid)
        }
    }
}

package struct DaemonStartError: Error, CustomStringConvertible {
    package var description: String
    package init(description: String) { self.description = description }

    static func alreadyRunning(pid: UInt32?) -> DaemonStartError {
        DaemonStartError(
            description:
                "attendantd is already running on this session bus\(holder(pid)): it owns \(ControlInterface.busName). Stop it first: systemctl --user stop attendantd"
        )
    }
}

/// " (pid 123)", or nothing when the bus did not say.
private func holder(_ pid: UInt32?) -> String { pid.map { " (pid \($0))" } ?? "" }
