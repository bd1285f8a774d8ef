public import AttendantPluginAPI
import Synchronization

extension InMemoryNetwork {
    public func openWebSocket(
        _ request: WebSocketRequest,
        events: @escaping @Sendable (WebSocketEvent) -> Void
    ) async throws(NetworkError) -> any WebSocketConnection {
        let what = "WebSocket \(Self.redacted(request.url))"
        guard Self.hostPart(of: request.url, schemes: ["ws", "wss"]) != nil else {
            throw NetworkError(.invalidRequest, "\(what): not an absolute ws:// or wss:// URL")
        }
        if let refusal = self.refusal(webSocket: request.url) { throw refusal }
        if Task.isCancelled { throw NetworkError(.closed, "\(what) was cancelled") }
        let socket = WebSocketPeer(request: request, events: events)
        self.opened(socket)
        return InMemoryWebSocketConnection(socket: socket)
    }
}

/// The test's end of a WebSocket the channel opened on an ``InMemoryNetwork``: the server.
///
/// ```swift
/// let socket = try await host.inMemoryNetwork.nextWebSocket()
/// #expect(socket.request.url.hasPrefix("wss://chat.example.com"))
/// socket.send(text: "welcome")                          // the channel hears .text("welcome")
/// #expect(try await socket.nextMessage() == .text("hello"))
/// socket.close(code: 1000, reason: "bye")               // the channel hears .closed(…), once
/// ```
///
/// What the test sends reaches the channel's `events` at once, on the calling thread, one at a time and in
/// order; nothing reaches it after it called ``WebSocketConnection/close()``, and after the connection
/// ended nothing is delivered (the calls return false).
public final class WebSocketPeer: Sendable {
    /// What the channel sent, or did.
    public enum Message: Sendable, Hashable, CustomStringConvertible {
        case text(String)
        case binary([UInt8])
        case ping([UInt8])
        /// The channel closed the connection (``WebSocketConnection/close()``).
        case closed

        public var description: String {
            switch self {
            case .text(let text): "text \(text)"
            case .binary(let bytes): "binary (\(bytes.count) bytes)"
            case .ping(let bytes): "ping (\(bytes.count) bytes)"
            case .closed: "closed by the channel"
            }
        }
    }

    private struct State {
        /// The connection ended (either side): sends fail.
        var ended = false
        /// The channel closed it, or the server's end was delivered: deliver nothing more.
        var silenced = false
    }

    /// What the channel asked to open.
    public let request: WebSocketRequest
    private let events: @Sendable (WebSocketEvent) -> Void
    private let state = Mutex(State())
    private let delivery = SerialDelivery()
    private let sent = Mailbox<Message>()

    init(request: WebSocketRequest, events: @escaping @Sendable (WebSocketEvent) -> Void) {
        self.request = request
        self.events = events
    }

    /// Whether the connection has ended, by either side.
    public var isClosed: Bool { self.state.withLock { $0.ended } }

    /// Everything the channel sent so far, in order.
    public var messages: [Message] { self.sent.all }

    /// The next thing the channel sent that this method has not returned yet.
    public func nextMessage(timeout: Duration = .seconds(60)) async throws(InMemoryNetworkTimeout) -> Message {
        try await self.sent.next("message from the channel on \(self.request.url)", timeout: timeout)
    }

    /// Sends a text message to the channel. A message over the request's ``WebSocketRequest/maximumMessageSize``
    /// ends the connection instead, as the daemon's network does. False when the connection had ended.
    @discardableResult
    public func send(text: String) -> Bool {
        self.deliver(.text(Array(text.utf8)))
    }

    /// Sends a binary message to the channel.
    @discardableResult
    public func send(binary bytes: [UInt8]) -> Bool {
        self.deliver(.binary(bytes))
    }

    /// Answers a ping (the daemon's network answers none: its WebSocket library keeps the pongs).
    @discardableResult
    public func send(pong bytes: [UInt8]) -> Bool {
        self.deliver(.pong(bytes))
    }

    /// Ends the connection from the server's side with a close frame: the channel hears
    /// `.closed("the server closed the connection (<code>: <reason>)")`.
    @discardableResult
    public func close(code: Int = 1000, reason: String = "") -> Bool {
        self.end("the server closed the connection (\(code)\(reason.isEmpty ? "" : ": \(reason)"))")
    }

    /// Ends the connection with a failure (a reset, a dropped network): the channel hears `.closed(reason)`.
    @discardableResult
    public func fail(_ reason: String = "the connection was reset") -> Bool {
        self.end(reason)
    }

    private func deliver(_ event: WebSocketEvent) -> Bool {
        let size: Int
        switch event {
        case .text(let bytes), .binary(let bytes): size = bytes.count
        default: size = 0
        }
        guard size <= self.request.maximumMessageSize else {
            return self.end("the server sent a message larger than the limit of \(self.request.maximumMessageSize) bytes")
        }
        guard !self.state.withLock({ $0.ended }) else { return false }
        self.delivery.run {
            guard !self.state.withLock({ $0.silenced }) else { return }
            self.events(event)
        }
        return true
    }

    private func end(_ reason: String) -> Bool {
        let ended = self.state.withLock { state in
            defer { state.ended = true }
            return state.ended
        }
        guard !ended else { return false }
        self.delivery.run {
            let silenced = self.state.withLock { state in
                defer { state.silenced = true }
                return state.silenced
            }
            guard !silenced else { return }
            self.events(.closed(reason))
        }
        return true
    }

    // MARK: The channel's end

    func channelSent(_ message: Message) throws(NetworkError) {
        let ended = self.state.withLock { $0.ended }
        guard !ended else { throw NetworkError(.closed, "the WebSocket connection is closed") }
        self.sent.put(message)
    }

    func channelClosed() {
        let ended = self.state.withLock { state in
            defer {
                state.ended = true
                state.silenced = true
            }
            return state.ended
        }
        if !ended { self.sent.put(.closed) }
    }
}

/// The channel's end of a ``WebSocketPeer``.
struct InMemoryWebSocketConnection: WebSocketConnection {
    let socket: WebSocketPeer

    func send(text bytes: [UInt8]) async throws(NetworkError) {
        try self.socket.channelSent(.text(String(decoding: bytes, as: UTF8.self)))
    }

    func send(binary bytes: [UInt8]) async throws(NetworkError) {
        try self.socket.channelSent(.binary(bytes))
    }

    func ping(_ payload: [UInt8]) async throws(NetworkError) {
        try self.socket.channelSent(.ping(payload))
    }

    func close() async {
        self.socket.channelClosed()
    }
}
