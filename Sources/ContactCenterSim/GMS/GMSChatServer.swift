import Foundation
import Synchronization

/// The simulator's GMS (Genesys Mobile Services) chat server, on the simulator's HTTP port: a Bayeux 1.0
/// server at `/genesys/cometd` (long-polling and WebSocket), Chat API v2 over CometD on
/// `/service/chatV2/<service>`, Chat API v1 over REST (`/genesys/1/service/…`) with `/_genesys` events,
/// the background protocol of GMS's "Chat Push Notification and Background State" page, and a scripted
/// agent. Chats, clients and counters live in memory.
///
/// ```swift
/// let simulator = try await ContactCenterSimulator.start(SimulatorConfiguration(gms: .init(clientWindow: .seconds(2))))
/// let url = simulator.gms.cometdURL      // point the plugin here
/// let chat = try await simulator.gms.waitForChat(timeout: .seconds(30))
/// try simulator.gms.agentSays("Anything else?", chatID: chat.id)
/// ```
package final class GMSChatServer: Sendable {
    /// The CometD path; CometD JS appends the message type (`/genesys/cometd/connect`), accepted too.
    static let cometdPath = "/genesys/cometd"

    let settings: GMSServerSettings
    let now: @Sendable () -> Double
    /// `http://127.0.0.1:PORT`.
    let httpBase: @Sendable () -> String
    let state = Mutex(State())

    struct State {
        var clients: [String: BayeuxClient] = [:]
        var sockets: [Int: BayeuxSocket] = [:]
        var nextSocket = 1
        var chats: [String: GMSChatRecord] = [:]
        /// Chat ids in creation order.
        var chatOrder: [String] = []
        /// v1 service ids (from `request-chat`) → the chat created on them, once created.
        var v1Services: [String: String?] = [:]
        var counters = GMSServerCounters()
        var isDown = false
        /// fileDownload is never answered (`/control/gms/fault?kind=stall-downloads`, until `up`).
        var stallsDownloads = false
        var isStopped = false
    }

    init(settings: GMSServerSettings, now: @escaping @Sendable () -> Double, httpBase: @escaping @Sendable () -> String) {
        self.settings = settings
        self.now = now
        self.httpBase = httpBase
    }

    // MARK: Addresses

    /// `http://127.0.0.1:PORT/genesys/cometd`; its WebSocket is the same path on `ws://`.
    package var cometdURL: String { "\(self.httpBase())\(Self.cometdPath)" }

    /// `http://127.0.0.1:PORT/genesys`: v1 REST is under `baseURL + "/1/service/"`.
    package var baseURL: String { "\(self.httpBase())/genesys" }

    /// The service name the simulator announces (any other is served too).
    package var serviceName: String { self.settings.serviceName }

    // MARK: Inspection

    /// Every chat, oldest first.
    package var chats: [GMSChatSnapshot] {
        self.state.withLock { state in state.chatOrder.compactMap { state.chats[$0]?.snapshot } }
    }

    package func chat(_ id: String) -> GMSChatSnapshot? { self.state.withLock { $0.chats[id]?.snapshot } }

    /// The agent-side log of a chat (nil: the newest chat): "customer is not online" notices. These are
    /// never part of the customer's transcript, as on GMS, where the notice goes to the agent only.
    package func agentNotices(chatID: String? = nil) -> [String] {
        self.state.withLock { state in Self.chatID(chatID, in: state).flatMap { state.chats[$0]?.agentNotices } ?? [] }
    }

    package var counters: GMSServerCounters {
        self.state.withLock { state in
            var counters = state.counters
            counters.clientsAlive = state.clients.count
            return counters
        }
    }

    /// The ids of the Bayeux clients alive now.
    package var clientIDs: [String] { self.state.withLock { Array($0.clients.keys).sorted() } }

    /// Waits for a chat (the newest, once there is one).
    package func waitForChat(timeout: Duration) async throws -> GMSChatSnapshot {
        try await poll(timeout: timeout, failure: .timeout("no GMS chat was started", timeout)) { self.chats.last }
    }

    /// Waits for a customer message containing `text` in any chat; returns its row.
    package func waitForCustomerMessage(containing text: String, timeout: Duration) async throws -> GMSTranscriptRow {
        try await poll(timeout: timeout, failure: .timeout("no GMS customer message containing '\(text)' arrived", timeout)) {
            self.chats.lazy.flatMap(\.rows).first { $0.party == .client && $0.kind == .message && $0.text.contains(text) }
        }
    }

    /// Waits until `count` Bayeux clients are alive (or, with `atMost`, until no more than `count` are).
    package func waitForClients(_ count: Int, atMost: Bool = false, timeout: Duration) async throws {
        let what = atMost ? "at most \(count)" : "\(count)"
        _ = try await poll(timeout: timeout, failure: .timeout("\(what) GMS CometD client(s) were not alive", timeout)) {
            let alive = self.counters.clientsAlive
            return (atMost ? alive <= count : alive >= count) ? true : nil
        }
    }

    /// The chat a control call means: `id` if given, else the newest chat still open (else the newest).
    static func chatID(_ id: String?, in state: State) -> String? {
        if let id { return state.chats[id] == nil ? nil : id }
        return state.chatOrder.last { state.chats[$0]?.isEnded == false } ?? state.chatOrder.last
    }

    // MARK: Faults

    /// A GMS restart: every Bayeux client is forgotten (their held connects and sockets are cut), chats
    /// stay. Clients must handshake again; until then they get `402::Unknown client`.
    package func restart() {
        let effects = self.state.withLock { state in
            var effects = Self.cutConnections(&state)
            state.clients.removeAll()
            state.counters.restarts += 1
            effects += state.sockets.values.map { .dropSocket($0) }
            return effects
        }
        self.perform(effects)
    }

    /// Closes every held long-poll connection and every WebSocket without an answer. The clients live
    /// on for ``GMSServerSettings/clientWindow``, their events queued.
    package func dropConnections() {
        self.perform(self.state.withLock { state in Self.cutConnections(&state) + state.sockets.values.map { .dropSocket($0) } })
    }

    /// Sends `bytes` as they are to every client: as the answer to its held long-poll, or as a text frame
    /// on its socket (the bad-input fault: not JSON, not Bayeux, oversized). Returns how many it reached.
    @discardableResult
    package func pushRaw(_ bytes: [UInt8]) -> Int {
        let effects = self.state.withLock { state -> [GMSEffect] in
            var effects: [GMSEffect] = []
            for id in Array(state.clients.keys) {
                if let held = state.clients[id]?.held, case .longPoll(let continuation, _) = held.waiter {
                    state.clients[id]?.held = nil
                    effects += [.resume(continuation, .raw(bytes)), .expireLater(client: id, epoch: held.epoch)]
                } else if let socket = state.clients[id]?.socket {
                    effects.append(.sendRaw(socket, bytes))
                }
            }
            return effects
        }
        self.perform(effects)
        return effects.filter { if case .expireLater = $0 { false } else { true } }.count
    }

    /// While down every GMS path (CometD, WebSocket upgrades, v1 REST) answers 503, and open
    /// connections are cut at once; clients and chats stay.
    package func setDown(_ down: Bool) {
        self.state.withLock { $0.isDown = down }
        if down { self.dropConnections() }
    }

    package var isDown: Bool { self.state.withLock { $0.isDown } }

    /// Whether fileDownload goes unanswered, on a connection kept open until the client gives up.
    package var stallsDownloads: Bool {
        get { self.state.withLock { $0.stallsDownloads } }
        set { self.state.withLock { $0.stallsDownloads = newValue } }
    }

    /// Cuts everything for good (the simulator stops): held requests and sockets, and no timer acts again.
    func shutdown() {
        self.perform(
            self.state.withLock { state in
                state.isStopped = true
                return Self.cutConnections(&state) + state.sockets.values.map { .dropSocket($0) }
            }
        )
    }

    /// Takes every held connect: a held long-poll's connection is closed unanswered; a socket's held
    /// connect is forgotten (the socket is dropped by the caller). The clients lose their sockets now, not
    /// when the close is reported, so an event from now on waits in the queue instead of going to a socket
    /// that is being closed.
    static func cutConnections(_ state: inout State) -> [GMSEffect] {
        var effects: [GMSEffect] = []
        for id in Array(state.clients.keys) {
            state.clients[id]?.socket = nil
            guard let held = state.clients[id]?.held else { continue }
            state.clients[id]?.held = nil
            if case .longPoll(let continuation, let link) = held.waiter {
                effects.append(.resume(continuation, .drop))
                if let link { effects.append(.closeLink(link)) }
            }
            effects.append(.expireLater(client: id, epoch: held.epoch))
        }
        return effects
    }
}

/// What the GMS server has seen, for tests and `/control/gms/status`.
package struct GMSServerCounters: Sendable, Hashable {
    /// A `/meta/disconnect`: which client, and the `ext.transcriptPosition` it carried, as text.
    package struct Disconnect: Sendable, Hashable {
        package var clientID: String
        package var transcriptPosition: String?
    }

    package var handshakes = 0
    package var connects = 0
    /// Bayeux clients alive now.
    package var clientsAlive = 0
    /// Clients destroyed because no connect came within the client window.
    package var clientsExpired = 0
    /// Requests answered `402::Unknown client`.
    package var unknownClientReplies = 0
    package var restarts = 0
    package var disconnects: [Disconnect] = []
}
