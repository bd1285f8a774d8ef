import AttendantPluginKit
package import Foundation
import Glibc
import Synchronization

/// A child process of the tests, started with `posix_spawn` and reaped by this type, with the part of
/// Foundation's `Process` interface the tests use.
///
/// Foundation's `Process` is not used: on Linux it watches each child through a socket served by
/// CoreFoundation's run loop, and the test runner crashed inside `Process.run` (SIGSEGV in `memcpy`) when
/// a whole-suite run had more than 1,024 descriptors open, the size of a `select()` set (Tests/README.md).
/// Here nothing but the kernel is asked: a thread a child blocks in `waitid` until the child ends, and
/// only that thread reaps it, under the same lock that `terminate()` and `signal(_:)` take, so a signal
/// never reaches another process that got the number after the child was reaped.
///
/// As Foundation's `Process` does on Linux: standard descriptors left nil read and write `/dev/null`; the
/// parent's copies of the child's pipe ends are closed once it runs; the child gets no other descriptor
/// (``ChildDescriptors``); it leads a process group of its own. Unlike it, the child starts with an empty
/// signal mask and every signal at its default (the test runner blocks some; `env --default-signal` is no
/// longer needed for that).
package final class SpawnedProcess: @unchecked Sendable {
    // Set before `run()`, read by it; as with Foundation's `Process`, not changed after.
    package var executableURL: URL?
    package var arguments: [String] = []
    /// The whole environment of the child; nil: this process's.
    package var environment: [String: String]?
    /// A `Pipe`, a `FileHandle` or nil (`/dev/null`).
    package var standardInput: Any?
    package var standardOutput: Any?
    package var standardError: Any?
    /// Called once, on a thread of its own, when the child has ended and been reaped.
    package var terminationHandler: (@Sendable (SpawnedProcess) -> Void)?

    private struct State {
        var pid: pid_t = 0
        var end: ProcessEnd?
    }

    private let state = Mutex(State())

    package init() {}

    /// The child's process ID; 0 before `run()`.
    package var processIdentifier: Int32 { self.state.withLock { $0.pid } }

    /// How the child ended; nil while it runs (or before `run()`). Asked of the kernel each time until then,
    /// so it is right the moment the child ends.
    package var ended: ProcessEnd? {
        self.state.withLock { state in
            if let end = state.end { return end }
            guard state.pid > 0 else { return nil }
            var info = siginfo_t()
            // WNOWAIT: the watching thread reaps it, under this lock.
            guard waitid(P_PID, id_t(state.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0,
                info._sifields._sigchld.si_pid == state.pid
            else { return nil }
            return Self.end(of: info)
        }
    }

    package var isRunning: Bool { self.processIdentifier > 0 && self.ended == nil }

    /// The exit status or the signal's number, as Foundation's; only after the child ended.
    package var terminationStatus: Int32 {
        guard let end = self.ended else { preconditionFailure("\(self.executableURL?.path ?? "the child") still runs") }
        return end.status
    }

    /// Sends SIGTERM to the child, if it has not been reaped.
    package func terminate() { self.signal(SIGTERM) }

    /// Sends `signal` to the child, if it has not been reaped.
    package func signal(_ signal: Int32) {
        self.state.withLock { state in
            if state.pid > 0 && state.end == nil { kill(state.pid, signal) }
        }
    }

    /// Starts the child. Throws what `posix_spawn` said when it could not.
    package func run() throws {
        guard let path = self.executableURL?.path else { throw FixtureError("SpawnedProcess.run: no executableURL") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let devNull = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if devNull >= 0 { close(devNull) } }
        for (target, source) in [(STDIN_FILENO, self.standardInput), (STDOUT_FILENO, self.standardOutput), (STDERR_FILENO, self.standardError)] {
            posix_spawn_file_actions_adddup2(&actions, Self.descriptor(source, for: target) ?? devNull, target)
        }
        ChildDescriptors.closeInherited(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = ([path] + self.arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let environment = self.environment ?? ProcessInfo.processInfo.environment
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }

        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw FixtureError("cannot start \(path): \(String(cString: strerror(result))) (posix_spawn, errno \(result))")
        }
        self.state.withLock { $0.pid = pid }
        // The child has its copies; the parent's would keep a reader from ever seeing the end of file.
        if let pipe = self.standardInput as? Pipe { try? pipe.fileHandleForReading.close() }
        if let pipe = self.standardOutput as? Pipe { try? pipe.fileHandleForWriting.close() }
        if let pipe = self.standardError as? Pipe, pipe !== self.standardOutput as? Pipe { try? pipe.fileHandleForWriting.close() }
        let child = pid
        Thread.detachNewThread { self.watch(child) }
    }

    /// Waits for the child to end, then reaps it under the lock and calls the termination handler.
    private func watch(_ pid: pid_t) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 {
            guard errno == EINTR else { return }
        }
        self.state.withLock { state in
            var reaped = siginfo_t()
            _ = waitid(P_PID, id_t(pid), &reaped, WEXITED | WNOHANG)
            state.end = Self.end(of: info)
        }
        self.terminationHandler?(self)
    }

    private static func end(of info: siginfo_t) -> ProcessEnd {
        ProcessEnd(status: info._sifields._sigchld.si_status, signaled: Int(info.si_code) != Int(CLD_EXITED))
    }

    /// The descriptor the child's `target` is to be: a pipe's end for that direction, or a file handle's; nil
    /// for `/dev/null`.
    private static func descriptor(_ source: Any?, for target: Int32) -> Int32? {
        switch source {
        case let pipe as Pipe:
            target == STDIN_FILENO ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor
        case let handle as FileHandle:
            // FileHandle.nullDevice has no descriptor (-1).
            handle.fileDescriptor >= 0 ? handle.fileDescriptor : nil
        default:
            nil
        }
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
                self.signal(SIGKILL)
                let killed = Date().addingTimeInterval(5)
                while self.ended == nil && Date() < killed { usleep(5_000) }
                return nil
            }
            usleep(5_000)
        }
    }
}
