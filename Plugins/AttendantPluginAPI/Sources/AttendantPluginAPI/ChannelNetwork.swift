// MARK: - The host's network stack (since API 1.4)

/// The network, lent to a channel by the host (``ChannelHost/network``).
///
/// The daemon owns the process's I/O: one event-loop group, one HTTP client per TLS policy, one cookie jar
/// per channel. A plugin reaches the network only through this protocol, in standard-library types, so it
/// links no network library of its own (DESIGN.md section 2, as libre does for baresip's modules).
///
/// Callbacks that deliver what arrives (`receive`, `events`, a ``StreamReceiver``) run on the host's I/O
/// thread, one at a time per socket and in order: do little there (parse, take a lock, hand over) and
/// never wait. After a close asked for with `close()`, nothing more is delivered for that socket.
public protocol ChannelNetwork: Sendable {
    /// Sends one HTTP(S) request and returns the whole response (any status: a 404 is a response, not an
    /// error). TLS certificates are verified unless the channel's configuration says otherwise.
    ///
    /// - Throws: ``NetworkError`` when no response came: the name did not resolve, the connection failed,
    ///   TLS failed, the time limit passed, or the body was larger than ``NetworkRequest/maximumResponseSize``.
    func send(_ request: NetworkRequest) async throws(NetworkError) -> NetworkResponse

    /// Opens a WebSocket connection (`ws://` or `wss://`) and returns once the upgrade succeeded.
    ///
    /// `events` hears every message in order, then exactly one ``WebSocketEvent/closed(_:)`` when the
    /// connection ends other than by ``WebSocketConnection/close()``.
    func openWebSocket(
        _ request: WebSocketRequest,
        events: @escaping @Sendable (WebSocketEvent) -> Void
    ) async throws(NetworkError) -> any WebSocketConnection

    /// Opens a UDP flow to `host`:`port`: a socket connected to it (so an ICMP "port unreachable" comes
    /// back as ``DatagramEvent/unreachable(_:)``), and, with ``DatagramOptions/acceptFromAnywhere``, an
    /// unconnected socket on the same local address and port that receives datagrams from any source.
    func openDatagramFlow(
        to host: String,
        port: Int,
        options: DatagramOptions,
        receive: @escaping @Sendable (DatagramEvent) -> Void
    ) async throws(NetworkError) -> any DatagramFlow

    /// Opens a TCP connection to `host`:`port` and, with ``StreamOptions/listen``, a listener on the
    /// connection's own local address and port (bound first, so the port is the connection's alone),
    /// which accepts connections from anywhere.
    ///
    /// With ``StreamOptions/tls`` the connection is TLS, by the channel's TLS policy (see ``StreamTLS``),
    /// and returns once the handshake succeeded; a certificate that does not verify fails it with
    /// ``NetworkError/Kind/certificate``. A TLS flow cannot listen (the host has no certificate of its own
    /// to accept TLS with): asking for both fails with ``NetworkError/Kind/invalidRequest``.
    ///
    /// `receiver` is asked for one ``StreamReceiver`` per connection: first for the outgoing one, then for
    /// each accepted one.
    func openStreamFlow(
        to host: String,
        port: Int,
        options: StreamOptions,
        receiver: @escaping @Sendable (any StreamConnection) -> any StreamReceiver
    ) async throws(NetworkError) -> any StreamFlow
}

/// A network address: an IP address (no name) and a port.
public struct NetworkAddress: Sendable, Hashable, CustomStringConvertible {
    /// IPv4 dotted or IPv6 text, without brackets.
    public var ip: String
    public var port: Int

    public init(ip: String, port: Int) {
        self.ip = ip
        self.port = port
    }

    /// `ip:port`, or `[ip]:port` for IPv6.
    public var description: String { self.ip.contains(":") ? "[\(self.ip)]:\(self.port)" : "\(self.ip):\(self.port)" }
}

/// Why the network could not do what was asked, in words for the user.
public struct NetworkError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The name did not resolve.
        case resolution
        /// The connection was refused, reset, or could not be made; a socket could not be bound.
        case connection
        /// A TLS handshake failed (the peer broke off, spoke no TLS, or offered nothing in common).
        case tls
        /// The server's certificate does not verify: no CA the channel trusts issued it (the system's trust
        /// store, or the channel's `tls-ca-file`), it has expired, or it is not for the name asked for.
        /// Trying again changes nothing until a setting or the server's certificate does. Since API 1.12;
        /// before, this was ``tls``.
        case certificate
        /// No answer within the time limit.
        case timeout
        /// The peer sent more than the limit allows.
        case tooLarge
        /// The peer broke the protocol (a bad HTTP response, a refused WebSocket upgrade).
        case protocolViolation
        /// The connection is closed (writing after the end).
        case closed
        /// The request itself is not valid (a URL that does not parse, an unsupported scheme).
        case invalidRequest
        /// This host has no network (a test host built without one).
        case unavailable
    }

    public var kind: Kind
    /// What failed, for a log line: "the connection to 192.0.2.1:443 was refused".
    public var message: String
    /// The HTTP status of an answer the server did send but that could not be taken whole (``Kind/tooLarge``):
    /// the server got the request and said so, which a protocol may need to know (KARTE does not send
    /// events again that a 2xx acknowledged). Nil for every other failure. Since API 1.10.
    public var status: Int?

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
        self.status = nil
    }

    /// A failure of an answer with HTTP `status` (since API 1.10).
    public init(_ kind: Kind, _ message: String, status: Int?) {
        self.kind = kind
        self.message = message
        self.status = status
    }

    public var description: String { self.message }
}

// MARK: HTTP

/// One header line.
public struct NetworkHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// An HTTP request.
public struct NetworkRequest: Sendable, Hashable {
    /// `GET`, `POST`, `PUT`, `DELETE`, …
    public var method: String
    /// An absolute `http://` or `https://` URL.
    public var url: String
    public var headers: [NetworkHeader]
    public var body: [UInt8]?
    /// The whole exchange's time limit, connecting included. Long polls set it past the server's hold time.
    public var timeout: Duration
    /// Bodies larger than this fail the request with ``NetworkError/Kind/tooLarge``.
    public var maximumResponseSize: Int
    /// Whether the channel's cookie jar adds its cookies and keeps the `Set-Cookie`s of the response.
    public var usesCookies: Bool

    public init(
        method: String = "GET",
        url: String,
        headers: [NetworkHeader] = [],
        body: [UInt8]? = nil,
        timeout: Duration = .seconds(30),
        maximumResponseSize: Int = 4 << 20,
        usesCookies: Bool = true
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maximumResponseSize = maximumResponseSize
        self.usesCookies = usesCookies
    }
}

/// An HTTP response.
public struct NetworkResponse: Sendable, Hashable {
    public var status: Int
    public var reason: String
    public var headers: [NetworkHeader]
    public var body: [UInt8]

    public init(status: Int, reason: String = "", headers: [NetworkHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return self.headers.first { $0.name.lowercased() == wanted }?.value
    }
}

// MARK: WebSocket

/// What to open.
public struct WebSocketRequest: Sendable, Hashable {
    /// `ws://` or `wss://`.
    public var url: String
    public var headers: [NetworkHeader]
    /// Messages larger than this end the connection (``WebSocketEvent/closed(_:)`` says so).
    public var maximumMessageSize: Int
    /// The time limit for connecting and upgrading.
    public var timeout: Duration

    public init(url: String, headers: [NetworkHeader] = [], maximumMessageSize: Int = 1 << 20, timeout: Duration = .seconds(30)) {
        self.url = url
        self.headers = headers
        self.maximumMessageSize = maximumMessageSize
        self.timeout = timeout
    }
}

/// What arrives on a WebSocket.
public enum WebSocketEvent: Sendable, Hashable {
    /// A text message, as UTF-8.
    case text([UInt8])
    case binary([UInt8])
    /// The answer to ``WebSocketConnection/ping(_:)``.
    case pong([UInt8])
    /// The connection ended: the peer's close frame (code and reason), a failure, or a message over the limit.
    case closed(String)
}

/// An open WebSocket connection.
public protocol WebSocketConnection: Sendable {
    /// Sends a text message (`bytes` are UTF-8).
    func send(text bytes: [UInt8]) async throws(NetworkError)
    func send(binary bytes: [UInt8]) async throws(NetworkError)
    /// Sends a ping frame; its pong arrives as ``WebSocketEvent/pong(_:)``.
    func ping(_ payload: [UInt8]) async throws(NetworkError)
    /// Sends a close frame (normal closure) and ends the connection; no ``WebSocketEvent/closed(_:)``
    /// follows.
    func close() async
}

// MARK: Datagrams

/// How a UDP flow's sockets are set up.
public struct DatagramOptions: Sendable, Hashable {
    /// `SO_RCVBUF` asked for (the kernel caps it at `net.core.rmem_max`): room for bursts.
    public var receiveBufferSize: Int
    /// The largest datagram read whole; one that fills it arrives with `truncated` set.
    public var maximumDatagramSize: Int
    /// Also receive from any source on the flow's local address and port (a second, unconnected socket).
    public var acceptFromAnywhere: Bool

    public init(receiveBufferSize: Int = 4 << 20, maximumDatagramSize: Int = 65_536, acceptFromAnywhere: Bool = true) {
        self.receiveBufferSize = receiveBufferSize
        self.maximumDatagramSize = maximumDatagramSize
        self.acceptFromAnywhere = acceptFromAnywhere
    }
}

/// What arrives on a UDP flow.
public enum DatagramEvent: Sendable, Hashable {
    /// One datagram from `source`; `truncated` when it filled the whole buffer, so it may have been cut.
    case datagram([UInt8], from: NetworkAddress, truncated: Bool)
    /// An ICMP error came back for what the connected socket sent: nothing listens at the remote address.
    case unreachable(String)
}

/// A UDP flow (see ``ChannelNetwork/openDatagramFlow(to:port:options:receive:)``).
public protocol DatagramFlow: Sendable {
    var local: NetworkAddress { get }
    var remote: NetworkAddress { get }
    /// Sends to the remote address over the connected socket. Failures show up as lost datagrams or as
    /// ``DatagramEvent/unreachable(_:)``.
    func send(_ bytes: [UInt8])
    /// Sends to any address: the remote over the connected socket, others over the unconnected one.
    func send(_ bytes: [UInt8], to address: NetworkAddress)
    func close() async
}

// MARK: Streams

/// How a TCP flow is set up.
public struct StreamOptions: Sendable, Hashable {
    /// Also accept connections on the flow's local address and port.
    public var listen: Bool
    /// The time limit for connecting, and then for the TLS handshake.
    public var connectTimeout: Duration
    /// `SO_KEEPALIVE` on the outgoing connection.
    public var keepAlive: Bool
    /// TLS on the outgoing connection; nil, the default: plain TCP. Since API 1.12.
    public var tls: StreamTLS?

    public init(listen: Bool = false, connectTimeout: Duration = .seconds(10), keepAlive: Bool = true) {
        self.listen = listen
        self.connectTimeout = connectTimeout
        self.keepAlive = keepAlive
        self.tls = nil
    }

    /// Options with TLS (since API 1.12).
    public init(listen: Bool = false, connectTimeout: Duration = .seconds(10), keepAlive: Bool = true, tls: StreamTLS?) {
        self.listen = listen
        self.connectTimeout = connectTimeout
        self.keepAlive = keepAlive
        self.tls = tls
    }
}

/// TLS on a stream (since API 1.12), by the host's one TLS policy for the channel: the server's
/// certificate must be issued by a CA in the system's trust store or in the channel's `tls-ca-file`, and be
/// for ``serverName``, unless the channel says `tls-verify = false` (then nothing is checked, and the
/// host warns when the channel starts).
public struct StreamTLS: Sendable, Hashable {
    /// The name sent as SNI and checked against the certificate (its subjectAltName DNS entries); an IP
    /// address is sent as no SNI and checked against the certificate's IP entries.
    public var serverName: String

    public init(serverName: String) {
        self.serverName = serverName
    }
}

/// One TCP connection of a flow: the outgoing one or an accepted one.
public protocol StreamConnection: AnyObject, Sendable {
    var peer: NetworkAddress { get }
    /// Whether the peer opened it (accepted by the flow's listener).
    var isInbound: Bool { get }
    /// Writes bytes (`TCP_NODELAY` is on). Failures close the connection and reach its receiver.
    func write(_ bytes: [UInt8])
    /// Closes the connection; its receiver hears nothing more.
    func close()
}

/// Takes what arrives on one connection, one call at a time, in order, on the host's I/O thread.
public protocol StreamReceiver: AnyObject, Sendable {
    func received(_ bytes: [UInt8])
    /// The connection ended: `reason` says how ("closed by the peer", "reset", a failure).
    func closed(_ reason: String)
}

/// A TCP flow (see ``ChannelNetwork/openStreamFlow(to:port:options:receiver:)``).
public protocol StreamFlow: Sendable {
    /// The outgoing connection.
    var connection: any StreamConnection { get }
    var local: NetworkAddress { get }
    /// Closes the connection, the listener and every accepted connection; no receiver hears of it.
    func close() async
}

/// The network of a host that has none (a host built against API 1.3 or older, or a test host without
/// one): every call fails with ``NetworkError/Kind/unavailable``.
public struct NoChannelNetwork: ChannelNetwork {
    public init() {}

    private static let error = NetworkError(.unavailable, "this host lends no network to its channels")

    public func send(_ request: NetworkRequest) async throws(NetworkError) -> NetworkResponse { throw Self.error }

    public func openWebSocket(
        _ request: WebSocketRequest,
        events: @escaping @Sendable (WebSocketEvent) -> Void
    ) async throws(NetworkError) -> any WebSocketConnection {
        throw Self.error
    }

    public func openDatagramFlow(
        to host: String,
        port: Int,
        options: DatagramOptions,
        receive: @escaping @Sendable (DatagramEvent) -> Void
    ) async throws(NetworkError) -> any DatagramFlow {
        throw Self.error
    }

    public func openStreamFlow(
        to host: String,
        port: Int,
        options: StreamOptions,
        receiver: @escaping @Sendable (any StreamConnection) -> any StreamReceiver
    ) async throws(NetworkError) -> any StreamFlow {
        throw Self.error
    }
}
