import AttendantCookies
public import AttendantPluginAPI
import Glibc
import Synchronization

// The HTTP side of ChannelNetwork: a request is answered by the test's routes or handler, with the jar's
// cookies, within its time limit on the network's clock.
extension InMemoryNetwork {
    public func send(_ request: NetworkRequest) async throws(NetworkError) -> NetworkResponse {
        var request = request
        request.method = request.method.uppercased()
        let what = "\(request.method) \(Self.redacted(request.url))"
        guard Self.hostPart(of: request.url, schemes: ["http", "https"]) != nil else {
            throw NetworkError(.invalidRequest, "\(what): not an absolute http:// or https:// URL")
        }
        let target = request.usesCookies ? CookieJar.Target(url: request.url) : nil
        if let target, let jar = self.cookies.withLock({ $0.header(for: target, now: self.wallTime()) }) {
            // As the daemon sends it: one Cookie header, the channel's own first.
            let own = request.headers.first { $0.name.lowercased() == "cookie" }?.value
            request.headers.removeAll { $0.name.lowercased() == "cookie" }
            request.headers.append(NetworkHeader("Cookie", own.map { "\($0); \(jar)" } ?? jar))
        }
        self.requestLog.put(request)
        let (scripted, handler) = self.state.withLock { state -> (Answer?, RequestHandler?) in
            let index =
                state.routes.firstIndex { $0.once && Self.matches($0, request) }
                ?? state.routes.firstIndex { !$0.once && Self.matches($0, request) }
            guard let index else { return (nil, state.handler) }
            let route = state.routes[index]
            if route.once { state.routes.remove(at: index) }
            return (route.answer, nil)
        }
        let response: NetworkResponse
        if let scripted {
            if Task.isCancelled { throw NetworkError(.closed, "\(what) was cancelled") }
            switch scripted {
            case .response(let answer): response = answer
            case .failure(let error): throw error
            }
        } else if let handler {
            let request = request
            response = try await self.race(
                what: what,
                limit: request.timeout,
                timeout: NetworkError(.timeout, "\(what) failed: no answer within \(Self.seconds(request.timeout)) s")
            ) { () async throws(NetworkError) in try await handler(request) }
        } else {
            throw NetworkError(
                .connection,
                "\(what) failed: the in-memory network has no answer for it (script one with answer(_:_:with:) or handleRequests(_:))"
            )
        }
        guard response.body.count <= request.maximumResponseSize else {
            throw NetworkError(
                .tooLarge,
                "\(what) answered with more than \(request.maximumResponseSize) bytes (HTTP \(response.status))",
                status: response.status
            )
        }
        if let target {
            let setCookies = response.headers.filter { $0.name.lowercased() == "set-cookie" }
            if !setCookies.isEmpty {
                let now = self.wallTime()
                self.cookies.withLock { jar in
                    for header in setCookies { jar.store(header.value, from: target, now: now) }
                }
            }
        }
        return response
    }

    private static func matches(_ route: Route, _ request: NetworkRequest) -> Bool {
        guard route.method == request.method else { return false }
        if route.url == request.url { return true }
        guard !route.url.contains("?"), let query = request.url.firstIndex(of: "?") else { return false }
        return route.url == request.url[..<query]
    }

    /// `work`'s result, or `timeout` once `limit` passed on the network's clock, or ``NetworkError/Kind/closed``
    /// as soon as the caller is cancelled, whichever comes first; what loses is cancelled.
    func race<T: Sendable>(
        what: String,
        limit: Duration,
        timeout: NetworkError,
        _ work: @escaping @Sendable () async throws(NetworkError) -> T
    ) async throws(NetworkError) -> T {
        let outcome = Mutex<CheckedContinuation<Result<T, NetworkError>, Never>?>(nil)
        let tasks = Mutex<[Task<Void, Never>]>([])
        let finish: @Sendable (Result<T, NetworkError>) -> Void = { result in
            outcome.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }?.resume(returning: result)
        }
        let clock = self.clock
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, NetworkError>, Never>) in
                outcome.withLock { $0 = continuation }
                if Task.isCancelled {
                    finish(.failure(NetworkError(.closed, "\(what) was cancelled")))
                    return
                }
                let worker = Task {
                    do throws(NetworkError) {
                        finish(.success(try await work()))
                    } catch {
                        finish(.failure(error))
                    }
                }
                let timer = Task {
                    do {
                        try await clock.sleep(for: limit)
                        finish(.failure(timeout))
                    } catch {}
                }
                tasks.withLock { $0 = [worker, timer] }
            }
        } onCancel: {
            finish(.failure(NetworkError(.closed, "\(what) was cancelled")))
        }
        for task in tasks.withLock({ $0 }) { task.cancel() }
        return try result.get()
    }
}
