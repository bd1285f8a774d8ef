import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import Glibc
import Synchronization

/// A ``ChannelHost`` that notes the monotonic time at which each incoming contact is emitted, on the
/// thread that emits it. Timers run on the real clock (as in the daemon: a declined call's transaction ends
/// when its Timer I fires), the store is in memory, and logging is off below errors.
final class TimingHost: ChannelHost {
    let channelName = "bench"
    let logger: Logger
    let clock: any Clock<Duration> = ContinuousClock()
    let store: any ChannelStore = InMemoryChannelStore()
    /// The daemon's network and hashes, so the figures include the host's socket layer as attendantd runs it.
    let network: any ChannelNetwork = HostNetwork(logger: Logger(label: "bench.network"))
    let hashing: any ChannelHashing = HostHashing()
    /// When each contact (by id: the Call-ID) was emitted.
    private let emitted = Mutex<[String: Duration]>([:])

    init() {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        self.logger = logger
    }

    func now() -> UnixTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UnixTime(secondsSince1970: Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9)
    }

    func currentToken() async -> ChannelToken? { nil }

    func renewToken() async throws -> ChannelToken {
        throw ChannelError(.authentication, "the benchmark's registrar asks for no credentials")
    }

    func emit(_ event: ChannelEvent) {
        guard case .incomingContact(let contact) = event else { return }
        let at = monotonicNow()
        self.emitted.withLock { $0[contact.id] = at }
    }

    /// When the channel emitted `id`'s incoming-contact event, waiting up to a second for it.
    func awaitEmission(of id: String) -> Duration? {
        let deadline = monotonicNow() + .seconds(1)
        while monotonicNow() < deadline {
            if let emitted = self.emitted.withLock({ $0.removeValue(forKey: id) }) { return emitted }
            sched_yield()
        }
        return nil
    }
}
