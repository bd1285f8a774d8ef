package import AttendantPluginAPI
@_spi(Experimental) package import AttendantPluginKit

/// A long-polling batch: the HTTP POST to make, and what the machine needs to hear of its answer.
package struct BayeuxPost: Sendable {
    /// The tag (``SessionDriver/concurrently(tag:_:)``) of the held connect's request, which
    /// ``BayeuxTransport/Output/cancelConnectPost`` cancels; the other requests run under ``controlTag``.
    package static let connectTag = "bayeux-connect"
    package static let controlTag = "bayeux-control"

    package var request: NetworkRequest
    /// The ids of the batch's messages.
    package var ids: [String]
    package var lane: BayeuxClientStateMachine.Lane

    package init(_ request: NetworkRequest, ids: [String], lane: BayeuxClientStateMachine.Lane) {
        self.request = request
        self.ids = ids
        self.lane = lane
    }

    package var tag: String { self.lane == .connect ? Self.connectTag : Self.controlTag }
}

/// What a POST or a message on the link brought, read outside the session's lock.
package enum BayeuxAnswer: Sendable {
    case batch([BayeuxMessage])
    /// Not a Bayeux batch: the warning that names it (its size and the problem, never its content), and
    /// the problem.
    case notBayeux(warning: String, problem: String)
    /// The request failed (an HTTP error status, the network); an answer over the size limit is named in
    /// the log too.
    case failed(BayeuxFailure, warning: String?)
}

extension BayeuxTransport.Configuration {
    /// The WebSocket's URL: the endpoint's, with `ws` for `http` and `wss` for `https`.
    package var webSocketURL: String {
        if self.url.lowercased().hasPrefix("https://") { return "wss://" + self.url.dropFirst("https://".count) }
        if self.url.lowercased().hasPrefix("http://") { return "ws://" + self.url.dropFirst("http://".count) }
        return self.url
    }

    var webSocketRequest: WebSocketRequest {
        WebSocketRequest(
            url: self.webSocketURL,
            headers: self.headers,
            maximumMessageSize: self.limits.maximumBytes,
            timeout: self.machine.networkDelay
        )
    }

    func request(_ body: [UInt8], timeout: Duration) -> NetworkRequest {
        NetworkRequest(
            method: "POST",
            url: self.url,
            headers: [NetworkHeader("Content-Type", "application/json;charset=UTF-8")] + self.headers,
            body: body,
            timeout: timeout,
            maximumResponseSize: self.limits.maximumBytes,
            usesCookies: true
        )
    }

    /// A message on the link, decoded.
    package func read(_ bytes: [UInt8]) -> BayeuxAnswer {
        do {
            return .batch(try BayeuxBatch.decode(bytes, limits: self.limits))
        } catch {
            return .notBayeux(warning: "bayeux: ignored a batch from \(self.url) (\(bytes.count) bytes): \(error)", problem: "\(error)")
        }
    }

    /// A POST's outcome, its body decoded.
    package func read(_ outcome: Result<NetworkResponse, NetworkError>) -> BayeuxAnswer {
        switch outcome {
        case .success(let response) where (200..<300).contains(response.status):
            return self.read(response.body)
        case .success(let response):
            return .failed(BayeuxFailure("the server answered HTTP \(response.status) \(response.reason)"), warning: nil)
        case .failure(let error):
            let warning = error.kind == .tooLarge ? "bayeux: ignored an answer from \(self.url): \(error.message)" : nil
            return .failed(BayeuxFailure(error.message), warning: warning)
        }
    }
}

extension BayeuxTransport.Output {
    /// The kit's action for this output, in the terms of the session that holds the transport (its timer
    /// for the machine's, its work for a POST); nil for an ``event(_:)``, which the session handles.
    package func action<Timer, Work>(
        timer: (TimerID<BayeuxClientStateMachine.TimerKind>) -> Timer,
        work: (BayeuxPost) -> Work
    ) -> SessionAction<Timer, Work>? {
        switch self {
        case .post(let post): .work(work(post))
        case .cancelConnectPost: .cancelOperations(tagged: BayeuxPost.connectTag)
        case .openLink(let request): .openLink(request)
        case .writeLink(let bytes): .writeLink(bytes)
        case .closeLink: .closeLink
        case .setTimer(let id, let delay): .setTimer(timer(id), after: delay)
        case .cancelTimer(let id): .cancelTimer(timer(id))
        case .log(let level, let message): .log(level, message)
        case .event: nil
        }
    }
}

extension UnixTime {
    /// The time as a duration since 1970, the Bayeux machine's `now`.
    package var elapsed: Duration { .milliseconds(Int64((self.secondsSince1970 * 1000).rounded())) }
}
