import Foundation
import Glibc
import TestSupport
import Testing

/// Every wait on a child in the tests learns of its end from the kernel (issue 29). Foundation's
/// `Process.isRunning` turns false only once every copy of a socket it gives the child has closed, so a
/// process that inherited that socket (a grandchild, or a fixture another test started at the same moment)
/// kept it true: whole-suite runs on a busy machine reported daemons that had exited 0 on SIGTERM as
/// still running after 30 s, a different test each time. Here the holder is a background `sleep`.
@Suite struct ProcessExitTests {
    /// `sh` exits 3 at once and leaves a `sleep 30` behind that holds what `sh` inherited.
    private static let leavesAHolder = ["-c", "sleep 30 >/dev/null 2>&1 </dev/null & exit 3"]

    @Test func aFixtureEndsWhenItEndsWhileAnotherProcessHoldsItsSocket() async throws {
        let shell = try FixtureProcess("sh", "/bin/sh", Self.leavesAHolder, environment: ProcessInfo.processInfo.environment)
        // Its own process group (Foundation spawns each child into one): the sleep goes with it at the end.
        defer { kill(-shell.pid, SIGKILL) }
        #expect(await shell.waitForExit(within: 10) == 3)
        #expect(!shell.isRunning)
        #expect(shell.process.ended == ProcessEnd(status: 3, signaled: false))
    }

    @Test func aBlockingWaitEndsToo() throws {
        let process = Process()
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
}
