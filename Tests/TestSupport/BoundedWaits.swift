package import Foundation
import Glibc

// Every wait on a child process in the tests is bounded: a peer that hangs fails its test with a message, it
// never holds the whole run. Foundation's `waitUntilExit()` and `readDataToEndOfFile()` are not used. On
// Linux, Foundation learns that a child ended when a socket it hands the child (not close-on-exec) reaches
// end of file, so a grandchild that inherited the socket (a forked worker, a helper started in the
// background) keeps `isRunning` true after the child is gone, and `waitUntilExit()` waits as long.
// `readDataToEndOfFile()` waits the same way for every holder of the pipe.

//
// The same goes for a process that another thread of the test runner starts while Foundation starts this one:
// it can inherit the socket in the moment before Foundation closes its copy, and keep it as long as it lives
// (a bus, dunst, a SIP peer of another test). In whole-suite runs on a busy machine, daemons that had exited
// 0 on SIGTERM were waited for 30 s and reported as hung, a different test each time (issue 29). So every wait
// here asks the kernel: `Process.ended`.

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

extension Process {
    /// How the process ended; nil while it runs. Asked of the kernel with `waitid(WNOWAIT)`, which leaves
    /// the child for Foundation to reap, so it is right the moment the child ends, whoever else holds the
    /// socket Foundation waits on (above).
    package var ended: ProcessEnd? {
        if !self.isRunning { return ProcessEnd(status: self.terminationStatus, signaled: self.terminationReason == .uncaughtSignal) }
        var info = siginfo_t()
        let pid = self.processIdentifier
        // ECHILD when Foundation reaped it between the two looks: `isRunning` turns false a moment later.
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info._sifields._sigchld.si_pid == pid else { return nil }
        return ProcessEnd(status: info._sifields._sigchld.si_status, signaled: Int(info.si_code) != Int(CLD_EXITED))
    }

    /// How the process ended, waiting at most `seconds` (checking every 10 ms, holding no thread meanwhile):
    /// nil if it still runs then. Kills nothing.
    package func waitForEnd(within seconds: Double) async -> ProcessEnd? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let end = self.ended { return end }
            if Date() > deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits at most `seconds` for the process to end, checking every 5 ms; then SIGKILL and a further bounded
    /// wait. Its exit status, or nil if it had to be killed. Blocking: for teardown and short-lived tools.
    @discardableResult
    package func exitStatus(within seconds: Double = 20) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let end = self.ended { return end.status }
            if Date() > deadline {
                kill(self.processIdentifier, SIGKILL)
                let killed = Date().addingTimeInterval(5)
                while self.ended == nil && Date() < killed { usleep(5_000) }
                return nil
            }
            usleep(5_000)
        }
    }
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
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.standardInput = FileHandle.nullDevice
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    waitForFreeDescriptorNumbers()
    try process.run()
    let output = PipeOutput(pipe.fileHandleForReading)
    guard let status = process.exitStatus(within: seconds) else {
        throw FixtureError("\(([executable] + arguments).joined(separator: " ")) did not finish within \(seconds) s; its output:\n\(output.text)")
    }
    output.waitForEnd()
    return (status, output.text)
}

/// Waits (up to 10 s; this thread is off the cooperative pool) while this process has 900 descriptors or
/// more open. The test runner crashed in Foundation's `Process.run` (SIGSEGV in `memcpy`, with descriptor
/// numbers past 1,024 in its registers) when a whole-suite run's early peak passed 1,024 (Tests/README.md);
/// most likely a `select()` `fd_set` (1,024 bits) overflowed, not yet confirmed in Foundation's source.
/// New descriptors take the lowest free numbers, so below 900 open there are free numbers under 1,024 for
/// the spawn. After 10 s it spawns anyway, as before.
private func waitForFreeDescriptorNumbers() {
    let deadline = ContinuousClock.now + .seconds(10)
    while openDescriptorCount() >= 900, ContinuousClock.now < deadline {
        usleep(20_000)
    }
}

/// How many descriptors this process has open (the entries of /proc/self/fd but `.`, `..` and the one
/// reading it).
private func openDescriptorCount() -> Int {
    guard let directory = opendir("/proc/self/fd") else { return 0 }
    defer { closedir(directory) }
    var count = 0
    while let entry = readdir(directory) {
        if entry.pointee.d_name.0 != CChar(UInt8(ascii: ".")) { count += 1 }
    }
    return count - 1
}
