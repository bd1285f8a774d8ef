import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import CXoneCore
import FoundationEssentials
import Synchronization

/// A CXone customer chat: the mobile SDK's chat session, on the gateway's WebSocket and REST endpoints.
///
/// Everything protocol-shaped is decided by CXoneCore's pure ``ChatSession`` (the ``ChatStateMachine``,
/// the socket's frames, the user's operations and what the host hears), and the kit's ``SessionDriver``
/// runs it: the lock, the timers on the host's clock (so tests compress time), the socket (the kit's link,
/// whose frames ``read(_:)`` decodes), the callers of operations, and one ordered worker, which ``run()``
/// runs for the channel's life. This class does the session's work in that order: REST calls (run beside
/// the worker, their answers fed back), the outbox, analytics. Keeping them in one queue means a message is
/// in the outbox (committed to the state database) before its frame is written, and events reach the host
/// in the machine's order.
final class CXoneChatChannel: Channel {
    let configuration: CXoneChatConfiguration
    let host: any ChannelHost
    let rest: CXoneREST
    let driver: SessionDriver<ChatSession>
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

    /// The worker, for as long as the host keeps the channel, and beside it the analytics events, one
    /// after the other (so the server sees a visit before its page views).
    func run() async {
        async let analytics: Void = self.analytics.run { await self.send($0) }
        await self.driver.run({ work in await self.carryOut(work) }, link: { self.read($0) })
        self.analytics.finish()
        await analytics
    }

    // MARK: The socket

    /// What the socket brings, as the session's steps: a frame is decoded here, outside the lock.
    func read(_ event: LinkEvent) -> ((inout ChatSession) -> [ChatSession.Action])? {
        switch event {
        case .opened:
            return { $0.socketOpened() }
        case .closed(let reason):
            return { $0.socketClosed(reason: reason) }
        case .message(let bytes):
            let now = self.host.now()
            do {
                let inbound = try CXoneInbound.decode(bytes, limits: self.configuration.limits)
                return { $0.received(inbound, now: now) }
            } catch {
                let warning = "\(self.prefix): ignored a frame from \(self.configuration.gatewayDescription) (\(bytes.count) bytes): \(error)"
                return { session in
                    session.framesRejected += 1
                    return [.log(.warning, warning)]
                }
            }
        @unknown default:
            return nil
        }
    }
}
