import AsyncHTTPClient
import AttendantCookies
package import AttendantPluginAPI
import Glibc
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

// HTTP: one request, the whole answer, on the process's client for the channel's TLS policy.
extension HostNetwork {
    package func send(_ request: NetworkRequest) async throws(NetworkError) -> NetworkResponse {
        let method = request.method.uppercased()
        let shown = Self.redacted(request.url)
        let what = "\(method) \(shown)"
        guard let target = CookieJar.Target(url: request.url),
            request.url.lowercased().hasPrefix("http://") || request.url.lowercased().hasPrefix("https://")
        else {
            throw NetworkError(.invalidRequest, "\(what): not an absolute http:// or https:// URL")
        }
        var headers = HTTPHeaders()
        var cookie = request.headers.first { $0.name.lowercased() == "cookie" }?.value
        for header in request.headers where header.name.lowercased() != "cookie" {
            headers.add(name: header.name, value: header.value)
        }
        if request.usesCookies, let jar = self.cookies.withLock({ $0.header(for: target, now: Self.wallTime()) }) {
            cookie = cookie.map { "\($0); \(jar)" } ?? jar
        }
        if let cookie { headers.add(name: "Cookie", value: cookie) }

        let client = self.shared.httpClient(policy: self.tls)
        // The deadline of async-http-client's request API holds for the whole answer, its body too (its
        // async API's ends with the answer's head: a server that sent the head and stalled held the
        // request forever), and it is cancelled on the connection's event loop, so a deadline a request
        // did not need wakes nothing later.
        let deadline = NIODeadline.now() + Self.timeAmount(request.timeout)
        let response: HTTPClient.Response
        var accumulator: StatusKeepingAccumulator?
        do {
            let outgoing = try HTTPClient.Request(
                url: request.url,
                method: HTTPMethod(rawValue: method),
                headers: headers,
                body: request.body.map { .bytes($0) }
            )
            let delegate = StatusKeepingAccumulator(request: outgoing, maxBodySize: request.maximumResponseSize)
            accumulator = delegate
            let task = client.execute(request: outgoing, delegate: delegate, deadline: deadline)
            response = try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
        } catch is ResponseAccumulator.ResponseTooBigError {
            let status = accumulator?.status
            throw NetworkError(
                .tooLarge,
                "\(what) answered with more than \(request.maximumResponseSize) bytes\(status.map { " (HTTP \($0))" } ?? "")",
                status: status
            )
        } catch {
            throw Self.networkError(error, what: what, limit: request.timeout)
        }
        if request.usesCookies {
            let now = Self.wallTime()
            let setCookies = response.headers["Set-Cookie"]
            if !setCookies.isEmpty {
                self.cookies.withLock { jar in
                    for header in setCookies { jar.store(header, from: target, now: now) }
                }
            }
        }
        return NetworkResponse(
            status: Int(response.status.code),
            reason: response.status.reasonPhrase,
            headers: response.headers.map { NetworkHeader($0.name, $0.value) },
            body: response.body.map { Array($0.readableBytesView) } ?? []
        )
    }

    /// A URL for a message or a log line: no query or fragment (pre-signed URLs carry credentials there)
    /// and no user information.
    package static func redacted(_ url: String) -> String {
        var text = Substring(url)
        if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            text = text[..<end] + "?…"
        }
        if let scheme = text.firstRange(of: "://") {
            let authorityEnd = text[scheme.upperBound...].firstIndex(of: "/") ?? text.endIndex
            if let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@") {
                text = text[..<scheme.upperBound] + text[text.index(after: at)...]
            }
        }
        return String(text)
    }

    /// What a failure of async-http-client, swift-websocket, NIO or BoringSSL means, after `what`
    /// ("GET https://…/path failed: …").
    static func networkError(_ error: any Error, what: String, limit: Duration) -> NetworkError {
        if let error = error as? NetworkError { return error }
        let (kind, detail) = Self.describe(error, limit: limit)
        if kind == .closed || kind == .invalidRequest { return NetworkError(kind, "\(what) \(detail)") }
        return NetworkError(kind, "\(what) failed: \(detail)")
    }

    /// A failure's kind and words, without the URL.
    static func describe(_ error: any Error, limit: Duration) -> (NetworkError.Kind, String) {
        if let error = error as? NetworkError { return (error.kind, error.message) }
        if error is CancellationError { return (.closed, "was cancelled") }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return (.timeout, "could not connect within 10 s")
            case .deadlineExceeded, .readTimeout, .writeTimeout: return (.timeout, "no answer within \(limit.seconds.formatted) s")
            case .tlsHandshakeTimeout: return (.timeout, "the TLS handshake did not finish in time")
            case .remoteConnectionClosed: return (.connection, "the server closed the connection")
            case .cancelled: return (.closed, "was cancelled")
            case .invalidURL, .emptyHost, .emptyScheme: return (.invalidRequest, "is not a valid URL")
            default: return (.protocolViolation, "\(error)")
            }
        }
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first { return Self.describe(first.error, limit: limit) }
            return (.resolution, "the name \(error.host) did not resolve")
        }
        if let error = error as? IOError {
            return (.connection, String(cString: strerror(error.errnoCode)))
        }
        if let error = error as? NIOCore.ChannelError {
            if case .connectTimeout = error { return (.timeout, "could not connect in time") }
            return (.connection, "\(error)")
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return (Self.isCertificateFailure(error) ? .certificate : .tls, "TLS: \(error)")
        }
        if error is HTTPParserError { return (.protocolViolation, "not a valid HTTP answer (\(error))") }
        return (.connection, "\(error)")
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// Seconds since 1970, for cookie expiry (cookies expire by the wall clock).
    static func wallTime() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

/// async-http-client's accumulator, keeping the answer's status: a body over the limit fails the request
/// before there is a response, and whether the server said 2xx still matters to the channel
/// (``NetworkError/status``).
final class StatusKeepingAccumulator: HTTPClientResponseDelegate {
    typealias Response = HTTPClient.Response

    private let accumulator: ResponseAccumulator
    private let head = Mutex<Int?>(nil)

    init(request: HTTPClient.Request, maxBodySize: Int) {
        self.accumulator = ResponseAccumulator(request: request, maxBodySize: maxBodySize)
    }

    /// The status of the answer's head, once it arrived.
    var status: Int? { self.head.withLock { $0 } }

    func didVisitURL(task: HTTPClient.Task<Response>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
        self.accumulator.didVisitURL(task: task, request, head)
    }

    func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        self.head.withLock { $0 = Int(head.status.code) }
        return self.accumulator.didReceiveHead(task: task, head)
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        self.accumulator.didReceiveBodyPart(task: task, buffer)
    }

    func didReceiveError(task: HTTPClient.Task<Response>, _ error: any Error) {
        self.accumulator.didReceiveError(task: task, error)
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        try self.accumulator.didFinishRequest(task: task)
    }
}
