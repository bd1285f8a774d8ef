package import AttendantPluginAPI
import Glibc
import Synchronization

/// The host the daemon hands each channel: it forwards events to the channel's supervisor and to the
/// event router, stores in the state database (each write after what the channel reported before it is
/// recorded: ``HistoryFirstStore``) and gets tokens from the channel's token keeper.
final class DaemonChannelHost: ChannelHost {
    let channelName: String
    let logger: Logger
    let clock: any Clock<Duration>
    let store: any ChannelStore
    let secrets: any ChannelSecrets
    let network: any ChannelNetwork
    let hashing: any ChannelHashing
    private let tokens: any TokenKeeper
    private let wallClock: @Sendable () -> UnixTime
    private let router: EventRouter
    private let linkOpener: LinkOpener?
    /// Set once the supervisor exists (the channel is made before its supervisor).
    private let supervisor = Mutex<ChannelSupervisor?>(nil)

    init(
        channelName: String,
        logger: Logger,
        clock: any Clock<Duration>,
        wallClock: @escaping @Sendable () -> UnixTime,
        store: any ChannelStore,
        secrets: any ChannelSecrets,
        tokens: any TokenKeeper,
        router: EventRouter,
        network: any ChannelNetwork,
        hashing: any ChannelHashing = HostHashing(),
        linkOpener: LinkOpener? = nil
    ) {
        self.linkOpener = linkOpener
        self.network = network
        self.hashing = hashing
        self.channelName = channelName
        self.logger = logger
        self.clock = clock
        self.wallClock = wallClock
        self.store = HistoryFirstStore(store, router: router, channel: channelName)
        self.secrets = secrets
        self.tokens = tokens
        self.router = router
    }

    func attach(_ supervisor: ChannelSupervisor) {
        self.supervisor.withLock { $0 = supervisor }
    }

    func now() -> UnixTime { self.wallClock() }

    func currentToken() async -> ChannelToken? {
        let token = await self.tokens.current()
        if let token { self.supervisor.withLock { $0 }?.channelHasToken(token) }
        return token
    }

    func tokenState() async -> ChannelTokenState {
        let state = await self.tokens.state()
        if let token = state.token { self.supervisor.withLock { $0 }?.channelHasToken(token) }
        return state
    }

    func renewToken() async throws -> ChannelToken {
        do {
            let token = try await self.tokens.renew()
            self.supervisor.withLock { $0 }?.channelHasToken(token)
            return token
        } catch {
            // The channel sees the same error class the supervisor would (a token without incoming
            // capability is a configuration problem).
            throw ChannelError(error)
        }
    }

    func openURL(_ url: String) async -> LinkOpenOutcome {
        guard let linkOpener = self.linkOpener else { return .refused("this attendantd runs without a desktop session, so it opens no links") }
        return await linkOpener.open(url, channel: self.channelName)
    }

    func emit(_ event: ChannelEvent) {
        if case .stoppedListening(let error) = event {
            self.supervisor.withLock { $0 }?.channelStoppedListening(error)
        }
        self.router.deliver(event, from: self.channelName)
    }
}

/// Wall-clock time from the system.
package enum SystemWallClock {
    package static func now() -> UnixTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UnixTime(secondsSince1970: Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9)
    }
}
