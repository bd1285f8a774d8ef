package import Foundation
import Glibc
import Synchronization

/// A child process of the fixture (a bus, Xvfb, dunst, the logind mock, a monitor, a client) whose stdout
/// and stderr are collected.
package final class FixtureProcess: Sendable {
    package let name: String
    package let process: SpawnedProcess
    private let input: Pipe?
    private let out: PipeOutput
    private let err: PipeOutput

    /// Starts `executable` (a tool name looked up on PATH, or a path). `onOutput` sees each chunk of stdout.
    package init(
        _ name: String,
        _ executable: String,
        _ arguments: [String],
        environment: [String: String],
        withInput: Bool = false,
        onOutput: (@Sendable (Data) -> Void)? = nil
    ) throws {
        self.name = name
        let process = SpawnedProcess()
        let path = executable.contains("/") ? executable : try installedTool(executable)
        // SpawnedProcess starts it with no signal blocked (the test process blocks SIGTERM, SIGINT, SIGHUP,
        // SIGCHLD, ...; dunst, Xvfb or dbus-daemon would never see a SIGTERM) and every signal at its default.
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if withInput {
            let input = Pipe()
            process.standardInput = input
            self.input = input
        } else {
            process.standardInput = FileHandle.nullDevice
            self.input = nil
        }
        self.process = process
        do {
            try process.run()
        } catch {
            throw FixtureError("cannot start \(name) (\(process.executableURL?.path ?? executable)): \(error)")
        }
        self.out = PipeOutput(out.fileHandleForReading, onData: onOutput)
        self.err = PipeOutput(err.fileHandleForReading)
    }

    package var pid: Int32 { self.process.processIdentifier }
    package var isRunning: Bool { self.process.ended == nil }
    package var stdout: String { self.out.text }
    package var stderr: String { self.err.text }

    /// What a failure message says about this process.
    package var report: String {
        let status = self.process.ended.map { "ended: \($0)" } ?? "running"
        return "\(self.name) (pid \(self.pid), \(status)); its stderr:\n\(self.stderr)"
    }

    package func write(_ text: String) {
        try? self.input?.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    package func closeInput() {
        try? self.input?.fileHandleForWriting.close()
    }

    /// Waits (bounded) for the process to exit and its output to end; nil if it was still running and was
    /// killed.
    package func waitForExit(within seconds: Double = 20) async -> Int32? {
        guard let end = await self.process.waitForEnd(within: seconds) else {
            kill(self.pid, SIGKILL)
            return nil
        }
        let drained = Date().addingTimeInterval(2)
        while !(self.out.ended && self.err.ended) && Date() < drained {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return end.status
    }

    /// SIGTERM, a bounded wait, then SIGKILL. Blocking: for teardown in `defer` and `deinit`.
    package func terminate(within seconds: Double = 5) {
        guard self.isRunning else { return }
        kill(self.pid, SIGTERM)
        self.process.exitStatus(within: seconds)
    }

    /// SIGTERM, a bounded wait, then SIGKILL, waiting without holding one of the cooperative threads (a
    /// peer such as Faye can take seconds to end).
    package func terminate(within seconds: Double = 5) async {
        guard self.isRunning else { return }
        kill(self.pid, SIGTERM)
        // waitForExit sends SIGKILL when its bound passes; the second wait gives the killed process time to end.
        if await self.waitForExit(within: seconds) == nil { _ = await self.waitForExit(within: 5) }
    }

    deinit {
        self.process.signal(SIGKILL)
    }
}

/// Runs a tool to completion (bounded) and returns its status, stdout and stderr.
@discardableResult
package func runTool(
    _ tool: String,
    _ arguments: [String],
    environment: [String: String],
    input: String? = nil,
    within seconds: Double = 60
) async throws -> (status: Int32, stdout: String, stderr: String) {
    let child = try FixtureProcess(tool, tool, arguments, environment: environment, withInput: input != nil)
    if let input {
        child.write(input)
        child.closeInput()
    }
    guard let status = await child.waitForExit(within: seconds) else {
        throw FixtureError("\(tool) \(arguments.joined(separator: " ")) did not finish within \(seconds) s; stderr:\n\(child.stderr)")
    }
    return (status, child.stdout, child.stderr)
}
