import AttendantPluginAPI
import AttendantPluginKit
import Glibc
import Synchronization

/// Runs a program with `posix_spawn` and collects what it prints, for token commands.
///
/// - The child gets `/dev/null` as standard input and no other descriptor of the daemon's (its sockets
///   above all: ``ChildDescriptors``), default signal dispositions and an empty signal mask (the daemon
///   ignores or blocks signals that a child would otherwise inherit), and a process group of its own, so
///   that stopping it also stops what it started (`sh -c`, `pass` calling `gpg`).
/// - Its output is read on a thread of its own, never on the concurrency pool.
/// - Cancelling the calling task stops it: SIGTERM to its process group, then SIGKILL if it is still
///   there after ``killGrace``. The call returns once it is gone (within 100 ms of the cancellation
///   for a child that obeys SIGTERM).
struct ChildProcess: Sendable {
    var arguments: [String]
    /// Added to (or replacing in) the daemon's environment.
    var environment: [String: String] = [:]
    /// Standard output beyond this is dropped (and reported as truncated).
    var outputLimit = 64 * 1024
    /// How long a child has between SIGTERM and SIGKILL.
    var killGrace: Duration = .seconds(2)

    struct Outcome: Sendable {
        enum Termination: Sendable, Hashable {
            case exited(Int32)
            case signalled(Int32)
        }
        var termination: Termination
        var output: [UInt8]
        var outputTruncated: Bool
        /// The end of what it printed on standard error.
        var errorTail: [UInt8]
        /// It was stopped with SIGTERM or SIGKILL because the caller was cancelled.
        var stopped: Bool

        /// The last non-empty line of standard error, cleaned for a message (nil when there is none).
        var lastErrorLine: String? {
            let lines = String(decoding: self.errorTail, as: UTF8.self).split(whereSeparator: \.isNewline)
            guard let last = lines.last(where: { !$0.allSatisfy(\.isWhitespace) }) else { return nil }
            let cleaned = String(last.map { $0.isASCII && ($0.asciiValue! < 0x20 || $0.asciiValue! == 0x7F) ? " " : $0 })
                .trimmingCharacters(in: " \t")
            return cleaned.count > 200 ? String(cleaned.prefix(197)) + "..." : String(cleaned)
        }
    }

    /// The program could not be started.
    struct SpawnError: Error, CustomStringConvertible {
        var program: String
        var errno: Int32
        var description: String { "cannot run \(self.program): \(String(cString: strerror(self.errno)))" }
    }

    /// Runs the program to its end (or until cancelled, then stops it) and returns what happened.
    func run() async throws -> Outcome {
        precondition(!self.arguments.isEmpty, "a command needs a program")
        let running = try self.spawn()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let collector = Collector(running: running, limit: self.outputLimit, grace: self.killGrace) { continuation.resume(returning: $0) }
                Thread.detach { collector.collect() }
            }
        } onCancel: {
            running.requestStop()
        }
    }

    // MARK: Spawning

    private func spawn() throws -> Running {
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        guard Self.pipe(&output) == 0 else { throw SpawnError(program: self.arguments[0], errno: errno) }
        guard Self.pipe(&errors) == 0 else {
            let saved = errno
            close(output[0])
            close(output[1])
            throw SpawnError(program: self.arguments[0], errno: saved)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
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

        let argv = self.arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp = Self.environment(adding: self.environment).map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }

        var pid: pid_t = 0
        let result = posix_spawnp(&pid, self.arguments[0], &actions, &attributes, argv, envp)
        close(output[1])
        close(errors[1])
        guard result == 0 else {
            close(output[0])
            close(errors[0])
            throw SpawnError(program: self.arguments[0], errno: result)
        }
        return Running(pid: pid, output: output[0], errors: errors[0])
    }

    /// A pipe whose ends close on exec (Glibc's module has no `pipe2`; the window before `FD_CLOEXEC`
    /// is set is a few instructions).
    private static func pipe(_ fds: inout [Int32]) -> Int32 {
        guard Glibc.pipe(&fds) == 0 else { return -1 }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return 0
    }

    private static func environment(adding extra: [String: String]) -> [String] {
        var entries: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            let name = text.prefix { $0 != "=" }
            if extra[String(name)] == nil { entries.append(text) }
            pointer += 1
        }
        for (name, value) in extra.sorted(by: { $0.key < $1.key }) { entries.append("\(name)=\(value)") }
        return entries
    }

    // MARK: The running child

    /// A started child; the caller's wish to stop it, which its collector carries out (so only the
    /// collector ever signals, and never a process it already reaped).
    final class Running: Sendable {
        let pid: pid_t
        let output: Int32
        let errors: Int32
        private let stop = Atomic<Bool>(false)

        init(pid: pid_t, output: Int32, errors: Int32) {
            self.pid = pid
            self.output = output
            self.errors = errors
        }

        func requestStop() { self.stop.store(true, ordering: .releasing) }
        var stopRequested: Bool { self.stop.load(ordering: .acquiring) }
    }

    /// Reads both pipes until the child is done, signals it when asked, reaps it, and reports.
    private final class Collector: Sendable {
        let running: Running
        let limit: Int
        let grace: Duration
        let report: @Sendable (Outcome) -> Void

        init(running: Running, limit: Int, grace: Duration, report: @escaping @Sendable (Outcome) -> Void) {
            self.running = running
            self.limit = limit
            self.grace = grace
            self.report = report
        }

        func collect() {
            var output: [UInt8] = []
            var truncated = false
            var errorTail: [UInt8] = []
            var fds = [
                pollfd(fd: self.running.output, events: Int16(POLLIN), revents: 0),
                pollfd(fd: self.running.errors, events: Int16(POLLIN), revents: 0),
            ]
            var terminatedAt: Double?
            var killed = false
            var exitStatus: Int32?
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)

            while fds[0].fd >= 0 || fds[1].fd >= 0 {
                // Short poll steps: to notice a stop request, to send SIGKILL on time, and to notice the
                // child's exit when something it left behind keeps a pipe open.
                let ready = poll(&fds, nfds_t(fds.count), terminatedAt == nil ? 100 : 20)
                if ready < 0 && errno != EINTR { break }
                for index in 0..<2 where fds[index].fd >= 0 && fds[index].revents != 0 {
                    let count = buffer.withUnsafeMutableBytes { read(fds[index].fd, $0.baseAddress, $0.count) }
                    if count > 0 {
                        if index == 0 {
                            let room = max(0, self.limit - output.count)
                            output += buffer[0..<min(count, room)]
                            if count > room { truncated = true }
                        } else {
                            errorTail += buffer[0..<count]
                            if errorTail.count > 4096 { errorTail.removeFirst(errorTail.count - 4096) }
                        }
                    } else if count == 0 || errno != EINTR {
                        close(fds[index].fd)
                        fds[index].fd = -1
                    }
                }
                if self.running.stopRequested, terminatedAt == nil {
                    kill(-self.running.pid, SIGTERM)
                    terminatedAt = Self.monotonicNow()
                }
                if let sent = terminatedAt, !killed, Self.monotonicNow() - sent >= self.grace.seconds {
                    kill(-self.running.pid, SIGKILL)
                    killed = true
                }
                if exitStatus == nil {
                    var status: Int32 = 0
                    if waitpid(self.running.pid, &status, WNOHANG) == self.running.pid { exitStatus = status }
                }
                // The child is gone and the pipes are quiet, but something it started holds one open.
                if exitStatus != nil, ready == 0 { break }
            }
            for index in 0..<2 where fds[index].fd >= 0 { close(fds[index].fd) }
            if exitStatus == nil {
                var status: Int32 = 0
                while waitpid(self.running.pid, &status, 0) < 0 && errno == EINTR {}
                exitStatus = status
            }
            let status = exitStatus ?? 0
            let termination: Outcome.Termination =
                status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
            self.report(
                Outcome(termination: termination, output: output, outputTruncated: truncated, errorTail: errorTail, stopped: terminatedAt != nil)
            )
        }

        static func monotonicNow() -> Double {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        }
    }
}

/// A detached POSIX thread, for work that blocks (reading a child's pipes).
enum Thread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    static func detach(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread,
            nil,
            { context in
                let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
                box.body()
                return nil
            },
            context
        )
        if result == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
        }
    }
}
