package import AsyncHTTPClient
import AttendantCookies
package import AttendantPluginAPI
import Dispatch
import NIOCore
package import NIOPosix
package import NIOSSL
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
        /// By TLS policy; each made on first use.
        private let clients = Mutex<[TLSPolicy: HTTPClient]>([:])

        package init(group: MultiThreadedEventLoopGroup = .singleton) {
            self.group = group
        }

        /// The process's.
        package static let process = Shared()

        /// The client that verifies by the system's trust store (`true`) or not at all (`false`).
        package func httpClient(verifiesTLS: Bool) -> HTTPClient {
            self.httpClient(policy: TLSPolicy(verifies: verifiesTLS))
        }

        /// The client for a TLS policy. One that does not verify, or trusts a `tls-ca-file`, exists only
        /// once a channel with that policy sends a request.
        ///
        /// A refused connection is not retried until the deadline (channels and the token manager have
        /// their own backoff, and a server that is down is reported at once); connecting may take 10 s.
        package func httpClient(policy: TLSPolicy) -> HTTPClient {
            self.clients.withLock { clients in
                if let client = clients[policy] { return client }
                var configuration = HTTPClient.Configuration(
                    tlsConfiguration: policy == TLSPolicy() ? nil : Self.tlsConfiguration(policy),
                    timeout: .init(connect: .seconds(10))
                )
                configuration.connectionPool.retryConnectionEstablishment = false
                let client = HTTPClient(eventLoopGroup: self.group, configuration: configuration)
                clients[policy] = client
                return client
            }
        }

        /// The TLS configuration of a policy: the system's trust store and the channel's CAs, or no
        /// certificate check at all.
        static func tlsConfiguration(_ policy: TLSPolicy) -> TLSConfiguration {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if !policy.verifies { configuration.certificateVerification = .none }
            if !policy.authorities.isEmpty { configuration.additionalTrustRoots = [.certificates(policy.authorities)] }
            return configuration
        }

        deinit {
            for client in self.clients.withLock({ Array($0.values) }) {
                client.shutdown(queue: .global()) { _ in }
            }
        }
    }

    package let shared: Shared
    /// How TLS certificates are checked (`tls-verify`, `tls-ca-file`).
    package let tls: TLSPolicy
    let logger: Logger
    /// The channel's cookies (`NetworkRequest/usesCookies`), kept for the life of the channel.
    let cookies = Mutex(CookieJar())
    /// The TLS context of the channel's streams, made on first use (it reads the system's trust store).
    let streamTLSContext = Mutex<NIOSSLContext?>(nil)

    package init(shared: Shared = .process, tls: TLSPolicy, logger: Logger) {
        self.shared = shared
        self.tls = tls
        self.logger = logger
    }

    package convenience init(shared: Shared = .process, verifiesTLS: Bool = true, logger: Logger) {
        self.init(shared: shared, tls: TLSPolicy(verifies: verifiesTLS), logger: logger)
    }

    /// Whether TLS certificates are checked (`tls-verify`, on unless the channel turns it off).
    package var verifiesTLS: Bool { self.tls.verifies }
}

/// A channel's one TLS policy (DESIGN.md section 7), for its https, wss and TLS streams: the server's
/// certificate must come from a CA in the system's trust store or in the channel's `tls-ca-file`, and be
/// for the server's name; or, with `tls-verify = false`, nothing is checked.
package struct TLSPolicy: Sendable, Hashable {
    /// `tls-verify`.
    package var verifies: Bool
    /// The CAs of `tls-ca-file`, trusted beside the system's.
    package var authorities: [NIOSSLCertificate]
    /// `tls-ca-file` as written, for messages.
    package var authoritiesFile: String?

    package init(verifies: Bool = true, authorities: [NIOSSLCertificate] = [], authoritiesFile: String? = nil) {
        self.verifies = verifies
        self.authorities = authorities
        self.authoritiesFile = authoritiesFile
    }

    /// Who vouches for a certificate under this policy, for messages: "the system's trust store and
    /// tls-ca-file /etc/pbx-ca.pem".
    var trusted: String {
        "the system's trust store" + (self.authoritiesFile.map { " and tls-ca-file \($0)" } ?? "")
    }
}
