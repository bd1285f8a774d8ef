package import Foundation
import Glibc

// Every wait on a child process in the tests is bounded: a peer that hangs fails its test with a message, it
// never holds the whole run. Every child is a `SpawnedProcess`, and every wait on one asks the kernel
// (`SpawnedProcess.ended`). Foundation's `Process` is not used (SpawnedProcess.swift says why, and
// Tests/README.md what it did in whole-suite runs); neither is `readDataToEndOfFile()`, which waits for every
// holder of the pipe, a grandchild the child left behind too.

/// How a child process ended.
package struct ProcessEnd: Equatable, Sendable, CustomStringConvertible {
    /// The exit status, or the number of the signal that ended it (as Foundation's `terminationStatus`).
    package var status: Int32
    package var signaled: Bool

    package init(status: Int32, signaled: Bool) {
        self.status = status
        self.signaled = signaled
    }

    package var description: String { self.signaled ? "killed by signal \(self.status)" : "exit status \(self.status)" }
}

/// What a child writes to a pipe, read on a thread of its own until end of file (readabilityHandler
/// sometimes misses the end of file that comes with the last data, and output could look unfinished). A
/// pipe nobody reads fills up and blocks its writer.
package final class PipeOutput: Sendable {
    private let state = Locked((data: Data(), ended: false))

    /// Starts reading `handle`; `onData` sees each chunk as it comes.
    package init(_ handle: FileHandle, onData: (@Sendable (Data) -> Void)? = nil) {
        let state = self.state
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(handle.fileDescriptor, &buffer, buffer.count)
                if count > 0 {
                    let chunk = Data(buffer[0..<count])
                    state.withLock { $0.data.append(chunk) }
                    onData?(chunk)
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            state.withLock { $0.ended = true }
            try? handle.close()
        }
    }

    package var data: Data { self.state.withLock { $0.data } }
    package var text: String { String(decoding: self.data, as: UTF8.self) }
    /// Whether every holder of the pipe's other end has closed it.
    package var ended: Bool { self.state.withLock { $0.ended } }

    /// Waits (blocking) up to `seconds` for the end of file: after the child exits, the last holder of the
    /// pipe (a grandchild, say) may keep it a while.
    package func waitForEnd(within seconds: Double = 2) {
        let deadline = Date().addingTimeInterval(seconds)
        while !self.ended && Date() < deadline { usleep(2_000) }
    }
}

/// Runs blocking `work` on a thread of its own and waits for it without holding one of Swift's cooperative
/// threads. The test process has two, shared by every suite running at once: a test that blocks one while a
/// peer starts takes half of everyone's time, and two such tests stop the in-process servers and timers of
/// all the others.
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result(catching: work)) }
    }
}

/// ``offThePool(_:)`` for work that cannot fail.
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}

/// The first line `descriptor` carries (without its newline), read within `seconds`; nil if the writer
/// closed it or said nothing whole in time. Waits off the cooperative threads.
package func firstLine(of descriptor: Int32, within seconds: Double = 60) async -> String? {
    await offThePool { firstLineBlocking(of: descriptor, within: seconds) }
}

private func firstLineBlocking(of descriptor: Int32, within seconds: Double) -> String? {
    let deadline = Date().addingTimeInterval(seconds)
    var line: [UInt8] = []
    while true {
        let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
        var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&watched, 1, left)
        if ready < 0 && errno == EINTR { continue }
        guard ready > 0 else { return nil }
        var byte: UInt8 = 0
        let count = read(descriptor, &byte, 1)
        if count < 0 && errno == EINTR { continue }
        guard count == 1 else { return nil }
        if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
        line.append(byte)
    }
}

/// Runs a command to completion and returns its exit status and its stdout and stderr together, as written.
/// Bounded: a command still running after `seconds` is killed and this throws. Waits off the cooperative
/// threads.
package func run(
    _ executable: String,
    _ arguments: [String],
    environment: [String: String]? = nil,
    within seconds: Double = 60
) async throws -> (Int32, String) {
    try await offThePool { try runBlocking(executable, arguments, environment: environment, within: seconds) }
}

private func runBlocking(
    _ executable: String,
    _ arguments: [String],
    environment: [String: String]?,
    within seconds: Double
) throws -> (Int32, String) {
    let process = SpawnedProcess()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.standardInput = FileHandle.nullDevice
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = PipeOutput(pipe.fileHandleForReading)
    guard let status = process.exitStatus(within: seconds) else {
        throw FixtureError("\(([executable] + arguments).joined(separator: " ")) did not finish within \(seconds) s; its output:\n\(output.text)")
    }
    output.waitForEnd()
    return (status, output.text)
}
