public import AttendantPluginAPI

/// Where a request came from, and so where its responses go (RFC 3261 section 18.2.2). The core only
/// carries it from a request to its responses; the driver's transport sends by it.
///
/// A concrete type, not a generic parameter of the call table and the agent: their code then runs
/// specialized in the plugin, not through the runtime's generic metadata on every request.
public struct SIPOrigin: Sendable, CustomStringConvertible {
    public enum Path: Sendable {
        /// The flow to the registrar.
        case flow
        /// A datagram address (the request's source, or its Via's sent-by port without `rport`).
        case datagram(NetworkAddress)
        /// An inbound TCP connection.
        case connection(any StreamConnection)
    }

    public let path: Path
    /// The source, `host:port over UDP`, for messages.
    public let description: String

    public init(path: Path, description: String) {
        self.path = path
        self.description = description
    }
}
