import Foundation
import Synchronization

/// The simulator's CXone chat gateway: the channel's REST endpoints and its WebSocket, on the simulator's
/// own frame codec (`Wire/`), not the plugin's (`CXoneCore`): an independent peer catches a misreading
/// both sides would otherwise share (issue 11). One brand and channel (``CXoneGatewaySettings``); threads,
/// messages, tokens and visitors live in memory; a scripted agent speaks through ``agentSays(threadID:text:)``.
///
/// ```swift
/// let simulator = try await ContactCenterSimulator.start(SimulatorConfiguration(cxone: .init(autoReply: true)))
/// let endpoints = simulator.cxoneEndpoints   // point the plugin here (socket, chat, host)
/// // … the client connects, sends a message in thread T …
/// try simulator.cxone.agentSays(threadID: T, text: "Hello, how can I help?")
/// ```
package final class CXoneGateway: Sendable {
    /// The WebSocket's path on the HTTP port.
    static let socketPath = "/chat-gateway"

    let settings: CXoneGatewaySettings
    let now: @Sendable () -> Double
    /// `http://127.0.0.1:PORT`, for EventInS3 URLs.
    let httpBase: @Sendable () -> String
    let state: Mutex<State>

    struct State {
        var isOnline: Bool
        var faults: [CXoneGatewayFault] = []
        var connections: [Int: CXoneGatewayConnection] = [:]
        var nextConnection = 1
        /// Access token → the customer it was issued to.
        var tokens: [String: SimCXoneCustomer] = [:]
        /// Every access token issued, also those a refresh replaced (``issuedTokens``).
        var issuedAccessTokens: [String] = []
        /// Threads by ``SimCXoneID/key(_:)`` of their id.
        var threads: [String: CXoneGatewayThread] = [:]
        /// Thread keys in creation order.
        var threadOrder: [String] = []
        /// Visitors by ``SimCXoneID/key(_:)`` of their id.
        var visitors: [String: CXoneGatewayVisitor] = [:]
        /// Visitor PUTs and availability GETs answered (for tests).
        var visitorWrites = 0
        var availabilityRequests = 0
        var analyticsEvents: [CXoneGatewayAnalyticsEvent] = []
        /// EventInS3 bodies by id.
        var s3Objects: [String: [UInt8]] = [:]
        /// Contact custom fields sent with messages (the pre-chat form's answers), by thread key.
        var contactFields: [String: [String: String]] = [:]
        /// Every client event type received, in order (for tests).
        var receivedEventTypes: [String] = []
        /// Files the agent attached, by id, with the signature their URL carries (CXoneGateway+Files).
        var files: [String: (bytes: [UInt8], signature: String)] = [:]
        /// Attachment downloads answered (for tests).
        var fileDownloads = 0
        /// Files the customer uploaded, in order (for tests).
        var uploads: [CXoneGatewayUpload] = []
        /// Transcripts sent (SendTranscript answered with TranscriptSent).
        var transcripts: [CXoneGatewayTranscript] = []
        /// Transaction tokens (secured sessions): the customer each authorizes and when it expires.
        var transactionTokens: [String: (customer: SimCXoneCustomer, expiresAt: Double)] = [:]
        var transactionTokensIssued = 0
        /// How many messages RecoverThread and LoadMoreMessages give at most (nil: all of them).
        var pageSize: Int?
    }

    init(settings: CXoneGatewaySettings, now: @escaping @Sendable () -> Double, httpBase: @escaping @Sendable () -> String) {
        self.settings = settings
        self.now = now
        self.httpBase = httpBase
        self.state = Mutex(State(isOnline: settings.isOnline))
    }

    // MARK: Availability and faults

    /// Flips what the availability endpoint answers.
    package func setOnline(_ online: Bool) { self.state.withLock { $0.isOnline = online } }

    package var isOnline: Bool { self.state.withLock { $0.isOnline } }

    /// Turns a fault on until ``clearFaults()``. ``CXoneGatewayFault/down`` drops every open socket at once.
    package func inject(_ fault: CXoneGatewayFault) {
        let dropped: [CXoneGatewayConnection] = self.state.withLock { state in
            state.faults.append(fault)
            return fault == .down ? Array(state.connections.values) : []
        }
        for connection in dropped { connection.drop() }
    }

    package func clearFaults() { self.state.withLock { $0.faults.removeAll() } }

    /// Takes the gateway down (``CXoneGatewayFault/down``) or brings it back, leaving other faults as they are.
    package func setDown(_ down: Bool) {
        if down {
            if !self.isDown { self.inject(.down) }
        } else {
            self.state.withLock { $0.faults.removeAll { $0 == .down } }
        }
    }

    /// Whether ``CXoneGatewayFault/down`` is on: sockets are refused and REST answers 503.
    package var isDown: Bool { self.hasFault(.down) }

    func hasFault(_ fault: CXoneGatewayFault) -> Bool { self.state.withLock { $0.faults.contains(fault) } }

    /// Closes every client socket without a close frame.
    package func dropConnections() {
        for connection in self.state.withLock({ Array($0.connections.values) }) { connection.drop() }
    }

    /// Open client sockets.
    package var connectionCount: Int { self.state.withLock { $0.connections.count } }

    /// Waits until at least `count` client sockets are open.
    package func waitForConnections(_ count: Int = 1, timeout: Duration) async throws {
        _ = try await poll(timeout: timeout, failure: .timeout("\(count) CXone socket(s) did not connect", timeout)) {
            self.connectionCount >= count ? true : nil
        }
    }

    // MARK: Inspection

    /// Every thread, oldest first.
    package var threads: [CXoneGatewayThread] {
        self.state.withLock { state in state.threadOrder.compactMap { state.threads[$0] } }
    }

    /// The thread with this id, in any letter case.
    package func thread(_ id: String) -> CXoneGatewayThread? { self.state.withLock { $0.threads[SimCXoneID.key(id)] } }

    /// Visitors PUT to the web-analytics endpoint, by visitor id in lower case.
    package var visitors: [String: CXoneGatewayVisitor] { self.state.withLock { $0.visitors } }

    /// Analytics events POSTed or sent with StoreVisitorEvents, in order.
    package var analyticsEvents: [CXoneGatewayAnalyticsEvent] { self.state.withLock { $0.analyticsEvents } }

    /// Contact custom fields received with messages, by thread id in lower case.
    package var contactFields: [String: [String: String]] { self.state.withLock { $0.contactFields } }

    /// Client event types received so far, in order.
    package var receivedEventTypes: [String] { self.state.withLock { $0.receivedEventTypes } }

    // MARK: Scripted agent

    /// The agent writes in a thread: MessageCreated (direction outbound, the agent as author) is pushed to
    /// the thread's customer if connected; either way the message is stored for RecoverThread. `at` sets
    /// its `createdAt` (seconds since 1970; the real gateway's have whole seconds), else now.
    @discardableResult
    package func agentSays(threadID: String, text: String, at: Double? = nil) throws(SimulatorError) -> CXoneGatewayMessage {
        try self.agentSends(threadID: threadID, content: CXoneGatewayMessage.textContent(text), at: at)
    }

    /// The agent writes `content` (a `messageContent`) with `attachments` in a thread, as ``agentSays(threadID:text:at:)``.
    @discardableResult
    func agentSends(threadID: String, content: GMSJSON, attachments: [GMSJSON] = [], at: Double? = nil) throws(SimulatorError) -> CXoneGatewayMessage
    {
        let date = Date(timeIntervalSince1970: at ?? self.now())
        let result: (CXoneGatewayMessage, CXoneGatewayThread, [CXoneGatewayConnection])? = self.state.withLock { state in
            guard var thread = state.threads[SimCXoneID.key(threadID)] else { return nil }
            let message = CXoneGatewayMessage(
                id: SimCXoneID.random(),
                threadId: thread.id,
                createdAt: date,
                direction: .outbound,
                agent: self.settings.agent,
                content: content,
                attachments: attachments
            )
            thread.messages.append(message)
            state.threads[SimCXoneID.key(thread.id)] = thread
            return (message, thread, Self.connections(of: thread.customerId, in: state))
        }
        guard case let (message, thread, connections)? = result else {
            throw SimulatorError(.callState, "the CXone gateway has no thread \(threadID); the customer must send a message first")
        }
        for connection in connections { self.push("MessageCreated", self.messageCreated(message, in: thread), to: connection) }
        return message
    }

    /// The agent starts a conversation (an outbound thread) with a customer: a new thread whose first
    /// message is the agent's, pushed as MessageCreated if the customer is connected.
    @discardableResult
    package func agentOpensThread(customerID: String, text: String, at seconds: Double? = nil) throws(SimulatorError) -> CXoneGatewayMessage {
        let known = self.state.withLock { state in
            state.connections.values.contains { SimCXoneID.same($0.customerId, customerID) }
                || state.threads.values.contains { SimCXoneID.same($0.customerId, customerID) }
        }
        guard known else {
            throw SimulatorError(.callState, "the CXone gateway knows no customer \(customerID); a client must authorize first")
        }
        let id = SimCXoneID.random()
        let contact = CXoneGatewayContact(id: SimCXoneID.random(), status: "new", createdAt: Date(timeIntervalSince1970: seconds ?? self.now()))
        let thread = CXoneGatewayThread(id: id, customerId: customerID, contact: contact, messages: [])
        self.state.withLock { state in
            state.threads[SimCXoneID.key(id)] = thread
            state.threadOrder.append(SimCXoneID.key(id))
        }
        return try self.agentSays(threadID: id, text: text, at: seconds)
    }

    /// The customers who authorized on a socket that is open now, oldest connection first.
    package var customerIDs: [String] {
        self.state.withLock { state in state.connections.values.sorted { $0.id < $1.id }.compactMap(\.customerId) }
    }

    /// Sends `bytes` as they are, as one text frame, to every client socket; returns how many.
    @discardableResult
    package func pushRaw(_ bytes: [UInt8]) -> Int {
        let connections = self.state.withLock { Array($0.connections.values) }
        for connection in connections { connection.send(bytes) }
        return connections.count
    }

    static func connections(of customerId: String, in state: State) -> [CXoneGatewayConnection] {
        state.connections.values.filter { SimCXoneID.same($0.customerId, customerId) }.sorted { $0.id < $1.id }
    }

    /// MessageCreated's data: `{"brand", "channel", "case", "thread", "message"}`.
    func messageCreated(_ message: CXoneGatewayMessage, in thread: CXoneGatewayThread) -> GMSJSON {
        [
            "brand": ["id": .int(self.settings.brandId)],
            "channel": ["id": .string(self.settings.channelId)],
            "case": thread.contactJSON,
            "thread": thread.json(channelId: self.settings.channelId),
            "message": message.json,
        ]
    }

    // MARK: Connections

    /// Registers a socket whose upgrade is done. One that was accepted just before the gateway went down
    /// is dropped here, under the same lock as ``inject(_:)``, so no socket outlives ``CXoneGatewayFault/down``.
    func connected(_ connection: CXoneGatewayConnection) {
        let accepted = self.state.withLock { state in
            guard !state.faults.contains(.down) else { return false }
            state.connections[connection.id] = connection
            return true
        }
        if !accepted { connection.drop() }
    }

    func disconnected(_ connection: CXoneGatewayConnection) {
        self.state.withLock { _ = $0.connections.removeValue(forKey: connection.id) }
    }

    func nextConnectionID() -> Int {
        self.state.withLock { state in
            defer { state.nextConnection += 1 }
            return state.nextConnection
        }
    }

    // MARK: Sending

    /// Sends an answer or a push. A pushed event whose frame exceeds the EventInS3 threshold is parked
    /// at `/s3/{id}` and announced with EventInS3 instead.
    func send(_ frame: SimCXoneServerFrame, to connection: CXoneGatewayConnection) {
        var bytes = frame.encoded
        if case .event(_, let eventType, let createdAt, _) = frame, bytes.count > self.settings.eventInS3Threshold {
            let id = SimCXoneID.random()
            self.state.withLock { $0.s3Objects[id] = bytes }
            let notice: GMSJSON = ["s3Object": ["url": .string("\(self.httpBase())/s3/\(id)")], "originEvent": ["eventType": .string(eventType)]]
            bytes = SimCXoneServerFrame.event(eventId: SimCXoneID.random(), eventType: "EventInS3", createdAt: createdAt, data: notice).encoded
        }
        connection.send(bytes)
    }

    /// Pushes an event (a fresh `eventId`, `createdAt` now).
    func push(_ eventType: String, _ data: GMSJSON, to connection: CXoneGatewayConnection) {
        self.send(
            .event(eventId: SimCXoneID.random(), eventType: eventType, createdAt: Date(timeIntervalSince1970: self.now()), data: data),
            to: connection
        )
    }

    /// An EventInS3 body, unless the failing-S3 fault is on (nil: unknown id).
    func s3Object(_ id: String) -> [UInt8]? { self.state.withLock { $0.s3Objects[id] } }
}
