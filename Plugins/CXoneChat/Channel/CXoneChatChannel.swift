import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import CXoneCore

/// A CXone customer chat: the mobile SDK's chat session, on the gateway's WebSocket and REST endpoints.
///
/// Everything protocol-shaped is decided by CXoneCore's pure ``ChatSession``: the ``ChatStateMachine``,
/// the socket's frames, the REST calls (``ChatCall``: each request, and how its answer or failure reads,
/// with analytics one at a time in the machine's order), the user's operations and what the host hears.
/// The kit's ``SessionDriver`` runs it: the lock, the timers on the host's clock (so tests compress time),
/// the socket (the kit's link, whose frames are decoded outside the lock), the REST calls (sent beside the worker,
/// their answers read outside the lock), the callers of operations, and one ordered worker, which
/// ``run()`` runs for the channel's life. This class is the host's side only: it reads what is stored,
/// keeps the outbox in that worker's order (a message is committed to the state database before its frame
/// is written), and sends the session's calls.
final class CXoneChatChannel: Channel {
    let configuration: CXoneChatConfiguration
    let host: any ChannelHost
    let settings: ChatSession.Settings
    let driver: SessionDriver<ChatSession>
    /// Messages the gateway has not confirmed, by message id (lower case), across restarts.
    let outbox: Outbox<ChatStorage.OutboxRecord>
    /// What the configuration says about the user's operations.
    let commands: ChatCommand.Settings

    init(configuration: CXoneChatConfiguration, host: any ChannelHost) {
        self.configuration = configuration
        self.host = host
        self.settings = configuration.sessionSettings
        self.commands = configuration.commandSettings
        self.driver = SessionDriver(host: host, prefix: ChatSession.prefix)
        self.outbox = Outbox(store: host.store) { $0.key }
    }

    var prefix: String { ChatSession.prefix }

    /// The worker, for as long as the host keeps the channel.
    func run() async {
        let limits = self.configuration.limits
        await self.driver.run({ work in await self.carryOut(work) }, link: { ChatSession.step(for: $0, limits: limits, now: self.host.now()) })
    }

    /// The session's work, in order: the outbox is kept here, a call goes out beside the worker and its
    /// outcome is the session's next step.
    func carryOut(_ work: ChatSession.Work) async {
        switch work {
        case .machine(.persistOutbox(let entry)):
            await self.persist(entry)
        case .machine(.removeFromOutbox(let messageID)):
            await self.removeFromOutbox(messageID)
        default:
            switch work.call(self.settings) {
            case .success(let call)?: self.driver.send(call.request) { outcome in call.step(outcome, now: self.host.now()) }
            case .failure(let error)?: self.driver.step { $0.unsent(work, error) }
            case nil: break
            }
        }
    }

    /// Sends `call` and waits for its outcome (for a caller who waits: the session's calls go through the
    /// driver).
    func send(_ call: ChatCall) async -> Result<NetworkResponse, NetworkError> {
        do throws(NetworkError) {
            return .success(try await self.host.network.send(call.request))
        } catch {
            return .failure(error)
        }
    }
}
