import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import GMSCore

/// A Genesys GMS customer chat over CometD: GMSCore's pure ``GMSChatSession`` keeps the chat and, as a
/// component, its Bayeux client (``BayeuxTransport``), in either API version:
/// - v2: every operation is a publish on `/service/chatV2/<service>`; GMS answers with events on that
///   channel carrying the chat's keys and the transcript rows since the position asked for;
/// - v1 (the seed's): the chat is started and driven over HTTP, its events arrive on `/_genesys`.
///
/// Going to the background sends `/meta/disconnect` with the highest position shown
/// (`ext.transcriptPosition`, a string as in the seed); coming back starts a new CometD session, which asks
/// for everything after it (v2 `requestNotifications`, v1 `refresh`).
///
/// The kit's ``SessionDriver`` runs the session: the lock, its timers, the callers waiting for a connect,
/// a start or a publish, the WebSocket (the driver's link, whose batches ``read(_:)`` decodes outside the
/// lock), and one ordered worker (run by ``run()`` for the channel's life) for the writes to the store and
/// the secrets and the events for the host. This class does the session's work: long-polling's POSTs and
/// v1's HTTP operations (made and read by GMSCore's ``GMSChatHTTP``), each run beside the worker with its
/// outcome fed back.
final class GMSChatChannel: Channel {
    typealias Session = GMSChatSession

    let configuration: GMSChatConfiguration
    let host: any ChannelHost
    let driver: SessionDriver<Session>
    /// Where the CometD server is, and how its batches are read.
    let bayeux: BayeuxTransport.Configuration
    /// v1's HTTP operations and v2's file calls.
    let http: GMSChatHTTP

    init(configuration: GMSChatConfiguration, host: any ChannelHost) {
        self.configuration = configuration
        self.host = host
        self.driver = SessionDriver(host: host, prefix: Session.prefix)
        var bayeux = BayeuxTransport.Configuration(url: configuration.cometdURL)
        bayeux.machine = configuration.machine
        if configuration.apiVersion == 1 { bayeux.headers = [NetworkHeader("gms_user", configuration.gmsUser)] }
        self.bayeux = bayeux
        self.http = GMSChatHTTP(
            baseURL: configuration.baseURL,
            gmsUser: configuration.gmsUser,
            serverDescription: configuration.serverDescription,
            networkDelay: configuration.machine.networkDelay
        )
    }

    func run() async {
        await self.driver.run({ work in await self.carryOut(work) }, link: { self.read($0) })
    }

    var prefix: String { Session.prefix }

    var serverDescription: String { self.configuration.serverDescription }

    /// What the WebSocket brings, as the session's steps: a batch is decoded here, outside the lock.
    func read(_ event: LinkEvent) -> ((inout Session) -> [Session.Action])? {
        let now = self.host.now()
        switch event {
        case .opened:
            return { $0.linkOpened(now: now) }
        case .message(let bytes):
            let answer = self.bayeux.read(bytes)
            return { $0.linkMessage(answer, now: now) }
        case .closed(let reason):
            return { $0.linkClosed(reason, now: now) }
        @unknown default:
            return nil
        }
    }

    /// The session's work, in order; the network's run beside it, their outcomes fed back.
    func carryOut(_ work: Session.Work) async {
        switch work {
        case .post(let post):
            // Under its tag, so that the session abandoning a held connect cancels it.
            self.driver.concurrently(tag: post.tag) {
                guard self.driver.withSession({ $0.bayeux.wants(post) }) == true else { return { _ in [] } }
                let answer: BayeuxAnswer
                do throws(NetworkError) {
                    answer = self.bayeux.read(.success(try await self.host.network.send(post.request)))
                } catch {
                    answer = self.bayeux.read(.failure(error))
                }
                let now = self.host.now()
                return { $0.posted(post, answer, now: now) }
            }
        case .requestNotifications(let keys, let position):
            self.driver.concurrently {
                let succeeded = await self.requestNotifications(keys, after: position)
                return { $0.notificationsAsked(succeeded: succeeded) }
            }
        case .fetchRows(let keys, let from):
            self.driver.concurrently {
                let succeeded = await self.requestNotifications(keys, after: from - 1)
                return { $0.historyFetchAsked(succeeded: succeeded) }
            }
        case .requestChat:
            self.driver.concurrently {
                do throws(ChannelError) {
                    if self.configuration.apiVersion == 2 {
                        try await self.publish(GMSChatV2Operation.requestChat(self.configuration.customer), what: "requesting a chat from")
                        return { _ in [] }
                    }
                    let form = GMSChatV1Form.requestChat(service: self.configuration.service, subject: self.configuration.customer.subject)
                    let serviceID = try self.http.serviceID(try await self.post(form))
                    return { $0.v1ServiceMade(serviceID) }
                } catch {
                    return { $0.startFailed(error) }
                }
            }
        case .createV1Interaction(let serviceID):
            self.driver.concurrently {
                do throws(ChannelError) {
                    let form = GMSChatV1Form.createInteraction(serviceID: serviceID, customer: self.configuration.customer)
                    let (keys, event) = try self.http.created(try await self.post(form), serviceID: serviceID)
                    let now = self.host.now()
                    return { $0.v1Created(keys, event, now: now) }
                } catch {
                    return { $0.startFailed(error) }
                }
            }
        }
    }

    /// Sends `request` on the host's network.
    func send(_ request: NetworkRequest) async -> Result<NetworkResponse, NetworkError> {
        do throws(NetworkError) {
            return .success(try await self.host.network.send(request))
        } catch {
            return .failure(error)
        }
    }

    /// POSTs a v1 form: the JSON object GMS answered.
    func post(_ form: GMSChatV1Form) async throws(ChannelError) -> [String: JSONValue] {
        try self.http.read(await self.send(self.http.request(form)), of: form).get()
    }

    /// Publishes a v2 operation on the chat's service channel, and returns once GMS acknowledged it.
    func publish(_ data: JSONValue, what: String) async throws(ChannelError) {
        let now = self.host.now()
        _ = try await self.driver.request { session, id in session.publish(data, what: what, id, now: now) }
    }
}
