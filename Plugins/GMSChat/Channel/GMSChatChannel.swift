import AttendantPluginAPI
import AttendantPluginKit
import GMSBayeux
import GMSCore
import Synchronization

/// A Genesys GMS customer chat over CometD: the Bayeux client (GMSBayeux) carries the session, this class
/// keeps the chat on top of it, in either API version:
/// - v2: every operation is a publish on `/service/chatV2/<service>`; GMS answers with events on that
///   channel carrying the chat's keys and the transcript rows since the position asked for;
/// - v1 (the seed's): the chat is started and driven over HTTP, its events arrive on `/_genesys`.
///
/// The transcript goes through a ``TranscriptLedger``: each row is shown once, in position order, and the
/// highest position shown is persisted whenever it rises. Going to the background sends `/meta/disconnect`
/// with that position (`ext.transcriptPosition`, a string as in the seed); coming back starts a new CometD
/// session and asks for everything after it (v2 `requestNotifications`, v1 `refresh`), as after any
/// re-handshake, since a chat is not bound to a new client id by itself.
///
/// State is under one lock; what must happen in order (the store, the secrets, events for the host) goes
/// to the kit's ``OrderedWorker``, which ``run()`` runs for the channel's life.
final class GMSChatChannel: Channel {
    let configuration: GMSChatConfiguration
    let host: any ChannelHost
    let worker = OrderedWorker<Work>()
    let state = Mutex(State())
    let timers: ChannelTimers<TimerKey>
    /// Set once in `init`; the Bayeux client reports to this channel, which owns it.
    let bayeux: BayeuxClient

    init(configuration: GMSChatConfiguration, host: any ChannelHost) {
        self.configuration = configuration
        self.host = host
        self.timers = ChannelTimers(clock: host.clock)
        var client = BayeuxClient.Configuration(url: configuration.cometdURL)
        client.machine = configuration.machine
        if configuration.apiVersion == 1 { client.headers = [NetworkHeader("gms_user", configuration.gmsUser)] }
        let relay = EventRelay()
        self.bayeux = BayeuxClient(
            configuration: client, network: host.network, clock: host.clock, now: { host.now().elapsed }, logger: host.logger
        ) { event in relay.forward(event) }
        relay.channel.withLock { $0 = WeakChannel(self) }
    }

    func run() async {
        await self.worker.run { work in await self.carryOut(work) }
    }

    // MARK: State

    enum Phase: String, Sendable {
        /// No chat: one starts with `chat connect`, the first `chat send`, or `auto-start`.
        case none
        case starting
        case active
        /// GMS said the chat is over.
        case ended
    }

    struct State: Sendable {
        var loaded = false
        var phase = Phase.none
        var keys: GMSChatKeys?
        /// The chat's id for the host (contacts, alerts, D-Bus): a local one, since GMS's are secrets.
        var threadID: String?
        var ledger = TranscriptLedger()
        var storedPosition = 0
        /// The gap a replay was asked for; if it is still open when the replay's time is up, it is skipped.
        var replayAskedFor: Int?
        /// The last request for the chat's events after the stored position; one that failed is made again
        /// when the session connects again.
        var notificationsRequest = RequestState.none
        /// The session was interrupted since the last request: events pushed to a connection that died
        /// may be lost (CometD has no delivery guarantee without its ack extension), so the chat's events
        /// after the stored position are asked for again once a connect succeeds.
        var replayOnConnect = false
        var listening = false
        var background = false
        var connected = false
        var contactRecorded = false
        /// v1: the chat interaction was created (after the first connect, as GMS's clients do).
        var v1Creating = false
        var startWaiters: [CheckedContinuation<Void, any Error>] = []
        var connectWaiters: [CheckedContinuation<Void, any Error>] = []
        var lastError: String?
        var eventsRejected = 0
        var eventsIgnored = 0
    }

    enum RequestState: Sendable {
        case none
        case inFlight
        case failed
    }

    enum TimerKey: Hashable, Sendable {
        /// Rows wait behind a missing position: ask for a replay, then give the gap up.
        case gap
    }

    /// Work done in order by ``run()``.
    enum Work: Sendable {
        case emit(ChannelEvent)
        case storePosition(Int)
        case storeValue(String?, key: String)
        case storeKeys(GMSChatKeys?)
        case log(Logger.Level, String)
    }

    var prefix: String { "gms-chat" }

    /// What messages call the server: `GMS at https://gms.example.com/genesys (chat API v2)`.
    var serverDescription: String { "GMS at \(self.configuration.baseURL) (chat API v\(self.configuration.apiVersion))" }

    func carryOut(_ work: Work) async {
        switch work {
        case .emit(let event):
            self.host.emit(event)
        case .storePosition(let position):
            await self.persist(String(position), key: Self.positionKey)
        case .storeValue(let value, let key):
            await self.persist(value, key: key)
        case .storeKeys(let keys):
            await self.persistKeys(keys)
        case .log(let level, let message):
            self.host.logger.log(level: level, "\(message)")
        }
    }
}

/// The chat's keys, which let anyone holding them act as the customer: kept only in the secrets file.
struct GMSChatKeys: Sendable, Hashable {
    var secureKey: String?
    var chatID: String?
    var userID: String?
    var alias: String?
    /// v1: the service GMS made for the chat (`request-chat`'s `_id`).
    var serviceID: String?
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
