import AttendantCookies
package import AttendantPluginAPI
import HTTPTypes
import NIOCore
import NIOPosix
import NIOWebSocket
import Synchronization
import WSClient

// WebSocket: swift-websocket's client on the process's event loops, TLS by the channel's policy.
extension HostNetwork {
    package func openWebSocket(
        _ request: WebSocketRequest,
        events: @escaping @Sendable (WebSocketEvent) -> Void
    ) async throws(NetworkError) -> any WebSocketConnection {
        let what = "WebSocket \(Self.redacted(request.url))"
        let lowered = request.url.lowercased()
        let secure = lowered.hasPrefix("wss://")
        guard secure || lowered.hasPrefix("ws://"), CookieJar.Target(url: request.url) != nil else {
            throw NetworkError(.invalidRequest, "\(what): not an absolute ws:// or wss:// URL")
        }
        var fields = HTTPFields()
        for header in request.headers {
            guard let name = HTTPField.Name(header.name) else {
                throw NetworkError(.invalidRequest, "\(what): \"\(header.name)\" is not a valid header name")
            }
            fields.append(HTTPField(name: name, value: header.value))
        }
        // Messages over the limit are refused below (and by swift-websocket when fragmented); NIO's frame
        // decoder ends the connection at a frame over its own limit without a word (the channel hears "the
        // server closed the connection"), so that limit is set past the message's.
        let frameLimit = min(max(request.maximumMessageSize * 2, 1 << 14), Int(UInt32.max))
        let configuration = WebSocketClientConfiguration(maxFrameSize: frameLimit, additionalHeaders: fields)
        let loop = self.shared.group.next()
        let connection = HostWebSocket(loop: loop, events: events)
        let limit = request.timeout
        let maximumSize = request.maximumMessageSize

        let opened: Result<Void, NetworkError> = await withCheckedContinuation { continuation in
            connection.state.withLock { $0.opening = continuation }
            let timeout = loop.scheduleTask(in: Self.timeAmount(limit)) {
                connection.abandon(NetworkError(.timeout, "\(what) failed: no upgrade within \(limit.seconds.formatted) s"))
            }
            // Detached: the connection must not inherit the opener's task-locals. swift-websocket closes a
            // connection when the graceful shutdown of the task that runs it begins (WSCore's
            // `WebSocketHandler.handle`, `withGracefulShutdownHandler`), and a channel's socket is opened
            // from inside the daemon's channels service, so the daemon's shutdown closed every channel's
            // socket at once, before the channel could say goodbye on it (GMS's `/meta/disconnect` got out
            // in about 1 stop of 10). The channel closes its socket itself (`close()`), after its goodbye.
            let task = Task.detached {
                var failure: (NetworkError.Kind, String)?
                var reason = "the server closed the connection"
                do {
                    let closeFrame = try await WebSocketClient.connect(
                        url: request.url,
                        configuration: configuration,
                        tlsConfiguration: secure ? Shared.tlsConfiguration(self.tls) : nil,
                        eventLoopGroup: self.shared.group,
                        logger: Self.quietLogger
                    ) { inbound, outbound, _ in
                        timeout.cancel()
                        guard connection.opened(outbound) else { return }
                        for try await message in inbound.messages(maxSize: maximumSize) {
                            let bytes: [UInt8]
                            let event: WebSocketEvent
                            switch message {
                            case .text(let text):
                                bytes = Array(text.utf8)
                                event = .text(bytes)
                            case .binary(let buffer):
                                bytes = Array(buffer.readableBytesView)
                                event = .binary(bytes)
                            }
                            // swift-websocket checks the size of fragmented messages only.
                            guard bytes.count <= maximumSize else {
                                connection.state.withLock { $0.failure = WebSocketClientError.serverSentMessageTooLarge }
                                try await outbound.close(.messageTooLarge, reason: nil)
                                return
                            }
                            connection.deliver(event)
                        }
                    }
                    if let closeFrame {
                        reason += " (\(closeFrame.closeCode)\(closeFrame.reason.map { ": \($0)" } ?? ""))"
                    }
                } catch {
                    failure = Self.describeWebSocket(error, limit: limit, maximumSize: maximumSize)
                }
                if let error = connection.state.withLock({ $0.failure }) {
                    failure = Self.describeWebSocket(error, limit: limit, maximumSize: maximumSize)
                }
                timeout.cancel()
                connection.ended(
                    failure.map { NetworkError($0.0, "\(what) failed: \($0.1)") } ?? NetworkError(.protocolViolation, "\(what) failed: \(reason)"),
                    reason: failure?.1 ?? reason
                )
            }
            connection.started(task)
        }
        try opened.get()
        return connection
    }

    /// swift-websocket logs at debug and trace level with the URL, query included; what matters reaches
    /// the channel as events and errors instead.
    static let quietLogger = Logger(label: "attendant.websocket", factory: { _ in SwiftLogNoOpLogHandler() })

    static func describeWebSocket(_ error: any Error, limit: Duration, maximumSize: Int) -> (NetworkError.Kind, String) {
        if let error = error as? WebSocketClientError {
            if error == .webSocketUpgradeFailed { return (.protocolViolation, "the server refused the WebSocket upgrade") }
            if error == .serverSentMessageTooLarge { return (.tooLarge, "the server sent a message larger than the limit of \(maximumSize) bytes") }
            if error == .invalidURL { return (.invalidRequest, "not a valid URL") }
            return (.protocolViolation, "the server broke the WebSocket protocol (\(error))")
        }
        if let error = error as? NIOWebSocketError, error == .invalidFrameLength {
            return (.tooLarge, "the server sent a message larger than the limit of \(maximumSize) bytes")
        }
        return Self.describe(error, limit: limit)
    }
}

/// An open WebSocket: its writer, and the one place that decides what the channel still hears.
///
/// Events reach the channel on one event loop (the host's I/O thread), queued in the order they arrived,
/// and each checks, as it runs, that `close()` has not been called.
final class HostWebSocket: WebSocketConnection {
    struct State {
        /// Until the upgrade succeeds or fails: `openWebSocket` waits here.
        var opening: CheckedContinuation<Result<Void, NetworkError>, Never>?
        var writer: WebSocketOutboundWriter?
        var task: Task<Void, Never>?
        /// `close()` was called, or opening was given up: deliver nothing more.
        var closing = false
        /// Why reading ended, when this side ended it.
        var failure: (any Error)?
    }

    let state = Mutex(State())
    private let loop: any EventLoop
    private let events: @Sendable (WebSocketEvent) -> Void

    init(loop: any EventLoop, events: @escaping @Sendable (WebSocketEvent) -> Void) {
        self.loop = loop
        self.events = events
    }

    func send(text bytes: [UInt8]) async throws(NetworkError) {
        try await self.write(.text(String(decoding: bytes, as: UTF8.self)))
    }

    func send(binary bytes: [UInt8]) async throws(NetworkError) {
        try await self.write(.binary(ByteBuffer(bytes: bytes)))
    }

    /// Sends a ping frame. swift-websocket answers the server's pings itself and consumes the pongs that
    /// come back, so no ``WebSocketEvent/pong(_:)`` follows on this host: the ping keeps an idle path
    /// (NAT, proxies) open but is no liveness check.
    func ping(_ payload: [UInt8]) async throws(NetworkError) {
        try await self.write(.custom(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(bytes: payload))))
    }

    func close() async {
        let (writer, task) = self.state.withLock { state in
            state.closing = true
            return (state.writer, state.task)
        }
        if let writer { try? await writer.close(.normalClosure, reason: nil) }
        // A server that does not answer the close frame: end the connection now, not after the close timeout.
        task?.cancel()
    }

    private func write(_ frame: WebSocketOutboundWriter.OutboundFrame) async throws(NetworkError) {
        guard let writer = self.state.withLock({ $0.closing ? nil : $0.writer }) else {
            throw NetworkError(.closed, "the WebSocket connection is closed")
        }
        do {
            try await writer.write(frame)
        } catch {
            throw NetworkError(.closed, "the WebSocket connection is closed (\(error))")
        }
    }

    // MARK: From the connection's task

    func started(_ task: Task<Void, Never>) {
        let abandoned = self.state.withLock { state in
            state.task = task
            return state.closing
        }
        if abandoned { task.cancel() }
    }

    /// The upgrade succeeded; false when opening was given up meanwhile.
    func opened(_ writer: WebSocketOutboundWriter) -> Bool {
        let opening = self.state.withLock { state -> CheckedContinuation<Result<Void, NetworkError>, Never>? in
            guard !state.closing else { return nil }
            state.writer = writer
            defer { state.opening = nil }
            return state.opening
        }
        opening?.resume(returning: .success(()))
        return opening != nil
    }

    /// Opening took too long: `openWebSocket` fails, and the connection, should it still open, is closed.
    func abandon(_ error: NetworkError) {
        let (opening, task) = self.state.withLock { state in
            defer { state.opening = nil }
            guard state.opening != nil else { return (nil, nil) as (CheckedContinuation<Result<Void, NetworkError>, Never>?, Task<Void, Never>?) }
            state.closing = true
            return (state.opening, state.task)
        }
        opening?.resume(returning: .failure(error))
        task?.cancel()
    }

    /// The connection ended: `openWebSocket` fails with `error` if it is still waiting, else the channel
    /// hears `.closed(reason)` (unless it closed the connection itself).
    func ended(_ error: NetworkError, reason: String) {
        let opening = self.state.withLock { state in
            state.writer = nil
            defer { state.opening = nil }
            return state.opening
        }
        if let opening {
            self.state.withLock { $0.closing = true }
            opening.resume(returning: .failure(error))
            return
        }
        self.deliver(.closed(reason), last: true)
    }

    func deliver(_ event: WebSocketEvent, last: Bool = false) {
        self.loop.execute {
            let closing = self.state.withLock { state in
                defer { if last { state.closing = true } }
                return state.closing
            }
            guard !closing else { return }
            self.events(event)
        }
    }
}
