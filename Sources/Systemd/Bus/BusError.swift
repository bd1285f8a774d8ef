import Glibc

/// A failure talking to a bus: a D-Bus error reply, a system error, or a message we could not read.
public enum BusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The peer answered with a D-Bus error (`org.freedesktop.DBus.Error.ServiceUnknown`, …).
    case reply(name: String, message: String)
    /// A libsystemd call failed with an errno.
    case system(errno: Int32, doing: String)
    /// A message did not have the shape we expected.
    case malformed(String)
    /// The connection is closed.
    case disconnected

    public var description: String {
        switch self {
        case .reply(let name, let message): message.isEmpty ? name : "\(message) (\(name))"
        case .system(let code, let doing): "\(doing): \(String(cString: strerror(code)))"
        case .malformed(let what): "unexpected message: \(what)"
        case .disconnected: "the bus connection is closed"
        }
    }

    /// The D-Bus error name, when the peer sent one.
    public var name: String? {
        if case .reply(let name, _) = self { return name }
        return nil
    }
}
