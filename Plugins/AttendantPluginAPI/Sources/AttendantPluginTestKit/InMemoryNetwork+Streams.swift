public import AttendantPluginAPI
import Synchronization

extension InMemoryNetwork {
    public func openStreamFlow(
        to host: String,
        port: Int,
        options: StreamOptions,
        receiver: @escaping @Sendable (any StreamConnection) -> any StreamReceiver
    ) async throws(NetworkError) -> any StreamFlow {
        if options.listen, options.tls != nil {
            throw NetworkError(
                .invalidRequest,
                "a TLS stream to \(NetworkAddress(ip: host, port: port)) cannot also listen: the host has no certificate of its own to accept TLS connections with"
            )
        }
        if let refusal = self.refusal(flowTo: host, port: port) { throw refusal }
        let remote = NetworkAddress(ip: try self.resolve(host), port: port)
        let flow = StreamFlowPeer(local: self.nextLocalAddress(), remote: remote, options: options, receiver: receiver)
        self.opened(flow)
        return InMemoryStreamFlow(peer: flow)
    }
}

/// The test's end of a stream flow the channel opened on an ``InMemoryNetwork``: the server of its
/// outgoing connection (``connection``), and, with ``StreamOptions/listen``, whoever connects to it
/// (``accept(from:)``).
///
/// ```swift
/// let flow = try await host.inMemoryNetwork.nextStreamFlow()
/// #expect(flow.options.tls?.serverName == "pbx.example.com")
/// let register = try await flow.connection.nextWrite()
/// flow.connection.deliver(text: "SIP/2.0 200 OK\r\n…")
/// let caller = try flow.accept(from: NetworkAddress(ip: "192.0.2.7", port: 5060))
/// caller.deliver(text: "INVITE sip:…")
/// flow.connection.close()                               // the channel's receiver hears closed(…)
/// ```
public final class StreamFlowPeer: Sendable {
    /// Where the flow connected to.
    public let remote: NetworkAddress
    /// The channel's side (the listener's address too).
    public let local: NetworkAddress
    /// How the channel asked for the flow.
    public let options: StreamOptions
    /// The outgoing connection's other end.
    public let connection: StreamPeer
    /// The outgoing connection, as the channel holds it (one object for the flow's life).
    let channelConnection: InMemoryStreamConnection
    private let receiver: @Sendable (any StreamConnection) -> any StreamReceiver
    private let accepted = Mutex<[StreamPeer]>([])
    private let closed = Atomic<Bool>(false)

    init(
        local: NetworkAddress,
        remote: NetworkAddress,
        options: StreamOptions,
        receiver: @escaping @Sendable (any StreamConnection) -> any StreamReceiver
    ) {
        self.local = local
        self.remote = remote
        self.options = options
        self.receiver = receiver
        let connection = StreamPeer(peer: remote, isInbound: false)
        self.connection = connection
        self.channelConnection = InMemoryStreamConnection(owner: connection)
        connection.attach(receiver(self.channelConnection))
    }

    /// Whether the channel closed the flow.
    public var isClosed: Bool { self.closed.load(ordering: .acquiring) }

    /// The connections accepted so far.
    public var inbound: [StreamPeer] { self.accepted.withLock { $0 } }

    /// Connects to the flow's listener from `peer`: the channel's `receiver` is asked for a receiver of
    /// the new connection, and the test gets its other end.
    ///
    /// - Throws: ``NetworkError/Kind/connection`` when the flow does not listen or was closed.
    public func accept(from peer: NetworkAddress) throws(NetworkError) -> StreamPeer {
        guard self.options.listen, !self.isClosed else {
            throw NetworkError(.connection, "the connection to \(self.local) was refused: the channel's flow does not listen")
        }
        let connection = StreamPeer(peer: peer, isInbound: true)
        self.accepted.withLock { $0.append(connection) }
        connection.attach(self.receiver(InMemoryStreamConnection(owner: connection)))
        return connection
    }

    func channelClosed() {
        self.closed.store(true, ordering: .releasing)
        self.connection.channelClosed()
        for connection in self.accepted.withLock({ $0 }) { connection.channelClosed() }
    }
}

/// The test's end of one connection of a stream flow.
///
/// Deliveries run the channel's ``StreamReceiver`` at once, on the calling thread, one at a time and in
/// order; nothing reaches it after the channel closed the connection or its flow, and ``close(_:)`` is
/// heard once.
public final class StreamPeer: Sendable {
    private struct State {
        var receiver: (any StreamReceiver)?
        /// The channel closed it: deliver nothing.
        var closedByChannel = false
        /// The peer ended it: its receiver heard, or will hear, `closed`.
        var ended = false
    }

    /// The address of this end, as the channel sees it.
    public let peer: NetworkAddress
    /// Whether this end connected to the channel's listener.
    public let isInbound: Bool
    private let state = Mutex(State())
    private let delivery = SerialDelivery()
    private let writes = Mailbox<[UInt8]>()

    init(peer: NetworkAddress, isInbound: Bool) {
        self.peer = peer
        self.isInbound = isInbound
    }

    func attach(_ receiver: any StreamReceiver) {
        self.state.withLock { $0.receiver = receiver }
    }

    /// Whether the channel closed this connection (or its flow).
    public var isClosedByChannel: Bool { self.state.withLock { $0.closedByChannel } }

    /// Every write of the channel, in order.
    public var written: [[UInt8]] { self.writes.all }

    /// Everything the channel wrote, as UTF-8 text.
    public var writtenText: String { String(decoding: self.written.joined(), as: UTF8.self) }

    /// The next write of the channel that this method has not returned yet.
    public func nextWrite(timeout: Duration = .seconds(60)) async throws(InMemoryNetworkTimeout) -> [UInt8] {
        try await self.writes.next("write from the channel to \(self.peer)", timeout: timeout)
    }

    /// Delivers bytes to the channel's receiver. False when the connection has ended.
    @discardableResult
    public func deliver(_ bytes: [UInt8]) -> Bool {
        guard !self.state.withLock({ $0.ended || $0.closedByChannel }) else { return false }
        self.delivery.run {
            guard let receiver = self.state.withLock({ $0.closedByChannel ? nil : $0.receiver }) else { return }
            receiver.received(bytes)
        }
        return true
    }

    /// Delivers UTF-8 text to the channel's receiver.
    @discardableResult
    public func deliver(text: String) -> Bool { self.deliver(Array(text.utf8)) }

    /// Ends the connection from this side: the channel's receiver hears `closed(reason)`, once.
    @discardableResult
    public func close(_ reason: String = "closed by the peer") -> Bool {
        let ended = self.state.withLock { state in
            defer { state.ended = true }
            return state.ended || state.closedByChannel
        }
        guard !ended else { return false }
        self.delivery.run {
            guard let receiver = self.state.withLock({ $0.closedByChannel ? nil : $0.receiver }) else { return }
            receiver.closed(reason)
        }
        return true
    }

    func channelWrote(_ bytes: [UInt8]) {
        guard !self.state.withLock({ $0.ended || $0.closedByChannel }) else { return }
        self.writes.put(bytes)
    }

    func channelClosed() {
        self.state.withLock { $0.closedByChannel = true }
    }
}

/// The channel's end of a ``StreamPeer``.
final class InMemoryStreamConnection: StreamConnection {
    let owner: StreamPeer

    init(owner: StreamPeer) {
        self.owner = owner
    }

    var peer: NetworkAddress { self.owner.peer }
    var isInbound: Bool { self.owner.isInbound }

    func write(_ bytes: [UInt8]) { self.owner.channelWrote(bytes) }

    func close() { self.owner.channelClosed() }
}

/// The channel's end of a ``StreamFlowPeer``.
struct InMemoryStreamFlow: StreamFlow {
    let peer: StreamFlowPeer

    var connection: any StreamConnection { self.peer.channelConnection }
    var local: NetworkAddress { self.peer.local }

    func close() async { self.peer.channelClosed() }
}
