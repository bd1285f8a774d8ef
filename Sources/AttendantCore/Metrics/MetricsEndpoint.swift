package import AttendantPluginAPI
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The `[metrics] listen` endpoint: HTTP/1.1 on exactly the configured address, `GET /metrics` answered
/// with ``DaemonMetrics/prometheusBytes()`` in the Prometheus text format (version 0.0.4), any other path
/// with 404. Bound by ``bind(_:metrics:logger:)`` before the daemon starts, so that a taken port is a
/// start-up error; served by ``run()`` until the daemon stops.
package final class MetricsEndpoint: Service {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// What Prometheus expects for the text format (prometheus.io, "Exposition formats").
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The address as configured, for messages.
    package let address: MetricsSettings.Address
    private let server: NIOAsyncChannel<Connection, Never>
    private let metrics: DaemonMetrics
    private let logger: Logger
    /// The connections being served, by channel, until the daemon stops; nil once it stops: a connection
    /// accepted after that is closed at once.
    private let open = Mutex<[ObjectIdentifier: any NIOCore.Channel]?>([:])

    private init(address: MetricsSettings.Address, server: NIOAsyncChannel<Connection, Never>, metrics: DaemonMetrics, logger: Logger) {
        self.address = address
        self.server = server
        self.metrics = metrics
        self.logger = logger
    }

    /// Binds `address`; a failure (the port taken, an address not on this machine, a name that does not
    /// resolve) throws an error that names the address, the key and the reason.
    package static func bind(
        _ address: MetricsSettings.Address,
        metrics: DaemonMetrics,
        logger: Logger
    ) async throws -> MetricsEndpoint {
        let server: NIOAsyncChannel<Connection, Never>
        do {
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: address.host, port: address.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        return try Self.wrap(Connection.self, channel)
                    }
                }
        } catch {
            throw DaemonStartError(
                description: "cannot serve metrics on \(address) ([metrics] listen): \(error). Choose a free port, or remove the key to serve none"
            )
        }
        let bound = MetricsSettings.Address(host: address.host, port: server.channel.localAddress?.port ?? address.port)
        logger.info("serving metrics at http://\(bound)/metrics")
        return MetricsEndpoint(address: address, server: server, metrics: metrics, logger: logger)
    }

    /// A connection whose writer is finished when it is dropped unserved: swift-nio hands a server's
    /// accepted connections over a stream, and one still in it when the server closes is dropped without
    /// `executeThenClose`; wrapped with `init(wrappingChannelSynchronously:)`, its writer then traps on
    /// deinit ("Deinited NIOAsyncWriter without calling finish()", swift-nio#2637 and #3481), which killed
    /// attendantd stopped while Prometheus scraped it. Only the deprecated `init(synchronouslyWrapping:)`
    /// tears down on deinit; it is called through ``DeinitTeardown``, so the build stays free of warnings.
    static func wrap<Wrapped: DeinitTeardown>(_: Wrapped.Type, _ channel: any NIOCore.Channel) throws -> Wrapped {
        try Wrapped(synchronouslyWrapping: channel, configuration: .init())
    }

    /// The port bound (the configured one).
    package var port: Int? { self.server.channel.localAddress?.port }

    /// Serves connections until graceful shutdown, then closes them all, kept-alive ones included.
    ///
    /// The shutdown closes the listening socket instead of cancelling the loop: a connection accepted just
    /// before it waits in the server channel's stream, and one dropped from there never has
    /// `executeThenClose` called, whose writer then traps on deinit ("Deinited NIOAsyncWriter without
    /// calling finish()", swift-nio#2637 and #3481; a daemon stopped while Prometheus scraped it died so).
    /// Closed, the stream hands over what it holds and ends; each connection is served or closed, then
    /// the loop ends.
    package func run() async throws {
        do {
            try await withGracefulShutdownHandler {
                try await self.server.executeThenClose { connections in
                    try await withThrowingDiscardingTaskGroup { group in
                        for try await connection in connections {
                            group.addTask { await self.serve(connection) }
                        }
                    }
                }
            } onGracefulShutdown: {
                self.server.channel.close(promise: nil)
                for channel in self.open.withLock({ open in
                    defer { open = nil }
                    return Array((open ?? [:]).values)
                }) {
                    channel.close(promise: nil)
                }
            }
        } catch {
            self.logger.warning("the metrics endpoint on \(self.address) stopped: \(error)")
        }
    }

    /// Answers one connection's requests in order; its errors end only that connection.
    private func serve(_ connection: Connection) async {
        let key = ObjectIdentifier(connection.channel)
        let serving = self.open.withLock { open -> Bool in
            guard open != nil else { return false }
            open?[key] = connection.channel
            return true
        }
        defer { self.open.withLock { _ = $0?.removeValue(forKey: key) } }
        do {
            try await connection.executeThenClose { inbound, outbound in
                guard serving else { return }  // The daemon is stopping: closed unanswered.
                var head: HTTPRequestHead?
                for try await part in inbound {
                    switch part {
                    case .head(let request):
                        head = request
                    case .body:
                        continue
                    case .end:
                        guard let request = head else { continue }
                        head = nil
                        let (status, body, extra) = self.response(to: request)
                        var headers = HTTPHeaders(extra)
                        headers.add(name: "Content-Length", value: String(body.readableBytes))
                        if !request.isKeepAlive { headers.add(name: "Connection", value: "close") }
                        try await outbound.write(.head(HTTPResponseHead(version: request.version, status: status, headers: headers)))
                        if request.method != .HEAD { try await outbound.write(.body(.byteBuffer(body))) }
                        try await outbound.write(.end(nil))
                        if !request.isKeepAlive { return }
                    }
                }
            }
        } catch {
            self.logger.debug("metrics endpoint: a connection ended: \(error)")
        }
    }

    /// The status, body and headers for `request`.
    func response(to request: HTTPRequestHead) -> (HTTPResponseStatus, ByteBuffer, [(String, String)]) {
        let path = request.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard path == "/metrics" else {
            return (.notFound, ByteBuffer(string: "not found: the metrics are at /metrics\n"), [("Content-Type", "text/plain; charset=utf-8")])
        }
        guard request.method == .GET || request.method == .HEAD else {
            return (
                .methodNotAllowed, ByteBuffer(string: "only GET and HEAD\n"), [("Content-Type", "text/plain; charset=utf-8"), ("Allow", "GET, HEAD")]
            )
        }
        return (.ok, ByteBuffer(bytes: self.metrics.prometheusBytes()), [("Content-Type", Self.contentType)])
    }
}

/// ``MetricsEndpoint/wrap(_:_:)``'s way to swift-nio's deinit-based teardown.
protocol DeinitTeardown {
    init(
        synchronouslyWrapping channel: any NIOCore.Channel,
        configuration: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>.Configuration
    ) throws
}

extension NIOAsyncChannel: DeinitTeardown where Inbound == HTTPServerRequestPart, Outbound == HTTPServerResponsePart {}
