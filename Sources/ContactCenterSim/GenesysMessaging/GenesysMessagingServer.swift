import Foundation
import Synchronization

/// The simulator's Genesys Cloud web messaging service: the guest WebSocket (`/v1`), the deployment
/// configuration, the history API, the OAuth code exchange and presigned uploads, on the HTTP port. It is
/// written from the Messenger transport SDK (MyPureCloud/genesys-messenger-transport-mobile-sdk) on its
/// own frames (`Wire/`), not the plugin's codec, so that a misreading both sides share cannot pass the
/// tests (issue 35). One deployment (``GenesysMessagingSettings``); sessions live in memory, keyed by the
/// token the client made; a scripted agent speaks through ``agentSays(session:text:originatingEntity:)``.
///
/// ```swift
/// let simulator = try await ContactCenterSimulator.start(SimulatorConfiguration())
/// let endpoints = simulator.genesysEndpoints    // point the plugin here
/// // … the client configures a session and sends a message …
/// try simulator.genesys.agentSays(text: "Hello, how can I help?")
/// ```
package final class GenesysMessagingServer: Sendable {
    /// The WebSocket's path (`Urls.webSocketUrl`: `wss://webmessaging.{domain}/v1`).
    static let socketPath = "/v1"

    let settings: GenesysMessagingSettings
    let now: @Sendable () -> Double
    /// `http://127.0.0.1:PORT`, for upload, download and endpoint URLs.
    let httpBase: @Sendable () -> String
    /// Signs the JWTs (HS256) the service issues.
    let signingKey: [UInt8]
    let state: Mutex<State>

    struct Session: Sendable {
        /// The simulator's name for the session (the control API's `session=`); the token stays secret.
        var id: String
        var token: String
        /// The user an authenticated session belongs to.
        var subject: String?
        /// The current conversation's messages, oldest first (what the history API pages through).
        var messages: [SimGenesysMessage] = []
        /// The agent disconnected with a ReadOnly deployment: no sends until a new chat.
        var readOnly = false
        /// Unix seconds after which the session has expired (SessionResponse's `expirationDate`).
        var expirationDate: Int
        var expired = false
        /// Conversations started in this session (a new chat after a disconnect adds one).
        var conversations = 1
    }

    struct Upload: Sendable {
        var id: String
        var token: String
        var fileName: String
        var fileType: String
        var declaredSize: Int?
        /// The `x-amz-tagging` header the PUT must carry, as a presigned S3 URL requires its signed headers.
        var tagging: String
        var bytes: [UInt8]?
        var deleted = false
    }

    struct IssuedJWT: Sendable {
        var subject: String?
        /// The session a guest JWT (getJwt) belongs to.
        var token: String?
        var expiresAt: Int
        var revoked = false
    }

    struct State: Sendable {
        var faults: [GenesysMessagingFault] = []
        var connections: [Int: GenesysMessagingConnection] = [:]
        var nextConnection = 1
        var sessions: [String: Session] = [:]
        /// Session tokens in creation order.
        var sessionOrder: [String] = []
        var nextSession = 1
        var jwts: [String: IssuedJWT] = [:]
        /// Refresh tokens of the code exchange, with their user.
        var refreshTokens: [String: String] = [:]
        /// Single-use OAuth codes, with their user.
        var oauthCodes: [String: String] = [:]
        /// Customer uploads by attachment id.
        var uploads: [String: Upload] = [:]
        /// The agent's files by id: bytes, name, type.
        var agentFiles: [String: (bytes: [UInt8], name: String, type: String, token: String)] = [:]
        // Counters and records for the tests.
        var actions: [String] = []
        var messagesReceived = 0
        var buttonResponses: [GMSJSON] = []
        var echoes = 0
        var historyRequests = 0
        var configRequests = 0
        var codeExchanges = 0
        var refreshes = 0
        var revocations = 0
    }

    init(
        settings: GenesysMessagingSettings,
        signingKey: [UInt8],
        now: @escaping @Sendable () -> Double,
        httpBase: @escaping @Sendable () -> String
    ) {
        self.settings = settings
        self.signingKey = signingKey
        self.now = now
        self.httpBase = httpBase
        self.state = Mutex(State())
    }

    var nowSeconds: Int { Int(self.now().rounded(.down)) }

    // MARK: Faults

    /// Turns a fault on. ``GenesysMessagingFault/down`` drops every open socket at once.
    package func inject(_ fault: GenesysMessagingFault) {
        let dropped: [GenesysMessagingConnection] = self.state.withLock { state in
            state.faults.append(fault)
            return fault == .down ? Array(state.connections.values) : []
        }
        for connection in dropped { connection.drop() }
    }

    package func clearFaults() { self.state.withLock { $0.faults.removeAll() } }

    /// Whether ``GenesysMessagingFault/down`` is on.
    package var isDown: Bool { self.state.withLock { $0.faults.contains(.down) } }

    /// Closes every client socket without a close frame.
    package func dropConnections() {
        for connection in self.state.withLock({ Array($0.connections.values) }) { connection.drop() }
    }

    /// Open client sockets.
    package var connectionCount: Int { self.state.withLock { $0.connections.count } }

    /// Waits until at least `count` client sockets are open.
    package func waitForConnections(_ count: Int = 1, timeout: Duration) async throws {
        _ = try await poll(timeout: timeout, failure: .timeout("\(count) web messaging socket(s) did not connect", timeout)) {
            self.connectionCount >= count ? true : nil
        }
    }

    // MARK: Inspection

    /// A session as the control API shows it.
    package struct SessionSummary: Sendable, Hashable {
        package var id: String
        package var subject: String?
        package var readOnly: Bool
        package var expired: Bool
        package var expirationDate: Int
        package var messages: Int
        package var conversations: Int
        package var connections: Int
    }

    /// The `buttonResponse` payloads customers chose, in order.
    package var chosenPayloads: [String] { self.buttonResponses.compactMap { $0["payload"]?.string } }

    /// The texts of a session's messages (nil session: the newest), oldest first, as `Direction: text`
    /// (`Inbound: hello`, `Outbound: You said: hello`); events as `Outbound: [Presence Join]`.
    package func transcript(session: String? = nil) throws(SimulatorError) -> [String] {
        try self.messages(session: session).map { message in
            let events = message.events.compactMap { event in
                event["presence"]?["type"]?.string.map { "[Presence \($0)]" } ?? event["eventType"]?.string.map { "[\($0)]" }
            }
            return "\(message.direction): " + (events.isEmpty ? (message.text ?? "") : events.joined(separator: " "))
        }
    }

    /// Every session, oldest first.
    package var sessions: [SessionSummary] {
        self.state.withLock { state in
            state.sessionOrder.compactMap { token in
                guard let session = state.sessions[token] else { return nil }
                return SessionSummary(
                    id: session.id,
                    subject: session.subject,
                    readOnly: session.readOnly,
                    expired: session.expired || self.nowSeconds >= session.expirationDate,
                    expirationDate: session.expirationDate,
                    messages: session.messages.count,
                    conversations: session.conversations,
                    connections: state.connections.values.filter { $0.token == token }.count
                )
            }
        }
    }

    /// The messages of a session's current conversation, oldest first (nil session: the newest session).
    func messages(session: String? = nil) throws(SimulatorError) -> [SimGenesysMessage] {
        let token = try self.sessionToken(session)
        return self.state.withLock { $0.sessions[token]?.messages ?? [] }
    }

    /// Customer messages received (onMessage with a Text or Structured message), in all sessions.
    package var messagesReceived: Int { self.state.withLock { $0.messagesReceived } }

    /// Client actions received, in order (`configureSession`, `onMessage`, `echo`…).
    package var receivedActions: [String] { self.state.withLock { $0.actions } }

    /// The `buttonResponse` objects customers sent (quick replies and card postbacks chosen), in order.
    var buttonResponses: [GMSJSON] { self.state.withLock { $0.buttonResponses } }

    /// The token of the session named `id` (nil: the newest session).
    func sessionToken(_ id: String?) throws(SimulatorError) -> String {
        let token: String? = self.state.withLock { state in
            if let id, !id.isEmpty { return state.sessionOrder.first { state.sessions[$0]?.id == id } }
            return state.sessionOrder.last
        }
        guard let token else {
            throw SimulatorError(
                .callState,
                id.map { "the web messaging service has no session \($0)" } ?? "no web messaging session yet: a client must configure one"
            )
        }
        return token
    }

    // MARK: Connections

    /// Registers an upgraded socket; one accepted just before the service went down is dropped here,
    /// under the same lock as ``inject(_:)``.
    func connected(_ connection: GenesysMessagingConnection) {
        let accepted = self.state.withLock { state in
            guard !state.faults.contains(.down) else { return false }
            state.connections[connection.id] = connection
            return true
        }
        if !accepted { connection.drop() }
    }

    func disconnected(_ connection: GenesysMessagingConnection) {
        self.state.withLock { _ = $0.connections.removeValue(forKey: connection.id) }
    }

    func nextConnectionID() -> Int {
        self.state.withLock { state in
            defer { state.nextConnection += 1 }
            return state.nextConnection
        }
    }

    /// The open sockets configured with `token`, oldest first.
    func connections(of token: String) -> [GenesysMessagingConnection] {
        self.state.withLock { state in state.connections.values.filter { $0.token == token }.sorted { $0.id < $1.id } }
    }

    /// Sends `bytes` as they are, as one text frame, to every client socket; returns how many.
    @discardableResult
    package func pushRaw(_ bytes: [UInt8]) -> Int {
        let connections = self.state.withLock { Array($0.connections.values) }
        for connection in connections { connection.send(bytes) }
        return connections.count
    }
}
