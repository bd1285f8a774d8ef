import Foundation
import Glibc
import TestSupport

/// Free ports on 127.0.0.1.
package enum LoopbackPort {
    /// A port free for UDP and TCP alike (a SIP URI's port serves both); with `andNextTCP`, TCP on the port
    /// above too.
    package static func pick(andNextTCP: Bool = false) throws -> UInt16 {
        for _ in 0..<200 {
            guard let udp = Self.bind(Int32(SOCK_DGRAM.rawValue), 0) else { continue }
            defer { close(udp.fd) }
            guard udp.port < 65535, let tcp = Self.bind(Int32(SOCK_STREAM.rawValue), udp.port) else { continue }
            defer { close(tcp.fd) }
            if andNextTCP {
                guard let next = Self.bind(Int32(SOCK_STREAM.rawValue), udp.port + 1) else { continue }
                close(next.fd)
            }
            return udp.port
        }
        throw FixtureError("found no free UDP and TCP port on 127.0.0.1")
    }

    /// A free TCP port, none of `avoiding`.
    package static func pickTCP(avoiding: Set<UInt16> = []) throws -> UInt16 {
        for _ in 0..<200 {
            guard let tcp = Self.bind(Int32(SOCK_STREAM.rawValue), 0) else { continue }
            close(tcp.fd)
            if !avoiding.contains(tcp.port) { return tcp.port }
        }
        throw FixtureError("found no free TCP port on 127.0.0.1")
    }

    private static func bind(_ type: Int32, _ port: UInt16) -> (fd: Int32, port: UInt16)? {
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            return nil
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}
