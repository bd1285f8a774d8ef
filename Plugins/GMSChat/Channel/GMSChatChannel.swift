import AttendantPluginAPI
import AttendantPluginKit
import GMSBayeux
import GMSCore
import Synchronization

/// A Genesys GMS customer chat over CometD: the Bayeux client (GMSBayeux) carries the session, and
/// GMSCore's pure ``GMSChatSession`` keeps the chat on top of it, in either API version:
/// - v2: every operation is a publish on `/service/chatV2/<service>`; GMS answers with events on that
///   channel carrying the chat's keys and the transcript rows since the position asked for;
/// - v1 (the seed's): the chat is started and driven over HTTP, its events arrive on `/_genesys`.
///
/// Going to the background sends `/meta/disconnect` with the highest position shown
/// (`ext.transcriptPosition`, a string as in the seed); coming back starts a new CometD session, which asks
/// for everything after it (v2 `requestNotifications`, v1 `refresh`).
///
/// The kit's ``SessionDriver`` runs the session: the lock, its timers, the callers waiting for a connect
/// or a start, and one ordered worker (run by ``run()`` for the channel's life) for the writes to the
/// store and the secrets and the events for the host. This class hands the session what the Bayeux
/// client reports and does its work: v2's publishes (GMSCore's ``GMSChatV2Operation``) and v1's HTTP
/// operations (``GMSChatV1Client``), each run beside the worker with its outcome fed back.
final class GMSChatChannel: Channel {
    typealias Session = GMSChatSession

    let configuration: GMSChatConfiguration
    let host: any ChannelHost
    let driver: SessionDriver<Session>
    /// Set once in `init`; the Bayeux client reports to this channel, which owns it.
    let bayeux: BayeuxClient
    /// v1's HTTP operations.
    let v1: GMSChatV1Client

    init(configuration: GMSChatConfiguration, host: any ChannelHost) {
        self.configuration = configuration
        self.host = host
        self.driver = SessionDriver(host: host, prefix: Session.prefix)
        var client = BayeuxClient.Configuration(url: configuration.cometdURL)
        client.machine = configuration.machine
        if configuration.apiVersion == 1 { client.headers = [NetworkHeader("gms_user", configuration.gmsUser)] }
        let relay = EventRelay()
        self.bayeux = BayeuxClient(
            configuration: client,
            network: host.network,
            clock: host.clock,
            now: { host.now().elapsed },
            logger: host.logger
        ) { event in relay.forward(event) }
        self.v1 = GMSChatV1Client(network: host.network, configuration: configuration)
        relay.channel.withLock { $0 = WeakChannel(self) }
    }

    func run() async {
        await self.driver.run { work in await self.carryOut(work) }
    }

    var prefix: String { Session.prefix }

    var serverDescription: String { self.configuration.serverDescription }

    /// The session's work, in order; GMS's operations run beside it, their outcomes fed back.
    func carryOut(_ work: Session.Work) async {
        switch work {
        case .requestNotifications(let keys, let position):
            self.driver.concurrently {
                let succeeded = await self.requestNotifications(keys, after: position)
                return { $0.notificationsAsked(succeeded: succeeded) }
            }
        case .requestChat:
            self.driver.concurrently {
                do throws(ChannelError) {
                    if self.configuration.apiVersion == 2 {
                        try await self.publish(GMSChatV2Operation.requestChat(self.configuration.customer), what: "requesting a chat from")
                        return { _ in [] }
                    }
                    let serviceID = try await self.v1.requestChat()
                    return { $0.v1ServiceMade(serviceID) }
                } catch {
                    return { $0.startFailed(error) }
                }
            }
        case .createV1Interaction(let serviceID):
            self.driver.concurrently {
                do throws(ChannelError) {
                    let (keys, event) = try await self.v1.createInteraction(serviceID: serviceID)
                    let now = self.host.now()
                    return { $0.v1Created(keys, event, now: now) }
                } catch {
                    return { $0.startFailed(error) }
                }
            }
        }
    }

    /// Publishes a v2 operation on the chat's service channel.
    func publish(_ data: JSONValue, what: String) async throws(ChannelError) {
        do {
            _ = try await self.bayeux.publish(self.configuration.serviceChannel, data: data)
        } catch {
            throw ChannelError(.transient, "\(self.prefix): \(what) \(self.serverDescription) failed: \(error)")
        }
    }
}

/// Hands the Bayeux client's events to the channel, which is made after the client.
final class EventRelay: Sendable {
    let channel = Mutex<WeakChannel?>(nil)

    func forward(_ event: BayeuxClient.Event) {
        self.channel.withLock { $0?.channel }?.bayeuxEvent(event)
    }
}

struct WeakChannel: Sendable {
    weak var channel: GMSChatChannel?
    init(_ channel: GMSChatChannel) { self.channel = channel }
}

extension UnixTime {
    /// The time as a duration since 1970, the Bayeux machine's `now`.
    var elapsed: Duration { .milliseconds(Int64((self.secondsSince1970 * 1000).rounded())) }
}
