import AttendantCore
import AttendantPluginTestKit
import Foundation
import Glibc
import Testing

extension VoiceSoakTests {
    /// Over TCP without RFC 5626 outbound the channel listens on its flow's own port for calls. Linux's
    /// `connect()` hands out ports that other connections of the machine already use (to other peers), and
    /// then no listener could be bound there: on a busy machine (thousands of connections, or of sockets
    /// in TIME_WAIT) a start failed that way about one time in three. The channel binds its listener first.
    @Test func aTCPChannelListensOnABusyMachine() async throws {
        let busy = try BusyPorts(connections: 3000)
        defer { busy.close() }
        for attempt in 0..<12 {
            let soak = try await Soak(seed: UInt64(attempt))
            try await soak.settle()
            let state = soak.state
            let log = soak.logs.text
            await soak.stop()
            #expect(state == .listening, "start \(attempt + 1) of 12: \(log.suffix(1500))")
            if state != .listening { break }
        }
    }
}

/// Loopback TCP connections held open, each from a port `connect()` picked, as a busy machine has.
final class BusyPorts: Sendable {
    private let descriptors: [Int32]

    init(connections: Int) throws {
        var descriptors: [Int32] = []
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        descriptors.append(listener)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 4096) == 0 && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else { throw SoakError("cannot listen on loopback: errno \(errno)") }
        for _ in 0..<connections {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) == 0 }
            }
            guard connected else {
                _ = Glibc.close(client)
                descriptors.forEach { _ = Glibc.close($0) }
                throw SoakError("cannot connect on loopback: errno \(errno)")
            }
            descriptors.append(client)
            descriptors.append(accept(listener, nil, nil))
        }
        self.descriptors = descriptors
    }

    func close() {
        for descriptor in self.descriptors { _ = Glibc.close(descriptor) }
    }
}
