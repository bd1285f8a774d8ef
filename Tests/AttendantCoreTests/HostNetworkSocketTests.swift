import AttendantCore
import AttendantPluginAPI
import Glibc
import Synchronization
import TestSupport
import Testing

/// The UDP and TCP flows the daemon lends its channels (``HostNetwork``), against plain sockets on
/// loopback: what goes out, what comes in and from where, and that a closed flow delivers nothing more.
@Suite(.timeLimit(.minutes(1))) struct HostNetworkSocketTests {
    let network = HostNetwork(logger: Logger(label: "test.network"))

    // MARK: UDP

    @Test func datagramsGoBothWaysOverTheConnectedSocket() async throws {
        let peer = try SocketPeer.udp()
        let events = Recorder<DatagramEvent>()
        let flow = try await self.network.openDatagramFlow(to: "127.0.0.1", port: peer.address.port, options: DatagramOptions()) { events.add($0) }
        #expect(flow.remote == peer.address)
        #expect(flow.local.ip == "127.0.0.1" && flow.local.port != 0)

        flow.send(Array("ping".utf8))
        let (bytes, source) = try #require(try peer.receiveDatagram())
        #expect(bytes == Array("ping".utf8))
        #expect(source == flow.local)

        try peer.send(Array("pong".utf8), to: flow.local)
        #expect(try await events.next() == .datagram(Array("pong".utf8), from: peer.address, truncated: false))
        await flow.close()
    }

    @Test func aDatagramOf60000BytesArrivesWhole() async throws {
        let peer = try SocketPeer.udp()
        let events = Recorder<DatagramEvent>()
        let flow = try await self.network.openDatagramFlow(to: "127.0.0.1", port: peer.address.port, options: DatagramOptions()) { events.add($0) }
        let large = (0..<60_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try peer.send(large, to: flow.local)
        #expect(try await events.next() == .datagram(large, from: peer.address, truncated: false))
        await flow.close()
    }

    @Test func aDatagramThatFillsTheBufferIsMarkedTruncated() async throws {
        let peer = try SocketPeer.udp()
        let events = Recorder<DatagramEvent>()
        let options = DatagramOptions(maximumDatagramSize: 1_000)
        let flow = try await self.network.openDatagramFlow(to: "127.0.0.1", port: peer.address.port, options: options) { events.add($0) }
        try peer.send([UInt8](repeating: 1, count: 999), to: flow.local)
        #expect(try await events.next() == .datagram([UInt8](repeating: 1, count: 999), from: peer.address, truncated: false))
        try peer.send([UInt8](repeating: 2, count: 1_500), to: flow.local)
        #expect(try await events.next() == .datagram([UInt8](repeating: 2, count: 1_000), from: peer.address, truncated: true))
        await flow.close()
    }

    @Test func sendingWhereNothingListensReportsUnreachable() async throws {
        // A port that was just free: nothing listens there once the socket is gone.
        let port = try SocketPeer.unusedPortBelowEphemeralRange()
        let events = Recorder<DatagramEvent>()
        let flow = try await self.network.openDatagramFlow(to: "127.0.0.1", port: port, options: DatagramOptions()) { events.add($0) }
        flow.send(Array("anyone?".utf8))
        guard case .unreachable(let reason) = try await events.next() else {
            Issue.record("expected unreachable, heard \(events.all)")
            return
        }
        #expect(reason.contains("Connection refused"), "\(reason)")
        await flow.close()
    }

    @Test func aFlowOutlivesRefusalsAndReachesTheRemoteWhenItIsBack() async throws {
        // Below the ephemeral range: a socket of another test is never given it meanwhile.
        let port = try SocketPeer.unusedPortBelowEphemeralRange()
        let events = Recorder<DatagramEvent>()
        let flow = try await self.network.openDatagramFlow(to: "127.0.0.1", port: port, options: DatagramOptions()) { events.add($0) }
        // Back to back: on loopback the first draws its ICMP error before the second goes, so the second
        // send finds the socket's pending ECONNREFUSED (as a retransmission can, anywhere).
        for _ in 0..<5 {
            flow.send(Array("one".utf8))
            flow.send(Array("two".utf8))
            try await Task.sleep(for: .milliseconds(20))
        }
        guard case .unreachable = try await events.next() else {
            Issue.record("expected unreachable, heard \(events.all)")
            return
        }
        // The registrar is back on its port: the same flow reaches it.
        let peer = try SocketPeer.udp(port: port)
        flow.send(Array("back?".utf8))
        // Sends of the loop above that the event loop had not yet carried out (on a busy machine) may
        // arrive first; what matters is that this one arrives.
        var heard: [[UInt8]] = []
        while heard.last != Array("back?".utf8), let (bytes, _) = try peer.receiveDatagram(within: 60) { heard.append(bytes) }
        #expect(heard.last == Array("back?".utf8), "heard \(heard.map { String(decoding: $0, as: UTF8.self) })")
        #expect(heard.dropLast().allSatisfy { $0 == Array("one".utf8) || $0 == Array("two".utf8) }, "\(heard)")
        await flow.close()
    }

    @Test func anotherSourceIsHeardAndAnsweredFromTheFlowsOwnPort() async throws {
        let remote = try SocketPeer.udp()
        let other = try SocketPeer.udp()
        let events = Recorder<DatagramEvent>()
        let flow = try await self.network.openDatagramFlow(to: "127.0.0.1", port: remote.address.port, options: DatagramOptions()) { events.add($0) }

        try other.send(Array("INVITE".utf8), to: flow.local)
        #expect(try await events.next() == .datagram(Array("INVITE".utf8), from: other.address, truncated: false))
        flow.send(Array("100 Trying".utf8), to: other.address)
        let (bytes, source) = try #require(try other.receiveDatagram())
        #expect(bytes == Array("100 Trying".utf8))
        #expect(source == flow.local)
        // The remote's own address still goes over the connected socket.
        flow.send(Array("REGISTER".utf8), to: remote.address)
        #expect(try remote.receiveDatagram()?.0 == Array("REGISTER".utf8))
        await flow.close()
    }

    @Test func aClosedDatagramFlowDeliversNothingMore() async throws {
        let peer = try SocketPeer.udp()
        let events = Recorder<DatagramEvent>()
        let flow = try await self.network.openDatagramFlow(to: "127.0.0.1", port: peer.address.port, options: DatagramOptions()) { events.add($0) }
        try peer.send(Array("one".utf8), to: flow.local)
        _ = try await events.next()
        let local = flow.local
        await flow.close()
        try peer.send(Array("two".utf8), to: local)
        try await Task.sleep(for: .milliseconds(300))
        #expect(events.all.count == 1, "\(events.all)")
    }

    @Test func aNameIsResolvedForADatagramFlow() async throws {
        // "localhost" from /etc/hosts: resolved on the resolver's queue, not on the caller's thread.
        let peer = try SocketPeer.udp()
        let flow = try await self.network.openDatagramFlow(to: "localhost", port: peer.address.port, options: DatagramOptions()) { _ in }
        #expect(flow.remote.port == peer.address.port && ["127.0.0.1", "::1"].contains(flow.remote.ip), "\(flow.remote)")
        await flow.close()
    }

    @Test func aNameThatDoesNotResolveIsAResolutionError() async throws {
        await #expect {
            _ = try await self.network.openDatagramFlow(to: "no-such-host.invalid", port: 5060, options: DatagramOptions()) { _ in }
        } throws: { ($0 as? NetworkError)?.kind == .resolution }
    }

    // MARK: TCP

    @Test func aListeningStreamFlowTalksOnBothItsOutgoingAndAcceptedConnections() async throws {
        let server = try SocketPeer.tcpListener()
        let receivers = ReceiverLog()
        let flow = try await self.network.openStreamFlow(to: "127.0.0.1", port: server.address.port, options: StreamOptions(listen: true)) {
            receivers.make($0)
        }
        let outgoing = try server.accept()
        #expect(flow.connection.peer == server.address)
        #expect(!flow.connection.isInbound)

        flow.connection.write(Array("REGISTER".utf8))
        #expect(try outgoing.read() == Array("REGISTER".utf8))
        try outgoing.write(Array("200 OK".utf8))
        #expect(try await receivers.receiver(0).next() == "200 OK")

        // A proxy opens a connection of its own to the flow's address and port.
        let proxy = try SocketPeer.tcpConnection(to: flow.local)
        try proxy.write(Array("INVITE".utf8))
        let inbound = try await receivers.receiver(1)
        #expect(try await inbound.next() == "INVITE")
        #expect(inbound.connection.isInbound)
        #expect(inbound.connection.peer == proxy.address)
        inbound.connection.write(Array("180 Ringing".utf8))
        #expect(try proxy.read() == Array("180 Ringing".utf8))

        // Its end reaches its receiver, and only its.
        proxy.finish()
        #expect(try await inbound.next() == "closed: closed by the peer")
        #expect(receivers.count == 2)
        await flow.close()
    }

    @Test func closingAStreamFlowClosesEveryConnectionAndDeliversNothingMore() async throws {
        let server = try SocketPeer.tcpListener()
        let receivers = ReceiverLog()
        let flow = try await self.network.openStreamFlow(to: "127.0.0.1", port: server.address.port, options: StreamOptions(listen: true)) {
            receivers.make($0)
        }
        let outgoing = try server.accept()
        let proxy = try SocketPeer.tcpConnection(to: flow.local)
        try proxy.write(Array("OPTIONS".utf8))
        #expect(try await receivers.receiver(1).next() == "OPTIONS")

        await flow.close()
        // Both peers see the end of their connection; neither receiver hears of it.
        #expect(try outgoing.read() == [])
        #expect(try proxy.read() == [])
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await receivers.receiver(0).all.isEmpty)
        #expect(try await receivers.receiver(1).all == ["OPTIONS"])
        #expect(throws: SocketPeer.Failure.self) { try SocketPeer.tcpConnection(to: flow.local) }
    }

    @Test func aPeerThatClosesIsReported() async throws {
        let server = try SocketPeer.tcpListener()
        let receivers = ReceiverLog()
        let flow = try await self.network.openStreamFlow(to: "127.0.0.1", port: server.address.port, options: StreamOptions()) { receivers.make($0) }
        do {
            let outgoing = try server.accept()
            try outgoing.write(Array("bye".utf8))
        }
        let receiver = try await receivers.receiver(0)
        #expect(try await receiver.next() == "bye")
        #expect(try await receiver.next() == "closed: closed by the peer")
        await flow.close()
    }

    @Test func aRefusedConnectionIsAConnectionError() async throws {
        let port = try SocketPeer.tcpListener().address.port
        for listen in [false, true] {
            await #expect {
                _ = try await self.network.openStreamFlow(to: "127.0.0.1", port: port, options: StreamOptions(listen: listen)) { _ in Discard() }
            } throws: { error in
                guard let error = error as? NetworkError else { return false }
                return error.kind == .connection && error.message.contains("Connection refused")
            }
        }
    }
}

/// Collects what a flow delivers, and waits (bounded) for the next of it.
/// A ``StreamReceiver`` that writes down what it hears: the bytes as text, and `closed: <reason>`.
final class RecordingReceiver: StreamReceiver {
    let connection: any StreamConnection
    private let recorder = Recorder<String>()

    init(_ connection: any StreamConnection) { self.connection = connection }

    func received(_ bytes: [UInt8]) { self.recorder.add(String(decoding: bytes, as: UTF8.self)) }
    func closed(_ reason: String) { self.recorder.add("closed: \(reason)") }

    func next() async throws -> String { try await self.recorder.next() }
    var all: [String] { self.recorder.all }
}

/// The receivers a flow asked for, in order.
final class ReceiverLog: Sendable {
    private let receivers = Mutex<[RecordingReceiver]>([])

    func make(_ connection: any StreamConnection) -> any StreamReceiver {
        let receiver = RecordingReceiver(connection)
        self.receivers.withLock { $0.append(receiver) }
        return receiver
    }

    var count: Int { self.receivers.withLock { $0.count } }

    /// The `index`th receiver, waiting (bounded) for it to be asked for.
    func receiver(_ index: Int) async throws -> RecordingReceiver {
        for _ in 0..<1_000 {
            if let receiver = self.receivers.withLock({ $0.count > index ? $0[index] : nil }) { return receiver }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw SocketPeer.Failure("no receiver \(index) was asked for")
    }
}

final class Discard: StreamReceiver {
    func received(_ bytes: [UInt8]) {}
    func closed(_ reason: String) {}
}
