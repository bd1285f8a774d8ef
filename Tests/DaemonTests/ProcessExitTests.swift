import Foundation
import Glibc
import TestSupport
import Testing

/// Every wait on a child in the tests learns of its end from the kernel (issue 29). Foundation's
/// `Process.isRunning` turned false only once every copy of a socket it gave the child had closed, so a
/// process that inherited that socket (a grandchild, or a fixture another test started at the same moment)
/// kept it true: whole-suite runs on a busy machine reported daemons that had exited 0 on SIGTERM as
/// still running after 30 s, a different test each time. The tests now start children with
/// `SpawnedProcess`, which asks `waitid`; here a background `sleep` outlives its parent and holds what the
/// parent was given.
@Suite struct ProcessExitTests {
    /// `sh` exits 3 at once and leaves a `sleep 30` behind that holds what `sh` inherited.
    private static let leavesAHolder = ["-c", "sleep 30 >/dev/null 2>&1 </dev/null & exit 3"]

    @Test func aFixtureEndsWhenItEndsWhileAnotherProcessHoldsItsSocket() async throws {
        let shell = try FixtureProcess("sh", "/bin/sh", Self.leavesAHolder, environment: ProcessInfo.processInfo.environment)
        // Its own process group (SpawnedProcess spawns each child into one): the sleep goes with it at the end.
        defer { kill(-shell.pid, SIGKILL) }
        #expect(await shell.waitForExit(within: 10) == 3)
        #expect(!shell.isRunning)
        #expect(shell.process.ended == ProcessEnd(status: 3, signaled: false))
    }

    @Test func aBlockingWaitEndsToo() throws {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = Self.leavesAHolder
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer { kill(-process.processIdentifier, SIGKILL) }
        #expect(process.exitStatus(within: 10) == 3)
    }

    @Test func aSignalIsReportedAsOne() async throws {
        let shell = try FixtureProcess("sh", "/bin/sh", ["-c", "sleep 30 >/dev/null 2>&1 </dev/null & kill -TERM $$"], environment: [:])
        defer { kill(-shell.pid, SIGKILL) }
        #expect(await shell.waitForExit(within: 10) == SIGTERM)
        #expect(shell.process.ended == ProcessEnd(status: SIGTERM, signaled: true))
    }

    /// What the test runner has open (its buses, its sockets, this pipe) and the signals it blocks stay
    /// out of a child, as with systemd: the child has no descriptor it was not given, no signal blocked, and
    /// a process group of its own.
    @Test func aChildGetsNoOtherDescriptorAndNoBlockedSignal() async throws {
        var held: [Int32] = [-1, -1]
        #expect(pipe(&held) == 0)  // not close-on-exec
        defer { held.forEach { close($0) } }
        let script = """
            for fd in \(held[0]) \(held[1]); do [ -e /proc/$$/fd/$fd ] && echo "holds $fd"; done
            ps -o pgid= -p $$; echo $$; exec grep SigBlk /proc/self/status
            """
        let (status, output) = try await run("/bin/sh", ["-c", script])
        #expect(status == 0)
        let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        try #require(lines.count == 3, "the child's report: \(output)")
        #expect(lines[0] == lines[1], "process group \(lines[0]), pid \(lines[1])")
        // Read by grep, exec'd: the shell blocks every signal while it waits for a command it forked.
        #expect(lines[2].hasSuffix("0000000000000000"), "\(lines[2])")
    }

    /// A child is reaped once, by its watching thread, and a signal after that reaches nobody: the number
    /// may belong to another process by then.
    @Test func theTerminationHandlerRunsOnceAndLaterSignalsGoNowhere() async throws {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exit 7"]
        let calls = Locked(0)
        process.terminationHandler = { _ in calls.withLock { $0 += 1 } }
        try process.run()
        #expect(await process.waitForEnd(within: 10) == ProcessEnd(status: 7, signaled: false))
        try await eventually("the termination handler") { calls.withLock { $0 } == 1 }
        // Reaped: the kernel has no such child of ours any more.
        var info = siginfo_t()
        #expect(waitid(P_PID, id_t(process.processIdentifier), &info, WEXITED | WNOHANG | WNOWAIT) == -1 && errno == ECHILD)
        process.signal(SIGKILL)
        process.terminate()
        #expect(process.terminationStatus == 7)
        #expect(calls.withLock { $0 } == 1)
    }
}
