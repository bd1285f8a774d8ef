import AttendantCore
import AttendantPluginTestKit
import Foundation
import TestSupport
import Testing

extension VoiceSoakTests {
    /// Over TCP without RFC 5626 outbound the channel listens on its flow's own port for calls. Linux's
    /// `connect()` hands out ports that other connections of the machine already use (to other peers), and
    /// then no listener could be bound there: on a busy machine (thousands of connections, or of sockets
    /// in TIME_WAIT) a start failed that way about one time in three. The channel binds its listener first.
    @Test func aTCPChannelListensOnABusyMachine() async throws {
        let busy = try await BusyPorts(connections: 3000)
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

/// Loopback TCP connections held open, each from a port `connect()` picked, as a busy machine has. They
/// live in a child process: ports are shared by the whole network namespace, and thousands of descriptors
/// in the test process itself would crowd every other test's (Tests/README.md: keep them few).
final class BusyPorts: @unchecked Sendable {
    private let process: SpawnedProcess
    private let input: Pipe

    init(connections: Int) async throws {
        let script = """
            import socket, sys
            server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(4096)
            held = []
            for _ in range(\(connections)):
                client = socket.socket(); client.connect(server.getsockname())
                held += [client, server.accept()[0]]
            print("ready", flush=True)
            sys.stdin.read()
            """
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        self.process = process
        self.input = input
        guard await firstLine(of: output.fileHandleForReading.fileDescriptor) != nil else {
            process.exitStatus(within: 0)
            throw SoakError("python3 could not open \(connections) loopback connections")
        }
    }

    func close() {
        try? self.input.fileHandleForWriting.close()
        self.process.exitStatus()
    }
}
