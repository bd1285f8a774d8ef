import AttendantPluginAPI
import FoundationEssentials
import Glibc

/// A plain socket on 127.0.0.1 (Glibc, blocking with `poll` time limits): the far end of the host's flows
/// in ``HostNetworkSocketTests``, so what is checked is what the kernel carried, not what NIO thinks.
final class SocketPeer: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { Glibc.close(self.descriptor) }

    /// A UDP socket bound to 127.0.0.1, on `port` (0: any free one).
    static func udp(port: Int = 0) throws -> SocketPeer {
        let peer = SocketPeer(descriptor: socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0))
        try peer.bind(port: port)
        return peer
    }

    /// A UDP port on 127.0.0.1 that is free now and below the kernel's ephemeral range
    /// (`net.ipv4.ip_local_port_range`), so that no socket bound to port 0 by a test running alongside is
    /// given it while a test leaves it closed (to draw ICMP refusals) and binds it again later.
    static func unusedPortBelowEphemeralRange() throws -> Int {
        var low = 32_768
        if let range = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8),
            let first = range.split(whereSeparator: \.isWhitespace).first.flatMap({ Int($0) })
        {
            low = first
        }
        let candidates = max(1_024, low - 10_000)..<low
        for _ in 0..<100 {
            let port = Int.random(in: candidates)
            if (try? SocketPeer.udp(port: port)) != nil { return port }
        }
        throw Failure("found no free UDP port in \(candidates) on 127.0.0.1")
    }

    /// A TCP socket listening on 127.0.0.1, port 0.
    static func tcpListener() throws -> SocketPeer {
        let peer = SocketPeer(descriptor: socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
        try peer.bind()
        guard listen(peer.descriptor, 8) == 0 else { throw Failure("listen: \(String(cString: strerror(errno)))") }
        return peer
    }

    /// A TCP connection to `address`.
    static func tcpConnection(to address: NetworkAddress) throws -> SocketPeer {
        let peer = SocketPeer(descriptor: socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
        var destination = Self.socketAddress(address)
        let connected = withUnsafePointer(to: &destination) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(peer.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure("connect to \(address): \(String(cString: strerror(errno)))") }
        return peer
    }

    private func bind(port: Int = 0) throws {
        var address = Self.socketAddress(NetworkAddress(ip: "127.0.0.1", port: port))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(self.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw Failure("bind: \(String(cString: strerror(errno)))") }
    }

    var address: NetworkAddress {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(self.descriptor, $0, &length) }
        }
        return NetworkAddress(ip: "127.0.0.1", port: Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Sends one datagram to `address`.
    func send(_ bytes: [UInt8], to address: NetworkAddress) throws {
        var destination = Self.socketAddress(address)
        let sent = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &destination) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(self.descriptor, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard sent == bytes.count else { throw Failure("sendto \(address): \(String(cString: strerror(errno)))") }
    }

    /// Receives one datagram and its source, or nil when none comes within `seconds`.
    func receiveDatagram(within seconds: Double = 30) throws -> ([UInt8], NetworkAddress)? {
        guard try self.readable(within: seconds) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = buffer.withUnsafeMutableBytes { bytes in
            withUnsafeMutablePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(self.descriptor, bytes.baseAddress, bytes.count, 0, $0, &length) }
            }
        }
        guard count >= 0 else { throw Failure("recvfrom: \(String(cString: strerror(errno)))") }
        return (Array(buffer[0..<count]), NetworkAddress(ip: "127.0.0.1", port: Int(UInt16(bigEndian: source.sin_port))))
    }

    /// Accepts one connection.
    func accept(within seconds: Double = 30) throws -> SocketPeer {
        guard try self.readable(within: seconds) else { throw Failure("no connection within \(seconds) s") }
        let connection = Glibc.accept(self.descriptor, nil, nil)
        guard connection >= 0 else { throw Failure("accept: \(String(cString: strerror(errno)))") }
        return SocketPeer(descriptor: connection)
    }

    /// Writes all of `bytes` on a connection.
    func write(_ bytes: [UInt8]) throws {
        let written = bytes.withUnsafeBytes { Glibc.send(self.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard written == bytes.count else { throw Failure("send: \(String(cString: strerror(errno)))") }
    }

    /// Ends the connection's sending side: the other end reads its end.
    func finish() {
        shutdown(self.descriptor, Int32(SHUT_WR))
    }

    /// Reads what a connection has: nil when nothing comes within `seconds`, empty at its end.
    func read(within seconds: Double = 30) throws -> [UInt8]? {
        guard try self.readable(within: seconds) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw Failure("recv: \(String(cString: strerror(errno)))") }
        return Array(buffer[0..<count])
    }

    private func readable(within seconds: Double) throws -> Bool {
        var descriptor = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(seconds * 1000))
        guard ready >= 0 else { throw Failure("poll: \(String(cString: strerror(errno)))") }
        return ready > 0
    }

    private static func socketAddress(_ address: NetworkAddress) -> sockaddr_in {
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = in_port_t(UInt16(address.port).bigEndian)
        inet_pton(AF_INET, address.ip, &socketAddress.sin_addr)
        return socketAddress
    }
}
