import AttendantCore
import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import AttendantPluginTestKit
import GMSCore

/// GMSCore's Bayeux client alone on the kit's driver, as GMSChat runs it inside its chat session: the
/// transport's POSTs run beside the worker under their tags, its WebSocket is the driver's link, and what
/// the application would hear is handed to the test, in order.
final class BayeuxDriver: Sendable {
    /// Only the Bayeux client: what it reports becomes work (`heard`), its publishes and disconnects are
    /// the driver's requests.
    struct Session: ChannelSession {
        enum Timer: Hashable, Sendable {
            case bayeux(TimerID<BayeuxClientStateMachine.TimerKind>)
        }

        enum Work: Sendable {
            case post(BayeuxPost)
            case heard(BayeuxTransport.Event)
        }

        typealias Action = SessionAction<Timer, Work>

        var transport: BayeuxTransport
        var publishes: [String: UInt64] = [:]
        /// The server's acknowledgements, by publish id, for the callers to take.
        var acknowledged: [String: BayeuxMessage] = [:]
        var disconnecting: [UInt64] = []

        mutating func drive(_ body: (inout BayeuxTransport) -> [BayeuxTransport.Output]) -> [Action] {
            var actions: [Action] = []
            for output in body(&self.transport) {
                guard case .event(let event) = output else {
                    if let action = output.action(timer: Timer.bayeux, work: Work.post) { actions.append(action) }
                    continue
                }
                switch event {
                case .published(let id, let result):
                    guard let request = self.publishes.removeValue(forKey: id) else { continue }
                    if case .success(let message) = result { self.acknowledged[id] = message }
                    let reply = result.map { _ in ChannelReply.fields(["id": id]) }
                    actions.append(.replied(request, reply.mapError { ChannelError(.server, $0.description) }))
                case .stopped:
                    actions.append(.work(.heard(event)))
                    actions += self.disconnecting.map { .replied($0, .success(.done)) }
                    self.disconnecting = []
                default:
                    actions.append(.work(.heard(event)))
                }
            }
            return actions
        }

        mutating func timerFired(_ timer: Timer, now: UnixTime) -> [Action] {
            switch timer {
            case .bayeux(let id): self.drive { $0.timerFired(id, now: now.elapsed) }
            }
        }

        mutating func forgetRequest(_ id: UInt64) {
            self.publishes = self.publishes.filter { $0.value != id }
            self.disconnecting.removeAll { $0 == id }
        }
    }

    let configuration: BayeuxTransport.Configuration
    let host = WallClockHost()
    let driver: SessionDriver<Session>

    init(configuration: BayeuxTransport.Configuration) {
        self.configuration = configuration
        self.driver = SessionDriver(host: self.host, prefix: "bayeux")
        self.driver.load(Session(transport: BayeuxTransport(configuration: configuration)))
    }

    /// Runs the driver until cancelled, handing `heard` what the client reports.
    func run(_ heard: @escaping @Sendable (BayeuxTransport.Event) -> Void) async {
        await self.driver.run(
            { work in
                switch work {
                case .post(let post): self.post(post)
                case .heard(let event): heard(event)
                }
            },
            link: { event in
                let now = self.host.now().elapsed
                switch event {
                case .opened: return { $0.drive { $0.linkOpened() } }
                case .message(let bytes):
                    let answer = self.configuration.read(bytes)
                    return { $0.drive { $0.received(answer, now: now) } }
                case .closed(let reason): return { $0.drive { $0.linkClosed(reason, now: now) } }
                @unknown default: return nil
                }
            }
        )
    }

    func post(_ post: BayeuxPost) {
        self.driver.concurrently(tag: post.tag) {
            guard self.driver.withSession({ $0.transport.wants(post) }) == true else { return { _ in [] } }
            let answer: BayeuxAnswer
            do throws(NetworkError) {
                answer = self.configuration.read(.success(try await self.host.network.send(post.request)))
            } catch {
                answer = self.configuration.read(.failure(error))
            }
            let now = self.host.now().elapsed
            return { $0.drive { $0.posted(post, answer, now: now) } }
        }
    }

    // MARK: What the tests call

    func start() {
        let now = self.host.now().elapsed
        self.driver.step { $0.drive { $0.start(now: now) } }
    }

    func subscribe(_ channel: String) {
        self.driver.step { $0.drive { $0.subscribe(channel) } }
    }

    func unsubscribe(_ channel: String) {
        self.driver.step { $0.drive { $0.unsubscribe(channel) } }
    }

    /// Publishes `data` on `channel` and returns the server's acknowledgement (`successful: true`).
    func publish(_ channel: String, data: JSONValue) async throws -> BayeuxMessage {
        let reply = try await self.driver.request { session, id in
            var published = ""
            let actions = session.drive { transport in
                let (bayeuxID, outputs) = transport.publish(channel, data: data)
                published = bayeuxID
                return outputs
            }
            session.publishes[published] = id
            return actions
        }
        guard case .fields(let fields) = reply, let id = fields["id"],
            let message = self.driver.withSession({ $0.acknowledged.removeValue(forKey: id) }) ?? nil
        else { throw ChannelError(.server, "bayeux: no acknowledgement kept for \(reply)") }
        return message
    }

    func disconnect(ext: [String: JSONValue]? = nil) async {
        let now = self.host.now().elapsed
        _ = try? await self.driver.request { session, id in
            session.disconnecting.append(id)
            return session.drive { $0.disconnect(ext: ext, now: now) }
        }
    }

    var status: BayeuxTransport.Status {
        let now = self.host.now().elapsed
        return self.driver.withSession { $0.transport.status(now: now) }!
    }
}

/// The driver's host: the daemon's network, and the wall clock (Faye's advice and the client's backoffs
/// run in real time).
struct WallClockHost: ChannelHost {
    let channelName = "faye"
    let logger = Logger(label: "faye-test")
    let network: any ChannelNetwork = HostNetwork(logger: Logger(label: "faye-test"))
    let store: any ChannelStore = InMemoryChannelStore()
    let continuous = ContinuousClock()
    let start = ContinuousClock.now

    var clock: any Clock<Duration> { self.continuous }

    func now() -> UnixTime { UnixTime(secondsSince1970: 1_800_000_000) + self.start.duration(to: .now) }

    func currentToken() async -> ChannelToken? { nil }

    func renewToken() async throws -> ChannelToken { throw ChannelError(.authentication, "faye: no tokens here") }

    func emit(_ event: ChannelEvent) {}
}
