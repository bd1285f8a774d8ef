public import AttendantPluginAPI
import Synchronization

extension InMemoryNetwork {
    public func openDatagramFlow(
        to host: String,
        port: Int,
        options: DatagramOptions,
        receive: @escaping @Sendable (DatagramEvent) -> Void
    ) async throws(NetworkError) -> any DatagramFlow {
        if let refusal = self.refusal(flowTo: host, port: port) { throw refusal }
        let remote = NetworkAddress(ip: try self.resolve(host), port: port)
        let flow = DatagramPeer(local: self.nextLocalAddress(), remote: remote, options: options, receive: receive) { [weak self] datagram, flow in
            self?.sent(datagram, by: flow)
        }
        self.opened(flow)
        return InMemoryDatagramFlow(peer: flow)
    }
}

/// The test's end of a datagram flow the channel opened on an ``InMemoryNetwork``: everyone the channel
/// sends to, and everyone who sends to it.
///
/// ```swift
/// let flow = try await host.inMemoryNetwork.nextDatagramFlow()
/// let register = try await flow.nextDatagram()          // what the channel sent, and to whom
/// flow.deliver(Array("SIP/2.0 200 OK\r\n…".utf8))       // from the remote address
/// flow.unreachable()                                    // an ICMP port unreachable
/// ```
///
/// Deliveries run the channel's `receive` at once, on the calling thread, one at a time and in order;
/// nothing is delivered after the channel closed the flow (the calls return false).
public final class DatagramPeer: Sendable {
    /// One datagram the channel sent.
    public struct Datagram: Sendable, Hashable {
        public var bytes: [UInt8]
        public var destination: NetworkAddress

        public init(bytes: [UInt8], destination: NetworkAddress) {
            self.bytes = bytes
            self.destination = destination
        }

        /// The datagram as UTF-8 text.
        public var text: String { String(decoding: self.bytes, as: UTF8.self) }
    }

    /// The channel's side.
    public let local: NetworkAddress
    /// Where the flow is connected to.
    public let remote: NetworkAddress
    /// How the channel asked for the flow.
    public let options: DatagramOptions
    private let receive: @Sendable (DatagramEvent) -> Void
    private let closed = Atomic<Bool>(false)
    private let delivery = SerialDelivery()
    private let sent = Mailbox<Datagram>()
    private let onSend: @Sendable (Datagram, DatagramPeer) -> Void

    init(
        local: NetworkAddress,
        remote: NetworkAddress,
        options: DatagramOptions,
        receive: @escaping @Sendable (DatagramEvent) -> Void,
        onSend: @escaping @Sendable (Datagram, DatagramPeer) -> Void
    ) {
        self.local = local
        self.remote = remote
        self.options = options
        self.receive = receive
        self.onSend = onSend
    }

    /// Whether the channel closed the flow.
    public var isClosed: Bool { self.closed.load(ordering: .acquiring) }

    /// Every datagram the channel sent, in order.
    public var datagrams: [Datagram] { self.sent.all }

    /// The next datagram the channel sent that this method has not returned yet.
    public func nextDatagram(timeout: Duration = .seconds(60)) async throws(InMemoryNetworkTimeout) -> Datagram {
        try await self.sent.next("datagram from the channel to \(self.remote)", timeout: timeout)
    }

    /// Delivers a datagram from `source` (the remote address unless said). One larger than the flow's
    /// ``DatagramOptions/maximumDatagramSize`` arrives cut, with `truncated` set, as from a socket.
    /// A source other than the remote reaches the channel only with ``DatagramOptions/acceptFromAnywhere``.
    @discardableResult
    public func deliver(_ bytes: [UInt8], from source: NetworkAddress? = nil) -> Bool {
        let source = source ?? self.remote
        guard source == self.remote || self.options.acceptFromAnywhere else { return false }
        let limit = self.options.maximumDatagramSize
        let truncated = bytes.count >= limit
        return self.deliver(.datagram(truncated ? Array(bytes.prefix(limit)) : bytes, from: source, truncated: truncated))
    }

    /// Delivers UTF-8 text as a datagram.
    @discardableResult
    public func deliver(text: String, from source: NetworkAddress? = nil) -> Bool {
        self.deliver(Array(text.utf8), from: source)
    }

    /// Tells the channel that nothing listens at the remote address (an ICMP error for what it sent).
    @discardableResult
    public func unreachable(_ reason: String = "Connection refused") -> Bool {
        self.deliver(.unreachable(reason))
    }

    private func deliver(_ event: DatagramEvent) -> Bool {
        guard !self.isClosed else { return false }
        self.delivery.run {
            guard !self.isClosed else { return }
            self.receive(event)
        }
        return true
    }

    // MARK: The channel's end

    func channelSent(_ bytes: [UInt8], to destination: NetworkAddress) {
        guard !self.isClosed else { return }
        let datagram = Datagram(bytes: bytes, destination: destination)
        self.sent.put(datagram)
        self.onSend(datagram, self)
    }

    func channelClosed() { self.closed.store(true, ordering: .releasing) }
}

/// The channel's end of a ``DatagramPeer``.
struct InMemoryDatagramFlow: DatagramFlow {
    let peer: DatagramPeer

    var local: NetworkAddress { self.peer.local }
    var remote: NetworkAddress { self.peer.remote }

    func send(_ bytes: [UInt8]) { self.peer.channelSent(bytes, to: self.peer.remote) }

    func send(_ bytes: [UInt8], to address: NetworkAddress) { self.peer.channelSent(bytes, to: address) }

    func close() async { self.peer.channelClosed() }
}
