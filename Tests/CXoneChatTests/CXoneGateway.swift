import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation
import Synchronization

/// CXone's side of a chat, played by the test on the in-memory network of the channel's host: the
/// channel's REST endpoints of region eu1 (the channel configuration, the visitor, its analytics events)
/// scripted on `host.inMemoryNetwork`, and the chat gateway on the other end of each WebSocket the channel
/// opens (``Connection``). It keeps the one thread of a single-thread channel and its messages, so that a
/// recovery after a reconnect sends them back as the gateway would.
///
/// Written from the protocol, not from our simulator: the paths and shapes are the CXone mobile SDK's
/// (nice-devone/nice-cxone-mobile-sdk-ios: `ChannelConfigurationDTO`, `MessageDTO`,
/// `ThreadRecoveredEventPostbackData`, `CustomerIdentityDTO`; Plugins/CXoneChat/README.md's wire layer):
/// a postback answers a request by its `eventId`, an operation error names it as `transactionId`, and
/// pushed events carry their own `eventId`.
final class CXoneGateway: Sendable {
    static let brandID = 1386
    static let channelID = "chat_51eafd5b-5a13-4a3e-9a4d-8c4a0f0e1b7e"
    /// The region's chat REST base and web-analytics root (`CXoneEndpoints.region("eu1")`).
    static let chatBase = "https://channels-de-eu1.niceincontact.com/chat"
    static let visitorsBase = "https://channels-de-eu1.niceincontact.com/web-analytics/1.0/tenants/1386/visitors/"
    static let socketBase = "wss://chat-gateway-de-eu1.niceincontact.com"
    static let configurationURL = "\(chatBase)/1.0/brand/\(brandID)/channel/\(channelID)"

    /// The channel's settings for this gateway: a customer with a name, and a page view once prepared.
    static let settings = ChannelSettings([
        "brand-id": .integer(Int64(brandID)),
        "channel-id": .string(channelID),
        "region": .string("eu1"),
        "first-name": .string("Grace"),
        "last-name": .string("Hopper"),
        "page-title": .string("Orders"),
        "page-url": .string("https://shop.example.com/orders"),
    ])

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// A message of the thread, as the gateway keeps it.
    struct Message: Sendable {
        var id: String
        var text: String
        var fromAgent: Bool
        var createdAt: Date
        /// The customer who wrote it (`authorEndUserIdentity`), for the customer's messages.
        var customer: [String: String]?
    }

    private struct State {
        var threadID: String?
        var contactID = UUID().uuidString.lowercased()
        var messages: [Message] = []
    }

    let host: InMemoryChannelHost
    private let state = Mutex(State())

    /// Scripts the REST endpoints on `host`'s network: a single-thread channel without OAuth, and the
    /// visitor and its events taken (200 and 202, as CXone answers them).
    init(host: InMemoryChannelHost) {
        self.host = host
        let configuration: [String: Any] = [
            "isLiveChat": false,
            "isAuthorizationEnabled": false,
            // A toggle the configuration does not list counts as on (the SDK's rule): this gateway's
            // sessions are not secured.
            "settings": [
                "hasMultipleThreadsPerEndUser": false, "isProactiveChatEnabled": false, "features": ["securedSessions": false] as [String: Any],
            ],
        ]
        host.inMemoryNetwork.answer("GET", Self.configurationURL, with: NetworkResponse(status: 200, body: Self.bytes(configuration)))
        host.inMemoryNetwork.handleRequests { request async throws(NetworkError) in
            let path = request.url.hasPrefix(Self.visitorsBase) ? request.url.dropFirst(Self.visitorsBase.count) : ""
            switch (request.method, path.split(separator: "/").count, path.hasSuffix("/events")) {
            case ("PUT", 1, false): return NetworkResponse(status: 200, body: Array("{}".utf8))
            case ("POST", 2, true): return NetworkResponse(status: 202, body: Array("{}".utf8))
            default: return NetworkResponse(status: 404, reason: "Not Found", body: Array(#"{"error":{"errorCode":"NotFound"}}"#.utf8))
            }
        }
    }

    /// The next WebSocket the channel opened.
    func accept() async throws -> Connection {
        Connection(gateway: self, peer: try await self.host.inMemoryNetwork.nextWebSocket())
    }

    /// The next WebSocket after the channel lost one: the host's clock is moved on, a quarter of a second
    /// at a time, until the channel's backoff (`min(1.3^n + rand(0..1), 30)` s) has passed and it opened
    /// socket number `count`.
    func reopened(count: Int) async throws -> Connection {
        try await until("socket \(count) opened") {
            guard self.host.inMemoryNetwork.webSockets.count < count else { return true }
            self.host.manualClock.advance(by: .milliseconds(250))
            return false
        }
        return try await self.accept()
    }

    // MARK: The thread

    /// The thread's id, once an agent or the customer started it.
    var threadID: String? { self.state.withLock { $0.threadID } }

    /// The agent writes in the thread (starting it if there is none), without telling any socket: a
    /// message written while the channel is away, which the next recovery brings.
    @discardableResult
    func agentWrites(_ text: String) -> Message {
        self.keep(Message(id: UUID().uuidString.lowercased(), text: text, fromAgent: true, createdAt: self.now, customer: nil), in: nil)
    }

    /// Keeps `message` in `threadID` (nil: the thread, started if needed).
    func keep(_ message: Message, in threadID: String?) -> Message {
        self.state.withLock { state in
            if state.threadID == nil { state.threadID = threadID ?? UUID().uuidString.lowercased() }
            if !state.messages.contains(where: { $0.id.lowercased() == message.id.lowercased() }) { state.messages.append(message) }
        }
        return message
    }

    var now: Date { Date(timeIntervalSince1970: self.host.now().secondsSince1970) }

    // MARK: Wire shapes

    /// A message (`MessageDTO`).
    func json(_ message: Message) -> [String: Any] {
        var json: [String: Any] = [
            "idOnExternalPlatform": message.id,
            "threadIdOnExternalPlatform": self.threadID ?? "",
            "messageContent": ["type": "TEXT", "payload": ["text": message.text]],
            "createdAt": Self.timestamp(message.createdAt),
            "attachments": [] as [Any],
            "direction": message.fromAgent ? "outbound" : "inbound",
        ]
        if message.fromAgent {
            json["authorUser"] = Self.agent
        } else if let customer = message.customer {
            json["authorEndUserIdentity"] = customer
        }
        return json
    }

    /// The agent who writes: `authorUser` and `inboxAssignee`.
    static var agent: [String: Any] {
        ["id": 17, "firstName": "Ada", "surname": "Lovelace", "nickname": "Ada", "isBotUser": false, "isSurveyUser": false]
    }

    /// The thread (`thread`) and its contact (`case`, whose id EndContact would name).
    var threadJSON: [String: Any] {
        ["idOnExternalPlatform": self.threadID ?? "", "channelId": Self.channelID, "threadName": "", "canAddMoreMessages": true]
    }

    var contactJSON: [String: Any] {
        let (thread, contact) = self.state.withLock { ($0.threadID ?? "", $0.contactID) }
        return ["id": contact, "threadIdOnExternalPlatform": thread, "status": "new", "createdAt": Self.timestamp(self.now)]
    }

    /// ThreadRecovered's data: the thread with its messages, oldest first.
    var recoveredJSON: [String: Any] {
        let messages = self.state.withLock { $0.messages }
        return [
            "contact": self.contactJSON, "messages": messages.map(self.json), "inboxAssignee": Self.agent, "thread": self.threadJSON,
        ]
    }

    /// `2027-01-15T08:00:00.000Z`: UTC with milliseconds, as CXone writes times.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    static func bytes(_ object: Any) -> [UInt8] {
        Array(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw Failure(description: "not a JSON object: \(String(decoding: bytes, as: UTF8.self))")
        }
        return object
    }
}

/// Waits, up to 60 s of the wall clock, until `condition` holds.
func until(_ what: String, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw CXoneGateway.Failure(description: "\(what): not within 60 s") }
        try await Task.sleep(for: .milliseconds(10))
    }
}
