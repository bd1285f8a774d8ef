import DaemonTestSupport
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// A private folder for one test, removed at the end.
final class Scratch {
    let path: String

    init() throws {
        self.path = try makeTemporaryFolder("attendant-test")
    }

    deinit { try? FileManager.default.removeItem(atPath: self.path) }

    func write(_ name: String, _ text: String) throws -> String {
        let file = self.path + "/" + name
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}

/// `attendantd` running as a child process, with its stdout and stderr collected.
final class DaemonProcess: Sendable {
    let process: SpawnedProcess
    private let output = OutputBox()

    /// Starts `attendantd arguments` with a private runtime and state folder under `scratch`; `launcher`
    /// (such as `/usr/bin/unshare --net`, a path) runs it, and must exec it so that ``process`` is attendantd.
    init(_ arguments: [String], scratch: Scratch, environment extra: [String: String] = [:], launcher: [String] = []) throws {
        let process = SpawnedProcess()
        // With no signal blocked and every signal at its default, as systemd starts it (SpawnedProcess).
        let command = launcher + [BuildProducts.attendantd] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = scratch.path + "/run"
        environment["XDG_STATE_HOME"] = scratch.path + "/state"
        environment["XDG_CONFIG_HOME"] = scratch.path + "/config"
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM"] { environment[key] = nil }
        // A crash, or the SIGQUIT of ``expectCleanExit(within:sourceLocation:)``, prints every thread's
        // stack to stderr, where the test shows it.
        environment["SWIFT_BACKTRACE"] = "enable=yes,threads=all,interactive=no,color=no"
        environment.merge(extra) { $1 }
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        self.process = process
        try process.run()
        // A thread per pipe, reading until EOF: readabilityHandler sometimes delivers late or misses the
        // last chunk, which made checks right after a log line flaky.
        let box = self.output
        Self.read(out.fileHandleForReading) { text in box.text.withLock { $0.out += text } }
        Self.read(err.fileHandleForReading) { text in box.text.withLock { $0.err += text } }
    }

    private static func read(_ handle: FileHandle, _ deliver: @escaping @Sendable (String) -> Void) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            var pending: [UInt8] = []
            while true {
                let count = Glibc.read(handle.fileDescriptor, &buffer, buffer.count)
                if count > 0 {
                    pending += buffer[0..<count]
                    // Deliver whole lines only, so a check never sees half a line.
                    if let last = pending.lastIndex(of: UInt8(ascii: "\n")) {
                        deliver(String(decoding: pending[...last], as: UTF8.self))
                        pending.removeSubrange(...last)
                    }
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            if !pending.isEmpty { deliver(String(decoding: pending, as: UTF8.self)) }
            try? handle.close()
        }
    }

    var stdout: String { self.output.text.withLock { $0.out } }
    var stderr: String { self.output.text.withLock { $0.err } }

    final class OutputBox: Sendable {
        let text = Mutex<(out: String, err: String)>(("", ""))
    }

    func signal(_ signal: Int32) { self.process.signal(signal) }

    /// Waits for the process to exit (bounded, so a hung daemon fails the test instead of hanging it).
    func waitForExit(within seconds: Double = 30) async -> Int32? {
        guard let end = await self.process.waitForEnd(within: seconds) else {
            self.signal(SIGKILL)
            return nil
        }
        try? await Task.sleep(for: .milliseconds(50))  // let the pipes drain
        return end.status
    }

    /// Waits for the exit after a SIGTERM and records an issue unless the daemon exited 0, saying how it
    /// ended and showing the end of its stderr. A daemon still running after `seconds` is sent SIGQUIT
    /// first: the Swift runtime's backtracer (``environment``) then prints every thread's stack, which says
    /// where the shutdown stopped, and only then is it killed.
    func expectCleanExit(within seconds: Double = 30, sourceLocation: SourceLocation = #_sourceLocation) async {
        let end = await self.process.waitForEnd(within: seconds)
        if end == ProcessEnd(status: 0, signaled: false) { return }
        var how = end.map { "\($0)" } ?? "still running \(Int(seconds)) s after the signal; sent SIGQUIT for its threads' stacks"
        if end == nil {
            self.signal(SIGQUIT)
            if await self.process.waitForEnd(within: 30) == nil {
                how += ", then SIGKILL"
                self.signal(SIGKILL)
            }
        }
        try? await Task.sleep(for: .milliseconds(100))  // let the pipes drain
        Issue.record("attendantd did not exit 0: \(how). The end of its stderr:\n\(self.stderr.suffix(6000))", sourceLocation: sourceLocation)
    }

    /// Waits until stderr contains `text` (bounded).
    @discardableResult
    func waitForLog(_ text: String, within seconds: Double = 30) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !self.stderr.contains(text) {
            if Date() > deadline || self.process.ended != nil && !self.stderr.contains(text) {
                return self.stderr.contains(text)
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    deinit {
        self.process.signal(SIGKILL)
    }
}
