import AttendantPluginAPI
import NIOCore
import NIOPosix
import Synchronization

/// swift-nio's socket errors in the words a channel passes on to the user (``NetworkError``): the kind
/// says what to do about it (a name that does not resolve is a configuration matter, a refused connection
/// may come back), the message what happened.
enum SocketFailure {
    static func networkError(_ error: any Error) -> NetworkError {
        switch error {
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first { return Self.networkError(first.error) }
            if let resolution = error.dnsAAAAError ?? error.dnsAError {
                return NetworkError(.resolution, "the name \(error.host) did not resolve (\(resolution))")
            }
            return NetworkError(.connection, "the connection to \(error.host):\(error.port) failed")
        case let error as SocketAddressError.UnknownHost:
            return NetworkError(.resolution, "the name \(error.host) did not resolve (\(error.errorDescription))")
        case NIOCore.ChannelError.connectTimeout:
            return NetworkError(.timeout, "no answer to the connection attempt")
        default:
            return NetworkError(.connection, Self.describe(error))
        }
    }

    /// The error alone, for a failure on a socket already open.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as IOError: error.description
        case NIOCore.ChannelError.connectTimeout: "no answer to the connection attempt"
        case NIOCore.ChannelError.eof: "closed by the peer"
        default: "\(error)"
        }
    }
}

extension NetworkAddress {
    /// The IP address and port of a socket address; nil for a Unix-domain one.
    init?(_ address: SocketAddress?) {
        guard let address, let ip = address.ipAddress, let port = address.port else { return nil }
        self.init(ip: ip, port: port)
    }
}

extension ChannelOptions.Types.SocketOption {
    /// `SO_REUSEPORT` (Linux: 15), which NIO does not name.
    static let reusePort = Self(level: .socket, name: .init(rawValue: 15))
}

/// Set once a socket's owner asked for it to close: from then on its handlers deliver nothing (the close
/// itself completes later, on the event loop).
final class CloseLatch: Sendable {
    private let closed = Atomic<Bool>(false)

    var isClosed: Bool { self.closed.load(ordering: .acquiring) }

    func close() { self.closed.store(true, ordering: .releasing) }
}
