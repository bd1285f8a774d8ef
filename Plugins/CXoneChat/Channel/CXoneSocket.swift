import AttendantPluginAPI
import Synchronization

/// One WebSocket connection to the CXone chat gateway, on the network the host lends (``ChannelHost/network``).
///
/// ``open(network:url:maximumSize:events:)`` returns at once; then `events` hears `.opened` once the
/// upgrade succeeded, `.text` for each message and exactly one `.closed` (also when the connection never
/// opened), unless ``close()`` was called first. Messages that arrive while the upgrade's answer is still on
/// its way to this object wait for `.opened`, so the chat machine always hears the socket open first.
final class CXoneSocket: Sendable {
    enum Event: Sendable {
        case opened
        case text([UInt8])
        case closed(reason: String)
    }

    private struct State {
        var connection: (any WebSocketConnection)?
        var task: Task<Void, Never>?
        /// ``close()`` was called, or `.closed` was reported: report nothing more.
        var closing = false
        /// `.opened` was queued: events flow.
        var ready = false
        /// Events not yet handed over, in order.
        var queue: [Event] = []
        /// One caller hands the queue over at a time, so events keep their order.
        var draining = false
    }

    private let state = Mutex(State())
    private let events: @Sendable (Event) -> Void

    private init(events: @escaping @Sendable (Event) -> Void) {
        self.events = events
    }

    static func open(network: any ChannelNetwork, url: String, maximumSize: Int, events: @escaping @Sendable (Event) -> Void) -> CXoneSocket {
        let socket = CXoneSocket(events: events)
        let request = WebSocketRequest(url: url, maximumMessageSize: maximumSize)
        // The task holds the socket until the upgrade is answered; close() ends it early.
        let task = Task {
            do throws(NetworkError) {
                let connection = try await network.openWebSocket(request) { event in
                    switch event {
                    case .text(let bytes), .binary(let bytes): socket.enqueue(.text(bytes))
                    case .closed(let reason): socket.enqueue(.closed(reason: Self.gateway(reason)))
                    // Pongs (this driver sends no pings) and a later host's event kinds.
                    case .pong: break
                    @unknown default: break
                    }
                }
                guard socket.opened(connection) else {
                    await connection.close()
                    return
                }
            } catch {
                socket.enqueue(.closed(reason: error.message), ready: true)
            }
        }
        socket.state.withLock { $0.task = task }
        return socket
    }

    /// Sends one text frame; throws if the connection is not open.
    func send(_ bytes: [UInt8]) async throws {
        guard let connection = self.state.withLock({ $0.closing ? nil : $0.connection }) else {
            throw AttendantPluginAPI.ChannelError(.transient, "the chat gateway connection is not open")
        }
        do throws(NetworkError) {
            try await connection.send(text: bytes)
        } catch {
            throw AttendantPluginAPI.ChannelError(.transient, error.message)
        }
    }

    /// Closes the connection (a close frame if it is open); no `.closed` event follows.
    func close() {
        let (connection, task) = self.state.withLock { state in
            state.closing = true
            state.queue = []
            return (state.connection, state.task)
        }
        guard let connection else {
            task?.cancel()
            return
        }
        Task { await connection.close() }
    }

    /// The upgrade succeeded: `.opened`, then what arrived meanwhile. False when closed meanwhile.
    private func opened(_ connection: any WebSocketConnection) -> Bool {
        let open = self.state.withLock { state -> Bool in
            guard !state.closing else { return false }
            state.connection = connection
            state.queue.insert(.opened, at: 0)
            state.ready = true
            // Nothing drained before it was ready: this call is the only drainer.
            state.draining = true
            return true
        }
        if open { self.drain() }
        return open
    }

    private func enqueue(_ event: Event, ready: Bool = false) {
        let drains = self.state.withLock { state -> Bool in
            guard !state.closing else { return false }
            state.queue.append(event)
            if ready { state.ready = true }
            guard state.ready, !state.draining else { return false }
            state.draining = true
            return true
        }
        if drains { self.drain() }
    }

    /// Hands the queue over until it is empty; the first `.closed` is the last event.
    private func drain() {
        while true {
            let batch = self.state.withLock { state -> [Event] in
                let batch = state.closing ? [] : state.queue
                state.queue = []
                if batch.isEmpty { state.draining = false }
                if batch.contains(where: { if case .closed = $0 { true } else { false } }) {
                    state.closing = true
                    state.connection = nil
                }
                return batch
            }
            guard !batch.isEmpty else { return }
            for event in batch {
                self.events(event)
                if case .closed = event { return }
            }
        }
    }

    /// The host speaks of "the server"; the channel's messages of the gateway.
    static func gateway(_ reason: String) -> String {
        reason.hasPrefix("the server ") ? "the gateway " + reason.dropFirst("the server ".count) : reason
    }
}
