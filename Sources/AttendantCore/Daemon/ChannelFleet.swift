package import AttendantPluginAPI
import ServiceLifecycle
import Synchronization

/// Runs one ``ChannelSupervisor`` per enabled channel, and applies new configurations: channels that
/// were removed or changed stop (gracefully, before a changed one starts again), new ones start, and
/// untouched ones keep running.
///
/// A channel whose plugin cannot be loaded or whose channel cannot be made is reported as failed; the
/// other channels run regardless.
package final class ChannelFleet: Service {
    enum Command: Sendable {
        case apply(AttendantConfiguration, CheckedContinuation<Void, Never>?)
        case finished(name: String, generation: Int)
        case shutdown
    }

    private struct Running {
        var configuration: ChannelConfiguration
        var supervisor: ChannelSupervisor
        var statusGate: StatusGate
        var generation: Int
        /// What `tls-ca-file` held when the channel started (see ``ChannelConfiguration/tlsCAFileContents(environment:)``).
        var caFileContents: String?
        var stopping = false
    }

    /// Lets a supervisor's status through until the supervisor is retired (stopping for a restart or
    /// removal), so a stopping channel does not overwrite the status of its replacement.
    private final class StatusGate: Sendable {
        private let open = Atomic<Bool>(true)
        var isOpen: Bool { self.open.load(ordering: .acquiring) }
        func close() { self.open.store(false, ordering: .releasing) }
    }

    private struct Shared {
        var statuses: [String: ChannelStatus] = [:]
        var order: [String] = []
        var supervisors: [ChannelSupervisor] = []
        var settledWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let environment: Environment
    private let onStatusChange: @Sendable () -> Void
    private let commands: AsyncStream<Command>
    private let commandContinuation: AsyncStream<Command>.Continuation
    private let shared = Mutex(Shared())

    package init(environment: Environment, onStatusChange: @escaping @Sendable () -> Void = {}) {
        self.environment = environment
        self.onStatusChange = onStatusChange
        (self.commands, self.commandContinuation) = AsyncStream.makeStream()
    }

    // MARK: Control

    /// Applies a configuration and returns once it is applied (channels started or stopped; not yet
    /// listening: see ``waitUntilSettled()``).
    package func apply(_ configuration: AttendantConfiguration) async {
        await withCheckedContinuation { continuation in
            if case .terminated = self.commandContinuation.yield(.apply(configuration, continuation)) {
                continuation.resume()
            }
        }
    }

    /// Makes the channels of `configuration` known before ``run()`` starts them: each enabled one is
    /// `starting` (waiting for the fleet), so that the control API answers with the channels the daemon
    /// will run from its first moment on the bus, not with none.
    package func announce(_ configuration: AttendantConfiguration) {
        self.shared.withLock { shared in
            guard shared.order.isEmpty else { return }
            let enabled = configuration.channels.filter(\.enabled)
            shared.order = enabled.map(\.name)
            for channel in enabled where shared.statuses[channel.name] == nil {
                shared.statuses[channel.name] = ChannelStatus(
                    name: channel.name,
                    plugin: channel.plugin,
                    state: .starting,
                    detail: "waiting for the daemon to start it"
                )
            }
        }
    }

    /// Returns once every channel has finished its first attempt to listen (or failed to start).
    package func waitUntilSettled() async {
        await withCheckedContinuation { continuation in
            let settled = self.shared.withLock { shared in
                if shared.statuses.values.allSatisfy(\.hasSettled) { return true }
                shared.settledWaiters.append(continuation)
                return false
            }
            if settled { continuation.resume() }
        }
    }

    /// Every channel's status, in configuration order.
    package var statuses: [ChannelStatus] {
        self.shared.withLock { shared in shared.order.compactMap { shared.statuses[$0] } }
    }

    /// Returns once every supervisor's loop answered: the watchdog's proof that nothing is stuck.
    package func pingAll() async {
        for supervisor in self.shared.withLock({ $0.supervisors }) {
            await supervisor.ping()
        }
    }

    /// The running supervisor of channel `name`.
    package func supervisor(named name: String) -> ChannelSupervisor? {
        self.shared.withLock { $0.supervisors.last { $0.name == name } }
    }

    /// The names of the channels that are running now.
    package var runningChannels: [String] {
        self.shared.withLock { $0.supervisors.map(\.name) }
    }

    /// Tells every running channel that the session went to the background or came back; returns
    /// when all of them have handled it.
    package func setApplicationState(_ state: ApplicationState) async {
        let supervisors = self.shared.withLock { $0.supervisors }
        await withDiscardingTaskGroup { group in
            for supervisor in supervisors {
                group.addTask { await supervisor.setApplicationState(state) }
            }
        }
    }

    /// Asks every channel in recovery to retry now (resume from sleep, network back).
    package func resumeAll() {
        for supervisor in self.shared.withLock({ $0.supervisors }) { supervisor.resume() }
    }

    /// Tells every channel the network came back or changed (``NetworkMonitor``).
    package func networkChanged() {
        for supervisor in self.shared.withLock({ $0.supervisors }) { supervisor.networkChanged() }
    }

    // MARK: Service

    package func run() async {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                await self.loop(group: &group)
            }
        } onGracefulShutdown: {
            self.commandContinuation.yield(.shutdown)
        }
    }

    private func loop(group: inout DiscardingTaskGroup) async {
        var running: [String: Running] = [:]
        var waitingToStart: [String: ChannelConfiguration] = [:]
        var generation = 0
        var current = AttendantConfiguration()
        var shuttingDown = false

        func start(_ channel: ChannelConfiguration, group: inout DiscardingTaskGroup) {
            generation += 1
            let thisGeneration = generation
            let gate = StatusGate()
            guard
                let supervisor = self.makeSupervisor(
                    channel,
                    shutdownTimeout: current.daemon.shutdownTimeout,
                    gate: gate
                )
            else {
                self.environment.metrics.channelState(channel.name, plugin: channel.plugin, .failed)
                return
            }
            running[channel.name] = Running(
                configuration: channel,
                supervisor: supervisor,
                statusGate: gate,
                generation: thisGeneration,
                caFileContents: channel.tlsCAFileContents(environment: self.environment.processEnvironment)
            )
            self.shared.withLock { $0.supervisors.append(supervisor) }
            group.addTask {
                await supervisor.run()
                self.commandContinuation.yield(.finished(name: channel.name, generation: thisGeneration))
            }
        }

        for await command in self.commands {
            switch command {
            case .apply(let configuration, let done):
                current = configuration
                let wanted = configuration.channels.filter(\.enabled)
                let wantedNames = Set(wanted.map(\.name))
                for (name, entry) in running where !entry.stopping {
                    let replacement = wanted.first { $0.name == name }
                    // The CA file is read at start: one edited in place (the same text in the configuration) is a change too.
                    let caFileChanged =
                        replacement.map { $0.tlsCAFileContents(environment: self.environment.processEnvironment) != entry.caFileContents } ?? false
                    if replacement == nil || entry.configuration.needsRestart(toBecome: replacement!) || caFileChanged {
                        let why =
                            replacement == nil
                            ? "stopping channel \(name): removed or disabled"
                            : entry.configuration.needsRestart(toBecome: replacement!)
                                ? "restarting channel \(name): its settings changed"
                                : "restarting channel \(name): its tls-ca-file \(replacement!.tlsCAFile ?? "") changed"
                        self.environment.logger.info("\(why)", metadata: ["channel": "\(name)"])
                        running[name]?.stopping = true
                        entry.statusGate.close()
                        self.shared.withLock { shared in
                            shared.statuses[name] =
                                replacement == nil
                                ? nil
                                : ChannelStatus(name: name, plugin: replacement!.plugin, state: .starting, detail: "restarting with new settings")
                        }
                        entry.supervisor.stop()
                    } else {
                        running[name]?.configuration = replacement!
                    }
                }
                let gone = self.shared.withLock { shared in
                    shared.order = wanted.map(\.name)
                    let gone = shared.statuses.keys.filter { !wantedNames.contains($0) && running[$0] == nil }
                    for name in gone { shared.statuses[name] = nil }
                    return gone
                }
                // Channels that were not running (one that could not start): their figures go now.
                for name in gone { self.environment.metrics.forget(channel: name) }
                for channel in wanted {
                    if let entry = running[channel.name] {
                        if entry.stopping { waitingToStart[channel.name] = channel }
                    } else {
                        start(channel, group: &group)
                    }
                }
                for name in waitingToStart.keys where !wantedNames.contains(name) { waitingToStart[name] = nil }
                self.settleCheck()
                done?.resume()

            case .finished(let name, let finishedGeneration):
                guard let entry = running[name], entry.generation == finishedGeneration else { break }
                running[name] = nil
                let removed = self.shared.withLock { shared in
                    shared.supervisors.removeAll { $0 === entry.supervisor }
                    if !shared.order.contains(name) { shared.statuses[name] = nil }
                    return !shared.order.contains(name)
                }
                // A channel the configuration no longer has: its figures go with it (not on shutdown,
                // when the last scrape may still want them).
                if removed, !shuttingDown { self.environment.metrics.forget(channel: name) }
                if shuttingDown {
                    if running.isEmpty { return }
                } else if let next = waitingToStart.removeValue(forKey: name) {
                    start(next, group: &group)
                }
                self.settleCheck()
                self.onStatusChange()

            case .shutdown:
                shuttingDown = true
                waitingToStart.removeAll()
                if running.isEmpty { return }
                for (name, entry) in running where !entry.stopping {
                    running[name]?.stopping = true
                    entry.supervisor.stop()
                }
            }
        }
    }

    /// Loads the plugin and makes the channel and its supervisor; on failure records a failed status.
    private func makeSupervisor(
        _ channel: ChannelConfiguration,
        shutdownTimeout: Duration,
        gate: StatusGate
    ) -> ChannelSupervisor? {
        var logger = self.environment.logger
        logger[metadataKey: "channel"] = .string(channel.name)
        let factory: any ChannelPluginFactory
        do {
            factory = try self.environment.factory(channel.plugin)
        } catch {
            logger.error("cannot start: \(error)", metadata: ["plugin": "\(channel.plugin)"])
            self.record(ChannelStatus(name: channel.name, plugin: channel.plugin, state: .failed, detail: "\(error)", failure: .configuration))
            return nil
        }
        let tls: TLSPolicy
        do {
            tls = try channel.tlsPolicy(environment: self.environment.processEnvironment)
        } catch {
            logger.error("cannot start: \(error)")
            self.record(ChannelStatus(name: channel.name, plugin: channel.plugin, state: .failed, detail: "\(error)", failure: .configuration))
            return nil
        }
        let tokens: any TokenKeeper
        if let settings = channel.token {
            tokens = TokenManager(
                channelName: channel.name,
                settings: settings,
                source: self.environment.tokenSource(channel, settings),
                clock: self.environment.clock,
                wallClock: self.environment.wallClock,
                logger: logger,
                metrics: self.environment.metrics
            )
        } else {
            tokens = NoTokenKeeper(channelName: channel.name)
        }
        let host = DaemonChannelHost(
            channelName: channel.name,
            logger: logger,
            clock: self.environment.clock,
            wallClock: self.environment.wallClock,
            store: self.environment.store.channelStore(for: channel.name, now: self.environment.wallClock),
            secrets: self.environment.store.secrets.channelSecrets(for: channel.name),
            tokens: tokens,
            router: self.environment.router,
            network: HostNetwork(tls: tls, logger: logger),
            linkOpener: self.environment.linkOpener
        )
        let made: any Channel
        let settings = channel.pluginSettings()
        do {
            made = try factory.makeChannel(settings: settings, host: host)
            let unknown = settings.unknownKeyErrors(plugin: factory.name)
            if !unknown.isEmpty { throw ConfigurationError(unknown.map { .init(.unknownKey, $0.description) }) }
        } catch {
            let message = "plugin \(factory.name) could not make the channel: \(error)"
            logger.error("cannot start: \(message)")
            self.record(ChannelStatus(name: channel.name, plugin: channel.plugin, state: .failed, detail: message, failure: .configuration))
            return nil
        }
        logger.info("starting (plugin \(factory.name) \(factory.version), \(factory.kind))")
        if !channel.verifiesTLS {
            logger.warning(
                "tls-verify = false: this channel's TLS connections (https, wss, SIP over TLS) do not check the server's certificate, so anyone on the path can read and change them; remove the key once the server has a valid certificate"
            )
        }
        var configuration = ChannelSupervisor.Configuration(channel, shutdownTimeout: shutdownTimeout)
        configuration.disconnectsInBackground = factory.kind == .chat
        let supervisor = ChannelSupervisor(
            name: channel.name,
            plugin: channel.plugin,
            channel: made,
            tokens: tokens,
            clock: self.environment.clock,
            logger: logger,
            configuration: configuration,
            metrics: self.environment.metrics,
            onStatus: { [weak self] status in
                if gate.isOpen { self?.record(status) }
            }
        )
        host.attach(supervisor)
        self.record(supervisor.status)
        return supervisor
    }

    private func record(_ status: ChannelStatus) {
        self.shared.withLock { $0.statuses[status.name] = status }
        self.settleCheck()
        self.onStatusChange()
    }

    private func settleCheck() {
        let ready = self.shared.withLock { shared -> [CheckedContinuation<Void, Never>] in
            guard shared.statuses.values.allSatisfy(\.hasSettled) else { return [] }
            defer { shared.settledWaiters.removeAll() }
            return shared.settledWaiters
        }
        for waiter in ready { waiter.resume() }
    }
}
