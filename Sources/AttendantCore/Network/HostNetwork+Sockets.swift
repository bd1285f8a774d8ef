package import AttendantPluginAPI
import Dispatch
import NIOCore
import NIOPosix
import Synchronization

/// UDP and TCP flows on the process's event loops. What arrives is delivered from the NIO handler that
/// reads it (``DatagramDeliveryHandler``, ``StreamDeliveryHandler``): the plugin parses on the event loop's
/// thread, with no hop to another thread or task in between.
extension HostNetwork {
    /// Datagrams read per wake-up of the event loop: a burst of INVITEs costs one wake-up per 64.
    static let datagramsPerRead: UInt = 64

    /// `host`'s address: an IP literal at once, a name by `getaddrinfo` on a serial queue of its own.
    /// NIO's datagram bootstrap resolves a name on the calling thread, which here is the daemon's one
    /// executor thread: a slow DNS server would hold every channel and the control API for its timeout.
    /// (Its stream bootstrap resolves off the loop already.)
    static func resolve(_ host: String, port: Int) async throws -> SocketAddress {
        if let literal = try? SocketAddress(ipAddress: host, port: port) { return literal }
        return try await withCheckedThrowingContinuation { continuation in
            Self.resolverQueue.async {
                continuation.resume(with: Result { try SocketAddress.makeAddressResolvingHost(host, port: port) })
            }
        }
    }

    /// Where names are resolved: a private serial queue sleeps without waking while idle (DESIGN.md §8).
    static let resolverQueue = DispatchQueue(label: "attendant.resolver")

    package func openDatagramFlow(
        to host: String,
        port: Int,
        options: DatagramOptions,
        receive: @escaping @Sendable (DatagramEvent) -> Void
    ) async throws(NetworkError) -> any DatagramFlow {
        let latch = CloseLatch()
        let connected: any NIOCore.Channel
        do {
            let address = try await Self.resolve(host, port: port)
            connected = try await self.datagramBootstrap(options, connected: true, latch: latch, receive: receive).connect(to: address).get()
        } catch {
            throw SocketFailure.networkError(error)
        }
        guard let localAddress = connected.localAddress, let remote = connected.remoteAddress, let local = NetworkAddress(localAddress) else {
            connected.close(promise: nil)
            throw NetworkError(.connection, "the socket has no address")
        }
        var anywhere: (any NIOCore.Channel)?
        if options.acceptFromAnywhere {
            // Both sockets have SO_REUSEADDR: the kernel gives the remote's datagrams to the connected one
            // (the better match) and everyone else's to this one.
            do {
                anywhere = try await self.datagramBootstrap(options, connected: false, latch: latch, receive: receive).bind(to: localAddress).get()
            } catch {
                connected.close(promise: nil)
                throw NetworkError(.connection, "no socket could be bound at \(local) to receive from anywhere: \(SocketFailure.describe(error))")
            }
        }
        return HostDatagramFlow(
            connected: connected,
            anywhere: anywhere,
            local: local,
            remote: remote,
            latch: latch,
            reopen: {
                self.datagramBootstrap(options, connected: true, latch: latch, receive: receive).bind(to: localAddress).flatMap { socket in
                    socket.connect(to: remote).map { socket }.flatMapErrorThrowing { error in
                        socket.close(promise: nil)
                        throw error
                    }
                }
            },
            receive: receive
        )
    }

    private func datagramBootstrap(
        _ options: DatagramOptions,
        connected: Bool,
        latch: CloseLatch,
        receive: @escaping @Sendable (DatagramEvent) -> Void
    ) -> DatagramBootstrap {
        DatagramBootstrap(group: self.shared.group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(options.receiveBufferSize))
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: options.maximumDatagramSize))
            .channelOption(.maxMessagesPerRead, value: Self.datagramsPerRead)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = DatagramDeliveryHandler(receive: receive, capacity: options.maximumDatagramSize, connected: connected, latch: latch)
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
    }

    package func openStreamFlow(
        to host: String,
        port: Int,
        options: StreamOptions,
        receiver: @escaping @Sendable (any StreamConnection) -> any StreamReceiver
    ) async throws(NetworkError) -> any StreamFlow {
        let target = NetworkAddress(ip: host, port: port)
        if options.listen, options.tls != nil {
            throw NetworkError(
                .invalidRequest,
                "a TLS stream to \(target) cannot also listen: the host has no certificate of its own to accept TLS connections with"
            )
        }
        if options.listen { return try await self.openListeningStream(to: host, port: port, options: options, receiver: receiver) }
        let outgoing = OutgoingSlot()
        let channel: any NIOCore.Channel
        do {
            channel = try await self.streamBootstrap(options, target: target, outgoing: outgoing, receiver: receiver).connect(host: host, port: port)
                .get()
        } catch {
            throw SocketFailure.networkError(error)
        }
        guard let (connection, handshake) = outgoing.connection(of: channel) else {
            channel.close(promise: nil)
            throw NetworkError(.connection, "the socket has no address")
        }
        // The handshake first: a server that refuses it closes the socket, whose address is then gone, and
        // the refusal (a certificate that does not verify) is what the channel must hear, not that.
        if let handshake, let tls = options.tls {
            do {
                try await handshake.get()
            } catch {
                connection.close()
                throw self.streamTLSFailure(error, name: tls.serverName, peer: connection.peer)
            }
        }
        guard let local = NetworkAddress(channel.localAddress) else {
            channel.close(promise: nil)
            throw NetworkError(.connection, "the connection to \(target) closed as it opened")
        }
        return HostStreamFlow(outgoing: connection, local: local, listener: nil, accepted: AcceptedConnections())
    }

    /// TCP with a listener on the connection's own address and port. The listener is bound first, to a
    /// port the kernel picks for it alone, and the connection then goes out from that port (both sockets
    /// with `SO_REUSEPORT`). The other order fails whenever `connect()` picks a port that other connections
    /// of the machine already use (it shares ports between connections to different peers), which on a
    /// busy machine is often: then no listener can be bound to it.
    ///
    /// Connections accepted before the flow is open wait for it, so the receiver of the outgoing
    /// connection is the first one asked for, and a flow that fails to open delivers nothing.
    private func openListeningStream(
        to host: String,
        port: Int,
        options: StreamOptions,
        receiver: @escaping @Sendable (any StreamConnection) -> any StreamReceiver
    ) async throws(NetworkError) -> any StreamFlow {
        // Which local address reaches the remote: a connected UDP socket asks the routing table (nothing
        // is sent).
        let remote: SocketAddress
        let localIP: String
        do {
            let probe = try await DatagramBootstrap(group: self.shared.group).connect(host: host, port: port).get()
            defer { probe.close(promise: nil) }
            guard let address = probe.remoteAddress, let ip = probe.localAddress?.ipAddress else {
                throw NetworkError(.connection, "the socket has no address")
            }
            remote = address
            localIP = ip
        } catch let error as NetworkError {
            throw error
        } catch {
            throw SocketFailure.networkError(error)
        }

        let accepted = AcceptedConnections()
        let open = self.shared.group.next().makePromise(of: Void.self)
        let listener: any NIOCore.Channel
        do {
            listener = try await ServerBootstrap(group: self.shared.group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelOption(ChannelOptions.Types.SocketOption.reusePort, value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { child in
                    open.futureResult.hop(to: child.eventLoop).flatMapThrowing {
                        let connection = HostStreamConnection(
                            channel: child,
                            isInbound: true,
                            target: NetworkAddress(child.remoteAddress) ?? NetworkAddress(ip: "?", port: 0)
                        )
                        guard accepted.insert(connection) else { throw NIOCore.ChannelError.ioOnClosedChannel }
                        try child.pipeline.syncOperations.addHandler(StreamDeliveryHandler(connection: connection, receiver: receiver(connection)))
                    }
                }
                .bind(to: SocketAddress(ipAddress: localIP, port: 0))
                .get()
        } catch {
            open.fail(NIOCore.ChannelError.ioOnClosedChannel)
            throw NetworkError(.connection, "no listener could be bound at \(localIP): \(SocketFailure.describe(error))")
        }

        let outgoing = OutgoingSlot()
        let channel: any NIOCore.Channel
        do {
            let local = try SocketAddress(ipAddress: localIP, port: listener.localAddress?.port ?? 0)
            channel = try await self.streamBootstrap(
                options,
                target: NetworkAddress(remote) ?? NetworkAddress(ip: host, port: port),
                outgoing: outgoing,
                receiver: receiver
            )
            .bind(to: local)
            .connect(to: remote)
            .get()
        } catch {
            open.fail(NIOCore.ChannelError.ioOnClosedChannel)
            accepted.closeAll()
            listener.close(promise: nil)
            throw SocketFailure.networkError(error)
        }
        guard let (connection, _) = outgoing.connection(of: channel), let local = NetworkAddress(channel.localAddress) else {
            open.fail(NIOCore.ChannelError.ioOnClosedChannel)
            accepted.closeAll()
            listener.close(promise: nil)
            channel.close(promise: nil)
            throw NetworkError(.connection, "the socket has no address")
        }
        open.succeed()
        return HostStreamFlow(outgoing: connection, local: local, listener: listener, accepted: accepted)
    }

    /// The outgoing connection: `SO_REUSEADDR` and `SO_REUSEPORT` (it may share its port with the
    /// listener), `TCP_NODELAY` (SIP messages are whole writes; waiting for more only delays them),
    /// `SO_KEEPALIVE` if asked for, and TLS if asked for (its receiver hears from it once the handshake
    /// is done: ``TLSHandshakeHandler``).
    private func streamBootstrap(
        _ options: StreamOptions,
        target: NetworkAddress,
        outgoing: OutgoingSlot,
        receiver: @escaping @Sendable (any StreamConnection) -> any StreamReceiver
    ) -> ClientBootstrap {
        ClientBootstrap(group: self.shared.group)
            .connectTimeout(TimeAmount(options.connectTimeout))
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(ChannelOptions.Types.SocketOption.reusePort, value: 1)
            .channelOption(.socketOption(.so_keepalive), value: options.keepAlive ? 1 : 0)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let connection = HostStreamConnection(channel: channel, isInbound: false, target: target)
                    let delivery = StreamDeliveryHandler(connection: connection, receiver: receiver(connection))
                    guard let tls = options.tls else {
                        outgoing.add(connection, handshake: nil)
                        try channel.pipeline.syncOperations.addHandler(delivery)
                        return
                    }
                    let handshake = channel.eventLoop.makePromise(of: Void.self)
                    outgoing.add(connection, handshake: handshake.futureResult)
                    try channel.pipeline.syncOperations.addHandlers(
                        try self.streamTLSHandler(serverName: tls.serverName),
                        TLSHandshakeHandler(delivery: delivery, handshake: handshake, limit: TimeAmount(options.connectTimeout))
                    )
                }
            }
    }
}

/// The outgoing connection's object, made where its socket is set up (before it connects) and picked up
/// once it has. Connecting to a name may try more than one socket (IPv6 and IPv4, happy eyeballs): the
/// one that connected is taken.
private final class OutgoingSlot: Sendable {
    private let attempts = Mutex<[ObjectIdentifier: (HostStreamConnection, handshake: EventLoopFuture<Void>?)]>([:])

    /// A socket's connection, and its TLS handshake's end if it has TLS.
    func add(_ connection: HostStreamConnection, handshake: EventLoopFuture<Void>?) {
        self.attempts.withLock { $0[ObjectIdentifier(connection.channel)] = (connection, handshake) }
    }

    func connection(of channel: any NIOCore.Channel) -> (HostStreamConnection, handshake: EventLoopFuture<Void>?)? {
        self.attempts.withLock { attempts in
            defer { attempts = [:] }
            return attempts[ObjectIdentifier(channel)]
        }
    }
}
