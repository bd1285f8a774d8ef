package import AttendantPluginAPI
package import NIOPosix

/// The daemon's network, lent to each channel (``ChannelHost/network``): swift-nio sockets, async-http-client
/// and swift-websocket on the process's one event-loop group.
///
/// One `HostNetwork` per channel: it holds the channel's TLS policy (and cookie jar); the event loops and
/// the HTTP client pool are the process's (``HostNetwork/Shared``).
package final class HostNetwork: ChannelNetwork {
    /// What every channel's network shares.
    package final class Shared: Sendable {
        package let group: MultiThreadedEventLoopGroup

        package init(group: MultiThreadedEventLoopGroup = .singleton) {
            self.group = group
        }

        /// The process's.
        package static let process = Shared()
    }

    package let shared: Shared
    /// Whether TLS certificates are checked (`tls-verify`, on unless the channel turns it off).
    package let verifiesTLS: Bool
    let logger: Logger

    package init(shared: Shared = .process, verifiesTLS: Bool = true, logger: Logger) {
        self.shared = shared
        self.verifiesTLS = verifiesTLS
        self.logger = logger
    }
}
