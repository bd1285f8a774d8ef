import AttendantPluginAPI
import SIPCore

/// One flow to the registrar (RFC 5626's "flow": a connected UDP socket or a TCP connection), and the
/// socket that receives requests for the registered Contact from anywhere else, both lent by the host
/// (``ChannelHost/network``). Everything that arrives is handed to `receive` on the host's I/O thread,
/// parsed, with where it came from.
///
/// - UDP: the flow is a socket connected to the registrar, so an ICMP "port unreachable" fails a REGISTER
///   at once; beside it an unconnected socket bound to the same local address and port receives requests
///   from any source, as RFC 3261 lets a proxy reach a Contact from anywhere. Both sockets have a receive
///   buffer sized for bursts of INVITEs and read whole datagrams up to the UDP maximum.
/// - TCP: the transport also listens on the flow's local address and port, which is what the Contact
///   names: without RFC 5626 outbound (not asked for, or not granted by the registrar) a proxy opens a
///   new connection to the Contact (RFC 3261 section 18.2.2); with it, calls come back on the flow.
/// - TLS: a TCP connection with TLS, which the host verifies by the channel's TLS policy (the server's
///   name and certificate, RFC 3261 section 26.3.1; RFC 5922). It does not listen: accepting TLS needs a
///   certificate of our own. Calls come back on the flow (RFC 5626 outbound, on by default here), or on
///   the connection a proxy reuses for the Contact, whose port is the flow's.
final class SIPTransport: Sendable {
    enum Kind: String, Sendable {
        case udp = "UDP"
        case tcp = "TCP"
        case tls = "TLS"

        /// Reliable transports do without SIP retransmissions.
        var isReliable: Bool { self != .udp }
    }

    /// Where a request came from, and so where its responses go (RFC 3261 section 18.2.2).
    typealias Origin = SIPOrigin

    /// What arrives.
    enum Arrival: Sendable {
        case message(SIPMessage, Origin)
        /// A CRLF pong (RFC 5626 section 4.4.1) answering our ping.
        case pong
        /// Bytes from `from` that are not SIP; `closed` when that inbound connection was closed for it
        /// (over the flow's TCP connection the flow is closed and reported with ``closed(_:)``).
        case garbage(SIPParseError, from: String, closed: Bool)
        /// A datagram that filled the whole receive buffer, so it may have been cut short.
        case truncated(from: String, size: Int)
        /// An ICMP error came back for what was sent (UDP): nothing listens at the registrar's address.
        case unreachable(String)
        /// The flow is gone (connection closed, reset, or the socket failed).
        case closed(String)
    }

    /// The largest datagram read: the UDP maximum over IPv4 (65,507 bytes) and IPv6 (65,527) fits.
    static let datagramCapacity = 65_536
    /// The receive buffer asked for (`SO_RCVBUF`; the kernel caps it at `net.core.rmem_max`): room for
    /// hundreds of INVITEs that arrive back to back while earlier ones are handled.
    static let receiveBufferSize = 4 << 20

    private enum Flow: Sendable {
        case datagram(any DatagramFlow)
        case stream(any StreamFlow)
    }

    let kind: Kind
    let local: NetworkAddress
    private let flow: Flow

    private init(kind: Kind, flow: Flow) {
        self.kind = kind
        self.flow = flow
        switch flow {
        case .datagram(let datagrams): self.local = datagrams.local
        case .stream(let stream): self.local = stream.local
        }
    }

    /// Opens the flow to `host`:`port`, and the socket that takes requests from elsewhere (with `listen`).
    ///
    /// - Throws: ``TransportError`` saying what could not be reached or bound, and why.
    static func open(
        _ kind: Kind,
        host: String,
        port: Int,
        listen: Bool = true,
        connectTimeout: Duration = .seconds(10),
        network: any ChannelNetwork,
        receive: @escaping @Sendable (Arrival) -> Void
    ) async throws(TransportError) -> SIPTransport {
        do throws(NetworkError) {
            switch kind {
            case .udp:
                let options = DatagramOptions(
                    receiveBufferSize: Self.receiveBufferSize,
                    maximumDatagramSize: Self.datagramCapacity,
                    acceptFromAnywhere: listen
                )
                let reception = DatagramReception(receive: receive)
                let flow = try await network.openDatagramFlow(to: host, port: port, options: options) { reception.deliver($0) }
                return SIPTransport(kind: kind, flow: .datagram(flow))
            case .tcp, .tls:
                let tls = kind == .tls ? StreamTLS(serverName: host) : nil
                let options = StreamOptions(listen: listen && tls == nil, connectTimeout: connectTimeout, keepAlive: true, tls: tls)
                let flow = try await network.openStreamFlow(to: host, port: port, options: options) { connection in
                    StreamReception(connection: connection, transport: kind, receive: receive)
                }
                return SIPTransport(kind: kind, flow: .stream(flow))
            }
        } catch  where error.kind == .certificate {
            throw TransportError(
                "the registrar at \(host):\(port) cannot be used over TLS: \(error.message); set tls-ca-file in the channel's [[channel]] table to the CA that issued its certificate, or have the registrar's certificate fixed, then reload",
                code: .configuration
            )
        } catch {
            throw TransportError("cannot reach the registrar at \(host):\(port) over \(kind.rawValue): \(error.message)")
        }
    }

    /// The local address as it goes into Via and Contact; `scheme` is the Contact's.
    func address(scheme: String = "sip") -> SIPLocalAddress {
        SIPLocalAddress(ip: self.local.ip, port: self.local.port, transport: self.kind.rawValue, scheme: scheme)
    }

    /// Whether a request from `origin` came from the registrar on this flow: the TCP connection to it, or a
    /// datagram from the address the UDP socket is connected to (RFC 5626's flow is that 5-tuple).
    func isRegistrar(_ origin: Origin) -> Bool {
        switch (origin.path, self.flow) {
        case (.flow, _): true
        case (.datagram(let address), .datagram(let flow)): address == flow.remote
        default: false
        }
    }

    /// Sends a message on the flow, or (a response) where its request came from. Failures show up as
    /// ``Arrival/closed(_:)`` (the flow over TCP) or are absorbed by SIP's retransmissions (UDP).
    func send(_ message: SIPMessage, to origin: Origin? = nil) {
        let bytes = message.serialized()
        switch (origin?.path, self.flow) {
        case (.datagram(let address)?, .datagram(let flow)):
            flow.send(bytes, to: address)
        case (.connection(let connection)?, _):
            connection.write(bytes)
        default:
            self.write(bytes)
        }
    }

    /// Sends an RFC 5626 CRLFCRLF ping (TCP and TLS only).
    func ping() {
        self.write(SIPStreamFramer.ping)
    }

    private func write(_ bytes: [UInt8]) {
        switch self.flow {
        case .datagram(let flow): flow.send(bytes)
        case .stream(let flow): flow.connection.write(bytes)
        }
    }

    /// Closes the flow, the listener and inbound connections; nothing more arrives, and no
    /// ``Arrival/closed(_:)`` is reported for a close asked for here.
    func close() async {
        switch self.flow {
        case .datagram(let flow): await flow.close()
        case .stream(let flow): await flow.close()
        }
    }

    /// Closes without waiting (from under the channel's lock, or where no task waits for it).
    func closeNow() {
        Task { await self.close() }
    }
}

/// A transport failure, with a message for the user; `code` says whether retrying can help.
struct TransportError: Error, Sendable, CustomStringConvertible {
    var description: String
    var code: ChannelError.Code

    init(_ description: String, code: ChannelError.Code = .transient) {
        self.description = description
        self.code = code
    }
}
