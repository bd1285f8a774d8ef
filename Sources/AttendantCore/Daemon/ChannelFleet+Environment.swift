package import AttendantPluginAPI

extension ChannelFleet {
    /// Makes the parts a channel needs; the daemon's version loads plugins from disk.
    package struct Environment: Sendable {
        package var loader: PluginLoader
        package var store: StateStore
        package var router: EventRouter
        package var clock: any Clock<Duration>
        package var wallClock: @Sendable () -> UnixTime
        package var logger: Logger
        /// The daemon's environment: `HOME` for `~/` in token paths, `CREDENTIALS_DIRECTORY`.
        package var processEnvironment: [String: String]
        /// Finds a plugin's factory; by default the loader's.
        package var factory: @Sendable (String) throws -> any ChannelPluginFactory
        /// Makes the token source of a channel with `token-*` keys; by default the configured one.
        package var tokenSource: @Sendable (ChannelConfiguration, TokenSettings) -> any TokenSource
        /// Opens the links channels ask for; nil: links are refused (no desktop session).
        package var linkOpener: LinkOpener?
        /// Where the channels' states, listen attempts and token renewals are counted.
        package var metrics: DaemonMetrics

        package init(
            loader: PluginLoader,
            store: StateStore,
            router: EventRouter,
            clock: any Clock<Duration> = ContinuousClock(),
            wallClock: @escaping @Sendable () -> UnixTime = SystemWallClock.now,
            processEnvironment: [String: String] = [:],
            linkOpener: LinkOpener? = nil,
            metrics: DaemonMetrics = DaemonMetrics(),
            logger: Logger
        ) {
            self.linkOpener = linkOpener
            self.metrics = metrics
            self.loader = loader
            self.store = store
            self.router = router
            self.clock = clock
            self.wallClock = wallClock
            self.processEnvironment = processEnvironment
            self.logger = logger
            self.factory = { plugin in try loader.load(plugin).factory }
            self.tokenSource = { channel, settings in
                settings.source.makeSource(channel: channel.name, environment: processEnvironment)
            }
        }
    }
}
