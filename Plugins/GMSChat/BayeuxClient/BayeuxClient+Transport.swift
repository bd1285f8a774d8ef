import AttendantPluginAPI
import AttendantPluginKit
import GMSCore
import Synchronization

// The two transports: long-polling (HTTP POSTs) and a WebSocket, chosen by the machine's connection type.
extension BayeuxClient {
    func send(_ messages: [BayeuxMessage], on lane: BayeuxClientStateMachine.Lane, _ state: inout State) {
        let body = BayeuxBatch.encode(messages)
        if state.machine.status.connectionType == .webSocket {
            self.write(body, &state)
        } else {
            self.post(body, ids: messages.compactMap(\.id), lane: lane, &state)
        }
    }

    // MARK: Long-polling

    func post(_ body: [UInt8], ids: [String], lane: BayeuxClientStateMachine.Lane, _ state: inout State) {
        let timeout = lane == .connect ? state.machine.connectRequestTimeout : self.configuration.machine.networkDelay
        let request = NetworkRequest(
            method: "POST",
            url: self.configuration.url,
            headers: [NetworkHeader("Content-Type", "application/json;charset=UTF-8")] + self.configuration.headers,
            body: body,
            timeout: timeout,
            maximumResponseSize: self.configuration.limits.maximumBytes,
            usesCookies: true
        )
        let task = Task {
            let outcome: Result<NetworkResponse, NetworkError>
            do throws(NetworkError) {
                outcome = .success(try await self.network.send(request))
            } catch {
                outcome = .failure(error)
            }
            guard !Task.isCancelled else { return }
            switch outcome {
            case .success(let response) where (200..<300).contains(response.status):
                self.received(response.body, generation: nil, failing: (ids, lane == .connect))
            case .success(let response):
                self.failed(BayeuxFailure("the server answered HTTP \(response.status) \(response.reason)"), ids: ids, lane: lane)
            case .failure(let error):
                // An answer over the size limit is bad input: named even while the session is already
                // known to be interrupted (those failures are reported once).
                if error.kind == .tooLarge { self.logger.warning("bayeux: ignored an answer from \(self.configuration.url): \(error.message)") }
                self.failed(BayeuxFailure(error.message), ids: ids, lane: lane)
            }
        }
        if lane == .connect {
            state.connectRequest?.cancel()
            state.connectRequest = task
        }
    }

    func failed(_ failure: BayeuxFailure, ids: [String], lane: BayeuxClientStateMachine.Lane) {
        let now = self.now()
        self.step { machine in
            if lane == .connect { return ids.first.map { machine.connectFailed(id: $0, failure, now: now) } ?? [] }
            return machine.requestFailed(ids: ids, failure, now: now)
        }
    }

    func abandonConnect(_ state: inout State) {
        if let request = state.connectRequest {
            state.connectRequest = nil
            request.cancel()
        }
        // Over a WebSocket the held connect ends with the socket; the next batch opens a new one.
        if state.machine.status.connectionType == .webSocket { self.closeSocket(&state) }
    }

    // MARK: WebSocket

    /// The WebSocket's URL: the endpoint's, with `ws` for `http` and `wss` for `https`.
    var webSocketURL: String {
        let url = self.configuration.url
        if url.lowercased().hasPrefix("https://") { return "wss://" + url.dropFirst("https://".count) }
        if url.lowercased().hasPrefix("http://") { return "ws://" + url.dropFirst("http://".count) }
        return url
    }

    func write(_ frame: [UInt8], _ state: inout State) {
        guard let socket = state.socket else {
            state.pendingFrames.append(frame)
            if !state.opening { self.openSocket(&state) }
            return
        }
        let previous = state.lastWrite
        let generation = state.transport
        state.lastWrite = Task {
            await previous?.value
            do throws(NetworkError) {
                try await socket.send(text: frame)
            } catch {
                self.socketClosed("a write failed: \(error.message)", generation: generation)
            }
        }
    }

    func openSocket(_ state: inout State) {
        state.opening = true
        let generation = state.transport
        let request = WebSocketRequest(
            url: self.webSocketURL,
            headers: self.configuration.headers,
            maximumMessageSize: self.configuration.limits.maximumBytes,
            timeout: self.configuration.machine.networkDelay
        )
        Task {
            let socket: any WebSocketConnection
            do throws(NetworkError) {
                socket = try await self.network.openWebSocket(request) { [weak self] event in
                    self?.socketEvent(event, generation: generation)
                }
            } catch {
                self.openFailed(error, generation: generation)
                return
            }
            let current = self.state.withLock { state -> Bool in
                guard state.transport == generation else { return false }
                state.opening = false
                state.socket = socket
                state.webSocketWorked = true
                let frames = state.pendingFrames
                state.pendingFrames = []
                for frame in frames { self.write(frame, &state) }
                return true
            }
            if !current { await socket.close() }
        }
    }

    /// The upgrade failed. Before any WebSocket of this client worked, that means the server (or a proxy)
    /// does not do WebSocket: long-polling from now on. After one worked, it is a network failure like any.
    func openFailed(_ error: NetworkError, generation: Generation) {
        let now = self.now()
        self.step { machine, state in
            guard state.transport == generation else { return [] }
            state.opening = false
            state.pendingFrames = []
            state.transport.advance()
            let failure = BayeuxFailure("the WebSocket to \(self.webSocketURL) did not open: \(error.message)")
            if !state.webSocketWorked {
                self.logger.notice("bayeux: \(failure); using long-polling")
                machine.use(.longPolling)
                return [.useConnectionType(.longPolling)] + machine.transportLost(failure, now: now)
            }
            return machine.transportLost(failure, now: now)
        }
    }

    func socketEvent(_ event: WebSocketEvent, generation: Generation) {
        switch event {
        case .text(let bytes), .binary(let bytes):
            self.received(bytes, generation: generation, failing: nil)
        case .pong:
            break
        case .closed(let reason):
            self.socketClosed(reason, generation: generation)
        @unknown default:
            break
        }
    }

    func socketClosed(_ reason: String, generation: Generation) {
        let now = self.now()
        self.step { machine, state in
            guard state.transport == generation else { return [] }
            state.transport.advance()
            state.socket = nil
            state.opening = false
            state.pendingFrames = []
            return machine.transportLost(BayeuxFailure("the WebSocket closed: \(reason)"), now: now)
        }
    }

    /// Lets go of the socket (closing it); whatever it still delivers is dropped.
    func closeSocket(_ state: inout State) {
        state.transport.advance()
        state.opening = false
        state.pendingFrames = []
        guard let socket = state.socket else { return }
        state.socket = nil
        let previous = state.lastWrite
        state.lastWrite = nil
        Task {
            await previous?.value
            await socket.close()
        }
    }
}
