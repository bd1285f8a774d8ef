public import AttendantPluginAPI
import Synchronization

/// A ``ChannelHost`` for plugin tests: records every event, keeps a token you set, stores in memory,
/// runs on a ``ManualClock``, lends an ``InMemoryNetwork`` the test drives and hashes with
/// ``InMemoryHashing``. A plugin test needs nothing of the daemon.
///
/// ```swift
/// let host = InMemoryChannelHost()
/// host.inMemoryNetwork.answer("GET", "https://chat.example.com/config", with: NetworkResponse(status: 200))
/// let channel = try factory.makeChannel(settings: ChannelSettings([:]), host: host)
/// try await channel.listen()
/// let socket = try await host.inMemoryNetwork.nextWebSocket()
/// socket.send(text: "welcome")
/// let event = await host.nextEvent()
/// ```
public final class InMemoryChannelHost: ChannelHost {
    public let channelName: String
    public let logger: Logger
    public let manualClock: ManualClock
    public let inMemoryStore: InMemoryChannelStore
    /// The channel's secrets, in memory.
    public let inMemorySecrets = InMemoryChannelSecrets()
    /// Everything the channel logged.
    public let logRecords: LogRecords

    private struct State {
        var token: ChannelToken?
        var tokenProblem: String?
        var renewal: (@Sendable () async throws -> ChannelToken)?
        var renewCount = 0
        var events: [ChannelEvent] = []
        var delivered = 0
        var waiters: [CheckedContinuation<ChannelEvent, Never>] = []
    }

    private let state = Mutex(State())

    /// The network the channel uses: by default an ``InMemoryNetwork`` on the host's clock
    /// (``inMemoryNetwork``); `NoChannelNetwork()` for a host without one, or any other network.
    public let network: any ChannelNetwork
    /// Hashes: by default ``InMemoryHashing``.
    public let hashing: any ChannelHashing

    /// `network` nil: an ``InMemoryNetwork`` whose time limits run on `clock`.
    public init(
        channelName: String = "test",
        clock: ManualClock = ManualClock(),
        token: ChannelToken? = nil,
        network: (any ChannelNetwork)? = nil,
        hashing: any ChannelHashing = InMemoryHashing()
    ) {
        self.network = network ?? InMemoryNetwork(clock: clock)
        self.hashing = hashing
        self.channelName = channelName
        self.manualClock = clock
        self.inMemoryStore = InMemoryChannelStore(now: { clock.unixTime() })
        let records = LogRecords()
        self.logRecords = records
        var logger = Logger(label: "attendant.test") { _ in RecordingLogHandler(records: records) }
        logger[metadataKey: "channel"] = .string(channelName)
        logger.logLevel = .trace
        self.logger = logger
        self.state.withLock { $0.token = token }
    }

    public var clock: any Clock<Duration> { self.manualClock }

    /// The network the test drives: the default one, or the ``InMemoryNetwork`` given to `init`.
    public var inMemoryNetwork: InMemoryNetwork {
        guard let network = self.network as? InMemoryNetwork else {
            preconditionFailure("this host was given another network (\(type(of: self.network))), not an InMemoryNetwork")
        }
        return network
    }

    public var store: any ChannelStore { self.inMemoryStore }

    public var secrets: any ChannelSecrets { self.inMemorySecrets }

    public func now() -> UnixTime { self.manualClock.unixTime() }

    // MARK: Tokens

    /// Sets the token that ``currentToken()`` returns; without one, ``tokenState()`` says the channel has
    /// no token source.
    public func setToken(_ token: ChannelToken?) {
        self.state.withLock {
            $0.token = token
            $0.tokenProblem = nil
        }
    }

    /// Makes the channel's token source one that has no valid token now, for `reason`.
    public func setTokenUnavailable(reason: String) {
        self.state.withLock {
            $0.token = nil
            $0.tokenProblem = reason
        }
    }

    /// Decides what ``renewToken()`` does; by default it fails with an authentication error.
    public func onRenewToken(_ renewal: @escaping @Sendable () async throws -> ChannelToken) {
        self.state.withLock { $0.renewal = renewal }
    }

    /// How often the channel asked for a new token.
    public var renewCount: Int { self.state.withLock { $0.renewCount } }

    public func currentToken() async -> ChannelToken? { self.state.withLock { $0.token } }

    public func tokenState() async -> ChannelTokenState {
        self.state.withLock { state in
            if let token = state.token {
                .available(token)
            } else if let problem = state.tokenProblem {
                .unavailable(reason: problem)
            } else {
                .noSource
            }
        }
    }

    public func renewToken() async throws -> ChannelToken {
        let renewal = self.state.withLock { state in
            state.renewCount += 1
            return state.renewal
        }
        guard let renewal else {
            throw ChannelError(.authentication, "the test host has no token to give")
        }
        let token = try await renewal()
        self.setToken(token)
        return token
    }

    // MARK: Events

    public func emit(_ event: ChannelEvent) {
        let waiter: CheckedContinuation<ChannelEvent, Never>? = self.state.withLock { state in
            state.events.append(event)
            guard !state.waiters.isEmpty else { return nil }
            state.delivered += 1
            return state.waiters.removeFirst()
        }
        waiter?.resume(returning: event)
    }

    /// Every event emitted so far.
    public var events: [ChannelEvent] { self.state.withLock { $0.events } }

    /// The next event not yet returned by this method, waiting for it if needed.
    public func nextEvent() async -> ChannelEvent {
        await withCheckedContinuation { continuation in
            let event: ChannelEvent? = self.state.withLock { state in
                if state.delivered < state.events.count {
                    defer { state.delivered += 1 }
                    return state.events[state.delivered]
                }
                state.waiters.append(continuation)
                return nil
            }
            if let event { continuation.resume(returning: event) }
        }
    }
}

/// ``ChannelSecrets`` in memory, for tests.
public final class InMemoryChannelSecrets: ChannelSecrets {
    private let values = Mutex<[String: String]>([:])
    private let writeFailure = Mutex<String?>(nil)

    public init() {}

    public func secret(forKey key: String) async throws -> String? { self.values.withLock { $0[key] } }

    public func setSecret(_ value: String?, forKey key: String) async throws {
        if let reason = self.writeFailure.withLock({ $0 }) { throw SecretsWriteFailure(reason: reason) }
        self.values.withLock { $0[key] = value }
    }

    /// From now on every write fails with `reason` (a full disk, say); nil makes writes work again.
    public func failWrites(_ reason: String?) {
        self.writeFailure.withLock { $0 = reason }
    }

    /// The error of a write ``failWrites(_:)`` made fail.
    public struct SecretsWriteFailure: Error, CustomStringConvertible {
        public var reason: String
        public var description: String { self.reason }
    }

    /// Every secret stored, for assertions.
    public var all: [String: String] { self.values.withLock { $0 } }
}
