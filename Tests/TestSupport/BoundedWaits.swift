package import Foundation
import Glibc

// Every wait on a child process in the tests is bounded: a peer that hangs fails its test with a message, it
// never holds the whole run. Foundation's `waitUntilExit()` and `readDataToEndOfFile()` are not used. On
// Linux, Foundation learns that a child ended when a socket it hands the child (not close-on-exec) reaches
// end of file, so a grandchild that inherited the socket (a forked worker, a helper started in the
// background) keeps `isRunning` true after the child is gone, and `waitUntilExit()` waits as long.
// `readDataToEndOfFile()` waits the same way for every holder of the pipe.

extension Process {
    /// Waits at most `seconds` for the process to end, checking every 5 ms; then SIGKILL and a further bounded
    /// wait. Its exit status, or nil if it had to be killed. Blocking: for teardown and short-lived tools.
    @discardableResult
    package func exitStatus(within seconds: Double = 20) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while self.isRunning {
            if Date() > deadline {
                kill(self.processIdentifier, SIGKILL)
                let killed = Date().addingTimeInterval(5)
                while self.isRunning && Date() < killed { usleep(5_000) }
                return nil
            }
            usleep(5_000)
        }
        return self.terminationStatus
    }
}

/// The first line `descriptor` carries (without its newline), read within `seconds`; nil if the writer
/// closed it or said nothing whole in time.
package func firstLine(of descriptor: Int32, within seconds: Double = 20) -> String? {
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
/// Bounded: a command still running after `seconds` is killed and this throws.
package func run(
    _ executable: String,
    _ arguments: [String],
    environment: [String: String]? = nil,
    within seconds: Double = 30
) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.standardInput = FileHandle.nullDevice
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    let output = Locked((data: Data(), ended: false))
    try process.run()
    FixtureProcess.read(pipe.fileHandleForReading) { data in
        output.withLock { if let data { $0.data.append(data) } else { $0.ended = true } }
    }
    let command = ([executable] + arguments).joined(separator: " ")
    guard let status = process.exitStatus(within: seconds) else {
        throw FixtureError("\(command) did not finish within \(seconds) s; its output:\n\(output.withLock { String(decoding: $0.data, as: UTF8.self) })")
    }
    // The output ends when the last holder of the pipe closes it; a grandchild may keep it a while.
    let drained = Date().addingTimeInterval(2)
    while !output.withLock({ $0.ended }) && Date() < drained { usleep(2_000) }
    return (status, output.withLock { String(decoding: $0.data, as: UTF8.self) })
}
