import AttendantPluginAPI
import NIOCore
import NIOWebSocket
import Synchronization
import WSClient

/// One WebSocket connection to the CXone chat gateway (swift-websocket's `WebSocketClient`).
///
/// The connection runs in a task of its own: ``open(url:maximumSize:logger:events:)`` returns at once,
/// then `events` hears `.opened` once the upgrade succeeded, `.text` for each message and exactly one
/// `.closed` (also when the connection never opened), unless ``close()`` was called first.
final class CXoneSocket: Sendable {
    enum Event: Sendable {
        case opened
        case text([UInt8])
        case closed(reason: String)
    }

    private struct State {
        var writer: WebSocketOutboundWriter?
        var task: Task<Void, Never>?
        /// ``close()`` was called: report nothing more.
        var closing = false
    }

    private let state = Mutex(State())

    private init() {}

    static func open(url: String, maximumSize: Int, logger: Logger, events: @escaping @Sendable (Event) -> Void) -> CXoneSocket {
        let socket = CXoneSocket()
        // The task holds the socket until the connection ends; close() ends it early.
        let task = Task {
            var reason: String
            do {
                let configuration = WebSocketClientConfiguration(maxFrameSize: maximumSize)
                let closeFrame = try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
                    guard socket.opened(outbound) else { return }
                    events(.opened)
                    for try await message in inbound.messages(maxSize: maximumSize) {
                        guard !socket.isClosing else { return }
                        switch message {
                        case .text(let text): events(.text(Array(text.utf8)))
                        case .binary(let buffer): events(.text(Array(buffer.readableBytesView)))
                        }
                    }
                }
                reason = "the gateway closed the connection" + (closeFrame.map { " (\($0.closeCode)\($0.reason.map { ": \($0)" } ?? ""))" } ?? "")
            } catch {
                reason = Self.describe(error)
            }
            guard socket.finish() else { return }
            events(.closed(reason: reason))
        }
        socket.state.withLock { $0.task = task }
        return socket
    }

    /// Sends one text frame; throws if the connection is not open.
    func send(_ bytes: [UInt8]) async throws {
        guard let writer = self.state.withLock({ $0.closing ? nil : $0.writer }) else {
            throw AttendantPluginAPI.ChannelError(.transient, "the chat gateway connection is not open")
        }
        try await writer.write(.text(String(decoding: bytes, as: UTF8.self)))
    }

    /// Closes the connection (a close frame if it is open); no `.closed` event follows.
    func close() {
        let (writer, task) = self.state.withLock { state in
            state.closing = true
            return (state.writer, state.task)
        }
        guard let writer else {
            task?.cancel()
            return
        }
        Task {
            try? await writer.close(.normalClosure, reason: nil)
            // A gateway that does not answer the close frame: the client gives up after its close timeout;
            // cancelling ends the connection now.
            task?.cancel()
        }
    }

    private var isClosing: Bool { self.state.withLock { $0.closing } }

    private func opened(_ writer: WebSocketOutboundWriter) -> Bool {
        self.state.withLock { state in
            guard !state.closing else { return false }
            state.writer = writer
            return true
        }
    }

    /// Whether the end should be reported.
    private func finish() -> Bool {
        self.state.withLock { state in
            state.writer = nil
            defer { state.closing = true }
            return !state.closing
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? WebSocketClientError {
            if error == .webSocketUpgradeFailed { return "the gateway refused the WebSocket upgrade" }
            if error == .serverSentMessageTooLarge { return "the gateway sent a message larger than the limit" }
            return "WebSocket error: \(error)"
        }
        if let error = error as? AttendantPluginAPI.ChannelError { return error.message }
        if error is CancellationError { return "the connection was cancelled" }
        return "\(error)"
    }
}
