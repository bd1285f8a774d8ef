import Foundation
import Glibc
import Synchronization
import TestSupport

/// Where `swift build` put the binaries: beside the test bundle.
enum BuildProducts {
    static let directory: String = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return (exe as NSString).deletingLastPathComponent
    }()

    static var attendantctl: String { self.directory + "/attendantctl" }
    static var attendantd: String { self.directory + "/attendantd" }

    /// The package root (for fixtures and scripts).
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
}

/// A built program running as a child, its stdout and stderr going to files that tests read while it
/// runs; it never blocks a thread of the concurrency pool while waiting.
final class CommandProcess: Sendable {
    let process: SpawnedProcess
    private let folder: String

    /// Starts `executable arguments` with `environment` added to this process's environment.
    init(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) throws {
        self.folder = try makeTemporaryFolder("attendantctl-run")
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment.merge(extra) { $1 }
        process.environment = environment
        _ = FileManager.default.createFile(atPath: self.folder + "/out", contents: nil)
        _ = FileManager.default.createFile(atPath: self.folder + "/err", contents: nil)
        process.standardInput = FileHandle.nullDevice
        let out = FileHandle(forWritingAtPath: self.folder + "/out")
        let err = FileHandle(forWritingAtPath: self.folder + "/err")
        process.standardOutput = out
        process.standardError = err
        self.process = process
        try process.run()
        // The child has its own copies now. The parent's would stay open for as long as Foundation keeps
        // the Process, which can outlive the test: a whole-suite run held 386 of them (the files already
        // deleted), and past 1,024 open descriptors Foundation's Process.run crashes the test runner.
        try? out?.close()
        try? err?.close()
    }

    var stdout: String { (try? String(contentsOfFile: self.folder + "/out", encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: self.folder + "/err", encoding: .utf8)) ?? "" }
    var stdoutLines: [String] { self.stdout.split(separator: "\n").map(String.init) }

    func signal(_ number: Int32) { self.process.signal(number) }

    /// The exit status once the process has exited (killed by a signal: 128 + its number, as a shell
    /// reports it); nil (and the process killed) after `seconds`. `Process.ended` asks the kernel: Foundation's
    /// own notice of the exit waits for every process that inherited its socket (TestSupport).
    func waitForExit(within seconds: Double = 60) async -> Int32? {
        guard let end = await self.process.waitForEnd(within: seconds) else {
            self.process.signal(SIGKILL)
            return nil
        }
        return end.signaled ? 128 + end.status : end.status
    }

    /// Waits until `condition` holds for the output so far (bounded); whether it came to hold.
    func waitFor(within seconds: Double = 30, _ condition: (CommandProcess) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition(self) {
            if ContinuousClock.now > deadline || self.process.ended != nil { return condition(self) }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    deinit {
        self.process.signal(SIGKILL)
        try? FileManager.default.removeItem(atPath: self.folder)
    }
}

/// One finished run of `attendantctl`.
struct CommandResult: Sendable, CustomStringConvertible {
    var status: Int32?
    var stdout: String
    var stderr: String
    var description: String { "exit \(self.status.map(String.init) ?? "none (killed)")\nstdout:\n\(self.stdout)stderr:\n\(self.stderr)" }
}

/// Runs `attendantctl arguments` on the bus at `address` to the end (bounded).
func attendantctl(_ arguments: [String], bus address: String?, environment: [String: String] = [:]) async throws -> CommandResult {
    var environment = environment
    environment["DBUS_SESSION_BUS_ADDRESS"] = address ?? "unix:path=/nonexistent/attendantctl-test-bus"
    let child = try CommandProcess(BuildProducts.attendantctl, arguments, environment: environment)
    let status = await child.waitForExit()
    return CommandResult(status: status, stdout: child.stdout, stderr: child.stderr)
}
