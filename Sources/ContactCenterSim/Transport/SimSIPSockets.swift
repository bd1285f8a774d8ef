import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The simulator's SIP sockets: one UDP socket and one TCP listener on the same port, and the TCP
/// connections accepted on it. Hands every message it reads to ``inbound`` with the flow it came on.
final class SimSIPSockets: Sendable {
    typealias Inbound = @Sendable (SimSIPMessage, SIPFlow) -> Void

    private struct State {
        var udp: (any Channel)?
        var listener: (any Channel)?
        var connections: [Int: any Channel] = [:]
        var nextConnection = 1
        var inbound: Inbound?
    }

    let host: String
    private let state = Mutex(State())
    private let portBox: Mutex<Int>

    init(host: String, port: Int) {
        self.host = host
        self.portBox = Mutex(port)
    }

    /// The port both sockets use (0 until the first ``start()`` when asked for any port).
    var port: Int { self.portBox.withLock { $0 } }

    func setInbound(_ inbound: @escaping Inbound) { self.state.withLock { $0.inbound = inbound } }

    var isRunning: Bool { self.state.withLock { $0.udp != nil } }

    /// Opens both sockets; on the port used before, or on a free one the first time.
    ///
    /// A free port is chosen below the kernel's ephemeral range (`ip_local_port_range`): a port the kernel
    /// hands out to port-0 binds and outgoing connections could be taken by another socket while the
    /// registrar is down, and ``ContactCenterSimulator/restart(keepBindings:)`` must get the same one back.
    func start() async throws {
        guard !self.isRunning else { return }
        let wanted = self.port
        let candidates = wanted == 0 ? Self.freePortCandidates(count: 32) : [wanted]
        var lastError: (any Error)?
        for candidate in candidates {
            // A restart may find the port still held for a moment by the sockets just closed (for
            // seconds on a loaded machine: 1 s was not always enough in CI).
            for attempt in 0..<(wanted == 0 ? 1 : 100) {
                if attempt > 0 { try await Task.sleep(for: .milliseconds(50)) }
                do {
                    let (listener, udp) = try await self.bind(port: candidate)
                    let port = listener.localAddress?.port ?? candidate
                    self.portBox.withLock { $0 = port }
                    Self.portsTaken.withLock { _ = $0.insert(port) }
                    self.state.withLock { state in
                        state.udp = udp
                        state.listener = listener
                    }
                    return
                } catch {
                    lastError = error
                }
            }
        }
        throw SimulatorError(
            .transport,
            "cannot open UDP and TCP on one port at \(self.host)\(wanted == 0 ? "" : ":\(wanted)"): \(lastError.map { "\($0)" } ?? "no port tried"); choose another --sip-port"
        )
    }

    /// TCP then UDP on the same port; neither stays open when the other fails.
    private func bind(port: Int) async throws -> (listener: any Channel, udp: any Channel) {
        let listener = try await self.bindTCP(port: port)
        do {
            return (listener, try await self.bindUDP(port: listener.localAddress?.port ?? port))
        } catch {
            try? await listener.close()
            throw error
        }
    }

    /// Random ports between 10000 and the start of the ephemeral range, with 0 (any port) last.
    static func freePortCandidates(count: Int) -> [Int] {
        var low = 32768
        if let range = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8),
            let first = range.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap({ Int($0) })
        {
            low = first
        }
        guard low > 11000 else { return [0] }
        let taken = Self.portsTaken.withLock { $0 }
        return (0..<count).map { _ in Int.random(in: 10000..<low) }.filter { !taken.contains($0) } + [0]
    }

    /// Ports this process's simulators have had: a fresh start does not take one, so a simulator that is
    /// restarting (its port free for a moment) gets it back even with other simulators starting meanwhile.
    static let portsTaken = Mutex<Set<Int>>([])

    /// Closes both sockets and every TCP connection.
    func stop() async {
        let channels: [any Channel] = self.state.withLock { state in
            defer {
                state.udp = nil
                state.listener = nil
                state.connections = [:]
            }
            return [state.udp, state.listener].compactMap { $0 } + Array(state.connections.values)
        }
        for channel in channels { try? await channel.close() }
    }

    /// Sends a message on a flow: from the UDP socket to the address, or on the TCP connection.
    func send(_ bytes: [UInt8], on flow: SIPFlow) throws {
        switch flow {
        case .udp(let host, let port):
            guard let udp = self.state.withLock({ $0.udp }) else {
                throw SimulatorError(.transport, "the UDP socket is closed (registrar stopped)")
            }
            let address = try SocketAddress(ipAddress: host, port: port)
            udp.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: bytes)), promise: nil)
        case .tcp(let id, let host, let port):
            guard let connection = self.state.withLock({ $0.connections[id] }) else {
                throw SimulatorError(.transport, "the TCP connection from \(host):\(port) is closed; the user agent must register again")
            }
            connection.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
        }
    }

    /// Whether the TCP connection is still open.
    func isOpen(_ flow: SIPFlow) -> Bool {
        switch flow {
        case .udp: self.isRunning
        case .tcp(let id, _, _): self.state.withLock { $0.connections[id] != nil }
        }
    }

    fileprivate func deliver(_ message: SimSIPMessage, on flow: SIPFlow) {
        self.state.withLock { $0.inbound }?(message, flow)
    }

    fileprivate func opened(_ channel: any Channel) -> Int {
        self.state.withLock { state in
            let id = state.nextConnection
            state.nextConnection += 1
            state.connections[id] = channel
            return id
        }
    }

    fileprivate func closed(_ id: Int) { _ = self.state.withLock { $0.connections.removeValue(forKey: id) } }

    private func bindTCP(port: Int) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(StreamHandler(transport: self))
                }
            }
            .bind(host: self.host, port: port)
            .get()
    }

    private func bindUDP(port: Int) async throws -> any Channel {
        try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DatagramHandler(transport: self))
                }
            }
            .bind(host: self.host, port: port)
            .get()
    }
}

/// Reads SIP datagrams; anything that does not parse is dropped (there is no way to answer it reliably).
private final class DatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let transport: SimSIPSockets

    init(transport: SimSIPSockets) { self.transport = transport }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = self.unwrapInboundIn(data)
        let bytes = Array(envelope.data.readableBytesView)
        guard let host = envelope.remoteAddress.ipAddress, let port = envelope.remoteAddress.port else { return }
        // A bare CRLFCRLF is an RFC 5626 keep-alive on UDP without STUN: nothing to do.
        guard bytes.contains(where: { $0 != 13 && $0 != 10 }), let message = try? SimSIPParser.parse(datagram: bytes) else { return }
        self.transport.deliver(message, on: .udp(host: host, port: port))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP port unreachable and the like: the datagram socket stays usable.
    }
}

/// Frames one TCP connection, answers CRLFCRLF pings with a CRLF pong, and closes the connection when the
/// framing is lost (after a 400 that says why).
private final class StreamHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let transport: SimSIPSockets
    private var reader = SimSIPStreamReader()
    private var flow: SIPFlow?

    init(transport: SimSIPSockets) { self.transport = transport }

    func channelActive(context: ChannelHandlerContext) {
        let id = self.transport.opened(context.channel)
        let remote = context.channel.remoteAddress
        self.flow = .tcp(connection: id, host: remote?.ipAddress ?? "?", port: remote?.port ?? 0)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .tcp(let id, _, _) = self.flow { self.transport.closed(id) }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = self.unwrapInboundIn(data)
        guard let flow = self.flow else { return }
        do {
            for item in try self.reader.read(buffer.readableBytesView) {
                switch item {
                case .message(let message):
                    self.transport.deliver(message, on: flow)
                case .ping:
                    context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(bytes: SimSIPStreamReader.pong)), promise: nil)
                }
            }
        } catch {
            let response = SimSIPMessage(.status(code: 400, reason: "Bad Request (\(error))"))
            context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(bytes: response.serialized)), promise: nil)
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
