public import AttendantPluginAPI
import ServiceLifecycle
import UnixSignals
import Synchronization
import Systemd

/// The whole daemon: one instance lock, the state store, the plugin loader, and a `ServiceGroup` of the
/// event router, the channel fleet and the controller that talks to systemd.
public struct AttendantDaemon {
    public struct Options: Sendable {
        /// The configuration file, or nil for the built-in demo configuration.
        public var configurationFile: String?
        public var configuration: AttendantConfiguration
        public var environment: [String: String]
        /// Show contacts on standard output (the demo does).
        public var terminalAlerts = false
        /// Overrides the state directory (the demo uses a temporary one).
        public var stateDirectory: String?

        public init(configurationFile: String?, configuration: AttendantConfiguration, environment: [String: String]) {
            self.configurationFile = configurationFile
            self.configuration = configuration
            self.environment = environment
        }
    }

    public let options: Options
    public let logger: Logger

    public init(options: Options, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Where the instance lock lives: the runtime directory if there is one, else the state directory.
    public static func lockPath(environment: [String: String], stateDirectory: String) -> String {
        (Paths.runtimeDirectory(environment: environment) ?? stateDirectory) + "/attendantd.lock"
    }

    public func stateDirectory(for configuration: AttendantConfiguration) -> String {
        if let directory = self.options.stateDirectory { return directory }
        if let directory = configuration.daemon.stateDirectory {
            return Paths.expandingTilde(directory, environment: self.options.environment)
        }
        return Paths.defaultStateDirectory(environment: self.options.environment)
    }

    /// Runs until SIGTERM or SIGINT; throws only when start-up fails.
    public func run() async throws {
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
        let router = EventRouter(
            store: store,
            logger: self.logger,
            presenters: self.options.terminalAlerts ? [TerminalAlertPresenter()] : []
        )
        let notifier = ServiceNotifier()
        let controllerBox = Mutex<DaemonController?>(nil)
        let fleet = ChannelFleet(
            environment: .init(loader: loader, store: store, router: router, logger: self.logger),
            onStatusChange: { controllerBox.withLock { $0 }?.statusChanged() }
        )
        let file = self.options.configurationFile
        let controller = DaemonController(
            fleet: fleet,
            notifier: notifier,
            logger: self.logger,
            configuration: configuration,
            watchdogInterval: ServiceWatchdog.interval(),
            reloadConfiguration: {
                guard let file else { return configuration }
                return try AttendantConfiguration.load(from: file)
            }
        )
        controllerBox.withLock { $0 = controller }

        var groupConfiguration = ServiceGroupConfiguration(
            services: [
                .init(service: router),
                .init(service: fleet),
                .init(service: controller),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: self.logger
        )
        // Below the unit's TimeoutStopSec=15s, so the daemon ends itself before systemd kills it.
        groupConfiguration.maximumGracefulShutdownDuration = configuration.daemon.shutdownTimeout
        let group = ServiceGroup(configuration: groupConfiguration)
        try await group.run()
        self.logger.info("stopped")
    }
}

public struct DaemonStartError: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}
