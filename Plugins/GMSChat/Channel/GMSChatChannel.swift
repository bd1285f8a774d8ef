import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import GMSCore

/// A Genesys GMS customer chat over CometD, chat API v2 (operations published on
/// `/service/chatV2/<service>`) or v1 (the seed's: the chat driven over HTTP, its events on `/_genesys`).
/// GMSCore's pure ``GMSChatSession`` decides everything: the chat, its transcript, its Bayeux client, its
/// publishes and HTTP calls (``GMSChatCall``, ``GMSChatRequestCall``) and what their answers come to.
/// The kit's ``SessionDriver`` runs it (the lock, the timers, the callers waiting, the WebSocket as its
/// link, whose batches are decoded outside the lock, the ordered worker for the store, the secrets and
/// the host's events); this class reads the store once and sends on the host's network: a long-poll's
/// POST under its tag, and the calls.
final class GMSChatChannel: Channel {
    typealias Session = GMSChatSession

    let configuration: GMSChatConfiguration
    let host: any ChannelHost
    let driver: SessionDriver<Session>
    /// Where the CometD server is, and how its batches are read.
    let bayeux: BayeuxTransport.Configuration

    init(configuration: GMSChatConfiguration, host: any ChannelHost) {
        self.configuration = configuration
        self.host = host
        self.driver = SessionDriver(host: host, prefix: Session.prefix)
        self.bayeux = configuration.bayeux
    }

    func run() async {
        await self.driver.run({ work in await self.carryOut(work) }, link: { Session.step(for: $0, self.bayeux, now: self.host.now()) })
    }

    var prefix: String { Session.prefix }

    /// The session's work, in order: sent beside the worker, the outcome read into the next step.
    func carryOut(_ work: Session.Work) async {
        switch work {
        case .post(let post):
            // A connect given up on before its turn is not sent; one given up on as it was sent, cancelled.
            guard self.driver.withSession({ $0.bayeux.wants(post) }) == true else { return }
            self.driver.send(post.request, tag: post.tag) { outcome in
                let answer = self.bayeux.read(outcome)
                let now = self.host.now()
                return { $0.posted(post, answer, now: now) }
            }
            self.driver.step { $0.bayeux.wants(post) ? [] : [.cancelOperations(tagged: post.tag)] }
        case .requestChat, .createV1Interaction, .requestNotifications, .fetchRows:
            guard let call = self.driver.withSession({ $0.call(for: work) }) ?? nil else {
                let now = self.host.now()
                return self.driver.step { $0.carryOut(work, now: now) }
            }
            self.driver.send(call.request) { outcome in call.step(outcome, now: self.host.now()) }
        }
    }

    /// Sends a caller's call and those that follow it, and returns the caller's reply; rows it brought
    /// are the session's.
    func send(_ first: GMSChatRequestCall) async throws(ChannelError) -> ChannelReply {
        var call = first
        while true {
            let outcome: Result<NetworkResponse, NetworkError>
            do throws(NetworkError) {
                outcome = .success(try await self.host.network.send(call.request))
            } catch {
                outcome = .failure(error)
            }
            switch try call.answer(outcome) {
            case .next(let next):
                call = next
            case .reply(let reply, let rows):
                let now = self.host.now()
                if let rows { self.driver.step { $0.received(rows, now: now) } }
                return reply
            }
        }
    }
}
