import Foundation
import Glibc
import TestSupport

/// Plays systemd's side of `sd_notify(3)`: a datagram socket that collects what the daemon reports.
/// Used by one test at a time; its receiving runs on a thread of its own (``waitFor(within:_:)``).
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let fd: Int32
    private(set) var messages: [String] = []

    init(path: String) throws {
        self.path = path
        self.fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            raw.copyBytes(from: bytes.prefix(raw.count - 1))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(self.fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard self.fd >= 0, bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(self.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(self.fd)
        unlink(self.path)
    }

    /// Receives until a message satisfies `predicate` (returning it) or `seconds` pass (returning nil), off the
    /// cooperative threads.
    func waitFor(within seconds: Double = 60, _ predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await offThePool { self.receive(within: seconds, predicate) }
    }

    private func receive(within seconds: Double, _ predicate: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            let count = buffer.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { continue }
            let message = String(decoding: buffer[0..<count], as: UTF8.self)
            self.messages.append(message)
            if predicate(message) { return message }
        }
        return nil
    }

    /// The `STATUS=` line of a message.
    static func status(_ message: String) -> String? {
        message.split(separator: "\n").first { $0.hasPrefix("STATUS=") }.map { String($0.dropFirst(7)) }
    }
}
