/// The way back to a peer: the UDP address a request came from, or the TCP connection it came on.
enum SIPFlow: Sendable, Hashable {
    case udp(host: String, port: Int)
    case tcp(connection: Int, host: String, port: Int)

    /// `udp` or `tcp`.
    var transport: String {
        switch self {
        case .udp: "udp"
        case .tcp: "tcp"
        }
    }

    /// The peer's `host:port`.
    var peer: String {
        switch self {
        case .udp(let host, let port), .tcp(_, let host, let port): "\(host):\(port)"
        }
    }
}
