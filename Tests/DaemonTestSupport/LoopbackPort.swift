import Foundation
import Glibc
import TestSupport

/// Free ports on 127.0.0.1.
package enum LoopbackPort {
    /// A port free for UDP and TCP alike (a SIP URI's port serves both); with `andNextTCP`, TCP on the port
    /// above too.
    ///
    /// Taken below the kernel's ephemeral range, like every port here: no socket bound to port 0 (by this
    /// test or one running alongside) is ever given it, so a fixture that stops and starts again on its
    /// port (an outage test's kamailio) finds it still free.
    package static func pick(andNextTCP: Bool = false) throws -> UInt16 {
        for _ in 0..<200 {
            let port = UInt16.random(in: Self.candidates)
            guard let udp = Self.bind(Int32(SOCK_DGRAM.rawValue), port) else { continue }
            defer { close(udp.fd) }
            guard let tcp = Self.bind(Int32(SOCK_STREAM.rawValue), port) else { continue }
            defer { close(tcp.fd) }
            if andNextTCP {
                guard let next = Self.bind(Int32(SOCK_STREAM.rawValue), port + 1) else { continue }
                close(next.fd)
            }
            return port
        }
        throw FixtureError("found no free UDP and TCP port in \(Self.candidates) on 127.0.0.1")
    }

    /// A free TCP port, none of `avoiding`.
    package static func pickTCP(avoiding: Set<UInt16> = []) throws -> UInt16 {
        for _ in 0..<200 {
            let port = UInt16.random(in: Self.candidates)
            guard !avoiding.contains(port), let tcp = Self.bind(Int32(SOCK_STREAM.rawValue), port) else { continue }
            close(tcp.fd)
            return port
        }
        throw FixtureError("found no free TCP port in \(Self.candidates) on 127.0.0.1")
    }

    /// Up to 10,000 ports below `net.ipv4.ip_local_port_range` (the port above each is below it too).
    static let candidates: Range<UInt16> = {
        var low = 32_768
        if let range = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8),
            let first = range.split(whereSeparator: \.isWhitespace).first.flatMap({ Int($0) })
        {
            low = first
        }
        let upper = max(1_026, min(low, 65_535)) - 1
        return UInt16(max(1_024, upper - 10_000))..<UInt16(upper)
    }()

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
