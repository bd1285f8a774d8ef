import AttendantPluginAPI
import AttendantPluginKit
import CXoneCore
import FoundationEssentials
import Synchronization

/// A CXone customer chat: the mobile SDK's chat session, on the gateway's WebSocket and REST endpoints.
///
/// Everything protocol-shaped is decided by CXoneCore's pure ``ChatSession`` (the ``ChatStateMachine``,
/// the socket's generations and frames, the user's operations and what the host hears), and the kit's
/// ``SessionDriver`` runs it: the lock, the timers on the host's clock (so tests compress time), the
/// callers of operations, and one ordered worker, which ``run()`` runs for the channel's life. This class
/// does the session's work in that order: REST calls (started as tasks of their own, their answers fed
/// back), the socket, the state store and secrets. Keeping them in one queue means a message is in the
/// outbox (committed to the state database) before its frame is written, and events reach the host in the
/// machine's order.
final class CXoneChatChannel: Channel {
    let configuration: CXoneChatConfiguration
    let host: any ChannelHost
    let rest: CXoneREST
    let driver: SessionDriver<ChatSession>
    let connection = Mutex(Connection())
    /// Messages the gateway has not confirmed, by message id (lower case), across restarts.
    let outbox: Outbox<ChatStorage.OutboxRecord>
    let analytics = OrderedWorker<Analytics>()
    /// What the configuration says about the user's operations.
    let commands: ChatCommand.Settings

    init(configuration: CXoneChatConfiguration, host: any ChannelHost) {
        self.configuration = configuration
        self.host = host
        self.rest = CXoneREST(
            network: host.network,
            endpoints: configuration.endpoints,
            timeout: configuration.requestTimeout,
            limits: configuration.limits
        )
        self.driver = SessionDriver(host: host, prefix: ChatSession.prefix)
        self.commands = ChatCommand.Settings(
            brandID: configuration.brandID,
            channelID: configuration.channelID,
            requestTimeout: configuration.requestTimeout,
            responseTimeout: configuration.machine.responseTimeout,
            gatewayDescription: configuration.gatewayDescription
        )
        self.outbox = Outbox(store: host.store) { $0.key }
    }

    var prefix: String { ChatSession.prefix }

    /// What the driver holds beside the session: the current socket and its generation.
    struct Connection: Sendable {
        var socket: CXoneSocket?
        var generation = Generation()

        /// The socket, if it is the one of `generation`.
        func socket(of generation: Generation) -> CXoneSocket? {
            self.generation == generation ? self.socket : nil
        }

        /// Takes the socket out (for closing).
        mutating func take() -> CXoneSocket? {
            defer { self.socket = nil }
            return self.socket
        }
    }

    /// The worker, for as long as the host keeps the channel, and beside it the analytics events, one
    /// after the other (so the server sees a visit before its page views).
    func run() async {
        async let analytics: Void = self.analytics.run { await self.send($0) }
        await self.driver.run { work in await self.carryOut(work) }
        self.analytics.finish()
        await analytics
    }

    // MARK: The socket

    func open(_ url: String, generation: Generation) {
        let socket = CXoneSocket.open(network: self.host.network, url: url, maximumSize: self.configuration.limits.maxFrameSize * 4) {
            [weak self] event in
            self?.socketEvent(event, generation: generation)
        }
        let previous = self.connection.withLock { connection in
            defer { (connection.socket, connection.generation) = (socket, generation) }
            return connection.take()
        }
        previous?.close()
    }

    func socketEvent(_ event: CXoneSocket.Event, generation: Generation) {
        switch event {
        case .opened:
            self.driver.step { $0.socketOpened(generation) }
        case .closed(let reason):
            self.connection.withLock { if $0.generation == generation { $0.socket = nil } }
            self.driver.step { $0.socketClosed(generation, reason: reason) }
        case .text(let bytes):
            self.received(bytes, generation: generation)
        }
    }

    /// One frame from the gateway: decoded here (outside the lock), then handed to the session.
    func received(_ bytes: [UInt8], generation: Generation) {
        let inbound: CXoneInbound
        do {
            inbound = try CXoneInbound.decode(bytes, limits: self.configuration.limits)
        } catch {
            _ = self.driver.withSession { $0.framesRejected += 1 }
            self.host.logger.warning("\(self.prefix): ignored a frame from \(self.configuration.gatewayDescription) (\(bytes.count) bytes): \(error)")
            return
        }
        let now = self.host.now()
        self.driver.step { $0.received(inbound, on: generation, now: now) }
    }

    func write(_ bytes: [UInt8], generation: Generation) async {
        guard let socket = self.connection.withLock({ $0.socket(of: generation) }) else { return }
        do {
            try await socket.send(bytes)
        } catch {
            // The socket's end is reported by the socket itself.
            self.host.logger.debug("\(self.prefix): a frame was not sent: \(error)")
        }
    }
}
