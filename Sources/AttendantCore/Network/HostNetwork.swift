package import AttendantPluginAPI
package import AsyncHTTPClient
import Dispatch
import NIOCore
package import NIOPosix
import NIOSSL
import Synchronization

/// The daemon's network, lent to each channel (``ChannelHost/network``): swift-nio sockets, async-http-client
/// and swift-websocket on the process's one event-loop group.
///
/// One `HostNetwork` per channel: it holds the channel's TLS policy and cookie jar; the event loops and
/// the HTTP client pool are the process's (``HostNetwork/Shared``).
package final class HostNetwork: ChannelNetwork {
    /// What every channel's network shares: the event loops and one HTTP client per TLS policy.
    ///
    /// The process's clients (``process``) live as long as the process and are never shut down: like
    /// async-http-client's own `HTTPClient.shared`, they hold nothing that must be flushed, and a channel
    /// still finishing a request while the daemon stops gets its answer or its error, never "client shut
    /// down". Only a `Shared` made for a test and released shuts its clients down (in `deinit`).
    package final class Shared: Sendable {
        package let group: MultiThreadedEventLoopGroup
        /// By TLS policy (`true`: verifying); each made on first use.
        private let clients = Mutex<[Bool: HTTPClient]>([:])

        package init(group: MultiThreadedEventLoopGroup = .singleton) {
            self.group = group
        }

        /// The process's.
        package static let process = Shared()

        /// The client for a TLS policy. The non-verifying one exists only once a channel with
        /// `tls-verify = false` sends a request.
        ///
        /// A refused connection is not retried until the deadline (channels and the token manager have
        /// their own backoff, and a server that is down is reported at once); connecting may take 10 s.
        package func httpClient(verifiesTLS: Bool) -> HTTPClient {
            self.clients.withLock { clients in
                if let client = clients[verifiesTLS] { return client }
                var configuration = HTTPClient.Configuration(
                    tlsConfiguration: verifiesTLS ? nil : Self.tlsConfiguration(verifies: false),
                    timeout: .init(connect: .seconds(10))
                )
                configuration.connectionPool.retryConnectionEstablishment = false
                let client = HTTPClient(eventLoopGroup: self.group, configuration: configuration)
                clients[verifiesTLS] = client
                return client
            }
        }

        /// The TLS configuration of a policy: the system's trust store, or no certificate check at all.
        static func tlsConfiguration(verifies: Bool) -> TLSConfiguration {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if !verifies { configuration.certificateVerification = .none }
            return configuration
        }

        deinit {
            for client in self.clients.withLock({ Array($0.values) }) {
                client.shutdown(queue: .global()) { _ in }
            }
        }
    }

    package let shared: Shared
    /// Whether TLS certificates are checked (`tls-verify`, on unless the channel turns it off).
    package let verifiesTLS: Bool
    let logger: Logger
    /// The channel's cookies (`NetworkRequest/usesCookies`), kept for the life of the channel.
    let cookies = Mutex(CookieJar())

    package init(shared: Shared = .process, verifiesTLS: Bool = true, logger: Logger) {
        self.shared = shared
        self.verifiesTLS = verifiesTLS
        self.logger = logger
    }
}
