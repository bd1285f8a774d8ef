package import AttendantPluginAPI

/// Where a request came from, and so where its responses go (RFC 3261 section 18.2.2). The core only
/// carries it from a request to its responses; the driver's transport sends by it.
///
/// A concrete type, not a generic parameter of the call table and the agent: their code then runs
/// specialized in the plugin, not through the runtime's generic metadata on every request.
package struct SIPOrigin: Sendable, CustomStringConvertible {
    package enum Path: Sendable {
        /// The flow to the registrar.
        case flow
        /// A datagram address (the request's source, or its Via's sent-by port without `rport`).
        case datagram(NetworkAddress)
        /// An inbound TCP connection.
        case connection(any StreamConnection)
    }

    package let path: Path
    /// The source, `host:port over UDP`, for messages.
    package let description: String
    /// It came from the registrar on the flow this agent registered on (RFC 5626's flow): the TCP
    /// connection to it, or over UDP a datagram from the address the flow's socket is connected to. Only
    /// then is what the network asserts about a caller believed (RFC 3325 section 4: P-Asserted-Identity is
    /// trusted only from inside the trust domain, here the registrar). The transport sets it for `.flow`;
    /// the driver, which knows the UDP flow's remote address, for a datagram.
    package var isRegistrarFlow: Bool

    package init(path: Path, description: String) {
        self.path = path
        self.description = description
        self.isRegistrarFlow = if case .flow = path { true } else { false }
    }
}
