import AttendantCookies
public import AttendantPluginAPI
import Glibc
import Synchronization

/// A ``ChannelNetwork`` in memory, that the test scripts and drives: the other end of every request,
/// WebSocket, datagram flow and stream flow a channel opens is the test's.
///
/// ``InMemoryChannelHost`` lends one by default (`host.inMemoryNetwork`). It keeps the promises the
/// daemon's network keeps: a 404 is a response, not an error; a socket's callbacks run one at a time and
/// in order, and nothing reaches a socket the channel closed; a WebSocket the server ends is reported once
/// as ``WebSocketEvent/closed(_:)``; a send on a closed socket fails with ``NetworkError/Kind/closed``.
///
/// HTTP, by answers scripted per method and URL, or by a handler:
///
/// ```swift
/// let host = InMemoryChannelHost()
/// host.inMemoryNetwork.answer("GET", "https://api.example.com/status", with: NetworkResponse(status: 200, body: Array("ok".utf8)))
/// host.inMemoryNetwork.answer("POST", "https://api.example.com/events", with: .failure(NetworkError(.timeout, "no answer")))
/// … the channel sends …
/// let request = try await host.inMemoryNetwork.nextRequest()
/// #expect(request.url == "https://api.example.com/status")
/// ```
///
/// Sockets, whose other end the test holds (``WebSocketPeer``, ``DatagramPeer``, ``StreamFlowPeer``):
///
/// ```swift
/// let socket = try await host.inMemoryNetwork.nextWebSocket()
/// socket.send(text: #"{"type":"hello"}"#)             // the channel hears .text
/// let sent = try await socket.nextMessage()           // what the channel sent
/// socket.close(code: 1001, reason: "going away")      // the channel hears .closed
/// ```
///
/// Failures the test injects: ``refuseWebSockets(to:with:times:)``, ``refuseFlows(to:port:with:times:)``
/// (a certificate that does not verify, a refused connection, a name that does not resolve), and
/// ``Answer/failure(_:)`` for HTTP.
///
/// Time limits (``NetworkRequest/timeout``) run on the clock the network is given: the host's
/// ``ManualClock`` for ``InMemoryChannelHost``, so a held request times out when the test moves the clock.
/// The waits of the test's side (`next…(timeout:)`) run on the wall clock and throw
/// ``InMemoryNetworkTimeout``.
///
/// Cookies, as the daemon keeps them for a channel: a request with ``NetworkRequest/usesCookies`` carries
/// the `Cookie` header of the network's jar (after any the channel set itself), and the `Set-Cookie`s of
/// its answer go into the jar; a request without it neither sends nor keeps any. Each network has a jar
/// of its own (the daemon's: each channel), and its cookies expire by the network's clock (on a
/// ``ManualClock``, by its ``ManualClock/unixTime()``). Requests are recorded (``requests``) and handed to
/// the handler as the server gets them, with the jar's cookies; WebSocket upgrades carry none, as in the
/// daemon.
public final class InMemoryNetwork: ChannelNetwork {
    /// What an HTTP request gets.
    public enum Answer: Sendable {
        case response(NetworkResponse)
        /// The request fails with this error, as the daemon's network fails it when no response came.
        case failure(NetworkError)
    }

    /// Answers requests that no scripted answer matches. It may suspend (a long poll the test answers
    /// later); the request's time limit and the caller's cancellation still end the request.
    public typealias RequestHandler = @Sendable (NetworkRequest) async throws(NetworkError) -> NetworkResponse

    struct Route {
        var method: String
        var url: String
        var answer: Answer
        var once: Bool
    }

    struct Refusal {
        var matches: @Sendable (String, Int?) -> Bool
        var error: NetworkError
        var remaining: Int
    }

    struct State {
        var routes: [Route] = []
        var handler: RequestHandler?
        var webSocketRefusals: [Refusal] = []
        var flowRefusals: [Refusal] = []
        var addresses: [String: String] = ["localhost": "127.0.0.1"]
        var unreachable: Set<NetworkAddress> = []
        var nextPort = 40_000
    }

    let state = Mutex(State())
    let cookies = Mutex(CookieJar())
    /// Seconds since 1970 by the network's clock, for cookie expiry.
    let wallTime: @Sendable () -> Double
    /// The clock of the requests' and sockets' time limits.
    public let clock: any Clock<Duration>
    /// The address of this side of every flow.
    public let localIP: String

    let requestLog = Mailbox<NetworkRequest>()
    private let webSocketLog = Mailbox<WebSocketPeer>()
    private let datagramLog = Mailbox<DatagramPeer>()
    private let sentDatagrams = Mailbox<(flow: DatagramPeer, datagram: DatagramPeer.Datagram)>()
    private let streamLog = Mailbox<StreamFlowPeer>()

    /// A network whose time limits run on `clock` and whose flows go out from `localIP`.
    public init(clock: any Clock<Duration> = ContinuousClock(), localIP: String = "127.0.0.1") {
        self.clock = clock
        self.localIP = localIP
        self.wallTime = Self.wallTime(on: clock)
    }

    /// The manual clock's wall time; for another clock, the wall time when the network was made, moved on
    /// as that clock moves.
    private static func wallTime(on clock: some Clock<Duration>) -> @Sendable () -> Double {
        if let manual = clock as? ManualClock { return { manual.unixTime().secondsSince1970 } }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let base = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        let start = clock.now
        return { base + start.duration(to: clock.now).seconds }
    }

    // MARK: Scripting HTTP

    /// Answers every `method` request to `url` with `answer` from now on (replacing an earlier standing
    /// answer for the same pair). A `url` without a query matches the URL with any query.
    public func answer(_ method: String, _ url: String, with answer: Answer) {
        let method = method.uppercased()
        self.state.withLock { state in
            state.routes.removeAll { !$0.once && $0.method == method && $0.url == url }
            state.routes.append(Route(method: method, url: url, answer: answer, once: false))
        }
    }

    /// Answers every `method` request to `url` with `response`.
    public func answer(_ method: String, _ url: String, with response: NetworkResponse) {
        self.answer(method, url, with: .response(response))
    }

    /// Answers the next `method` request to `url` with `answer`, once. Answers given once are used in the
    /// order they were given, before any standing answer.
    public func answerOnce(_ method: String, _ url: String, with answer: Answer) {
        let route = Route(method: method.uppercased(), url: url, answer: answer, once: true)
        self.state.withLock { $0.routes.append(route) }
    }

    /// Answers, with `handler`, the requests no scripted answer matches. Without a handler such a request
    /// fails with ``NetworkError/Kind/connection``, naming it.
    public func handleRequests(_ handler: @escaping RequestHandler) {
        self.state.withLock { $0.handler = handler }
    }

    /// Every request the channel sent, in order.
    public var requests: [NetworkRequest] { self.requestLog.all }

    /// The next request the channel sent that this method has not returned yet.
    public func nextRequest(timeout: Duration = .seconds(60)) async throws(InMemoryNetworkTimeout) -> NetworkRequest {
        try await self.requestLog.next("HTTP request from the channel", timeout: timeout)
    }

    // MARK: Scripting sockets

    /// Refuses the channel's WebSockets to URLs that start with `urlPrefix`, with `error`, the next
    /// `times` times (by default, from now on). A refusal given first is used first.
    public func refuseWebSockets(to urlPrefix: String, with error: NetworkError, times: Int = .max) {
        let refusal = Refusal(matches: { url, _ in url.hasPrefix(urlPrefix) }, error: error, remaining: times)
        self.state.withLock { $0.webSocketRefusals.append(refusal) }
    }

    /// Refuses the channel's datagram and stream flows to `host` (and `port`, or any port), with `error`,
    /// the next `times` times. A certificate that does not verify is
    /// `NetworkError(.certificate, "…")`; a peer that is down, `NetworkError(.connection, "… refused")`.
    public func refuseFlows(to host: String, port: Int? = nil, with error: NetworkError, times: Int = .max) {
        let refusal = Refusal(matches: { h, p in h == host && (port == nil || p == port) }, error: error, remaining: times)
        self.state.withLock { $0.flowRefusals.append(refusal) }
    }

    /// Makes `name` resolve to `ip` for flows. IP literals and `localhost` resolve without it; any other
    /// name fails with ``NetworkError/Kind/resolution``, as a name without a DNS entry does.
    public func setAddress(_ ip: String, for name: String) {
        self.state.withLock { $0.addresses[name] = ip }
    }

    /// Every WebSocket the channel opened, in order.
    public var webSockets: [WebSocketPeer] { self.webSocketLog.all }

    /// The next WebSocket the channel opened that this method has not returned yet.
    public func nextWebSocket(timeout: Duration = .seconds(60)) async throws(InMemoryNetworkTimeout) -> WebSocketPeer {
        try await self.webSocketLog.next("WebSocket opened by the channel", timeout: timeout)
    }

    /// Every datagram flow the channel opened, in order.
    public var datagramFlows: [DatagramPeer] { self.datagramLog.all }

    /// The next datagram flow the channel opened that this method has not returned yet.
    public func nextDatagramFlow(timeout: Duration = .seconds(60)) async throws(InMemoryNetworkTimeout) -> DatagramPeer {
        try await self.datagramLog.next("datagram flow opened by the channel", timeout: timeout)
    }

    /// The next datagram that any of the channel's flows sent to `destination` and that this method has
    /// not returned yet, with the flow that sent it: the test's side of one address, whichever flow the
    /// channel uses (a registrar, or a proxy that a response is routed to). Each datagram is handed out
    /// once here and once by its flow's ``DatagramPeer/nextDatagram(timeout:)``, independently.
    public func nextDatagram(
        to destination: NetworkAddress,
        timeout: Duration = .seconds(60)
    ) async throws(InMemoryNetworkTimeout) -> (flow: DatagramPeer, datagram: DatagramPeer.Datagram) {
        try await self.sentDatagrams.next("datagram from the channel to \(destination)", timeout: timeout) { $0.datagram.destination == destination }
    }

    /// Makes nothing listen at `address` (a registrar that stopped), or something again (`false`): what
    /// the channel sends there over a flow connected to it comes back as ``DatagramEvent/unreachable(_:)``,
    /// as the kernel reports an ICMP "port unreachable" on a connected socket.
    public func setUnreachable(_ address: NetworkAddress, _ unreachable: Bool = true) {
        self.state.withLock { state in
            if unreachable { state.unreachable.insert(address) } else { state.unreachable.remove(address) }
        }
    }

    /// Every stream flow the channel opened, in order.
    public var streamFlows: [StreamFlowPeer] { self.streamLog.all }

    /// The next stream flow the channel opened that this method has not returned yet.
    public func nextStreamFlow(timeout: Duration = .seconds(60)) async throws(InMemoryNetworkTimeout) -> StreamFlowPeer {
        try await self.streamLog.next("stream flow opened by the channel", timeout: timeout)
    }

    // MARK: Shared

    /// The refusal for `target`, counted as used.
    func refusal(webSocket url: String) -> NetworkError? {
        self.state.withLock { Self.takeRefusal(&$0.webSocketRefusals, url, nil) }
    }

    func refusal(flowTo host: String, port: Int) -> NetworkError? {
        self.state.withLock { Self.takeRefusal(&$0.flowRefusals, host, port) }
    }

    private static func takeRefusal(_ refusals: inout [Refusal], _ target: String, _ port: Int?) -> NetworkError? {
        guard let index = refusals.firstIndex(where: { $0.matches(target, port) }) else { return nil }
        refusals[index].remaining -= 1
        let error = refusals[index].error
        if refusals[index].remaining <= 0 { refusals.remove(at: index) }
        return error
    }

    /// The address `host` resolves to, as an IP.
    func resolve(_ host: String) throws(NetworkError) -> String {
        if Self.isIPLiteral(host) { return host }
        guard let ip = self.state.withLock({ $0.addresses[host] }) else {
            throw NetworkError(.resolution, "the name \(host) did not resolve (the in-memory network knows it only after setAddress(_:for:))")
        }
        return ip
    }

    /// A fresh local address for a flow.
    func nextLocalAddress() -> NetworkAddress {
        let port = self.state.withLock { state in
            defer { state.nextPort += 1 }
            return state.nextPort
        }
        return NetworkAddress(ip: self.localIP, port: port)
    }

    func opened(_ socket: WebSocketPeer) { self.webSocketLog.put(socket) }
    func opened(_ flow: DatagramPeer) { self.datagramLog.put(flow) }

    /// A flow's channel sent `datagram`.
    func sent(_ datagram: DatagramPeer.Datagram, by flow: DatagramPeer) {
        self.sentDatagrams.put((flow, datagram))
        guard datagram.destination == flow.remote, self.state.withLock({ $0.unreachable.contains(datagram.destination) }) else { return }
        // Later, as the ICMP error comes back: never inside the channel's own send.
        Task { flow.unreachable("Connection refused") }
    }
    func opened(_ flow: StreamFlowPeer) { self.streamLog.put(flow) }

    static func isIPLiteral(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0 == "." || $0.isNumber })
    }

    /// The host of an absolute URL with one of `schemes`, or nil.
    static func hostPart(of url: String, schemes: [String]) -> Substring? {
        let lowered = url.lowercased()
        guard let scheme = schemes.first(where: { lowered.hasPrefix($0 + "://") }) else { return nil }
        let rest = url.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@").last ?? ""
        return host.isEmpty ? nil : host
    }

    /// `30`, `1.5`: seconds as the daemon's messages write them.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = (duration.seconds * 1000).rounded()
        if milliseconds.truncatingRemainder(dividingBy: 1000) == 0 { return String(Int64(milliseconds / 1000)) }
        var text = String(milliseconds / 1000)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// A URL for a message: no query or fragment (pre-signed URLs carry credentials there), as the
    /// daemon's network shows it.
    static func redacted(_ url: String) -> String {
        guard let end = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return url }
        return url[..<end] + "?…"
    }
}
