import AttendantPluginAPI
import AttendantPluginKit
import Dispatch
import Glibc
import SIPCore

/// Runs the configured `answer-command` for an accepted call and reads where to send the call.
///
/// The command gets the call in its environment (`ATTENDANT_CHANNEL`, `ATTENDANT_CALL_ID`,
/// `ATTENDANT_CALLER_NAME`, `ATTENDANT_CALLER_URI`, `ATTENDANT_CALLEE_URI`), typically starts or wakes a
/// softphone, and prints the SIP address the call should be redirected to (`302`) as its first line. It
/// runs in a process group of its own; one that does not answer within the time limit is killed. With
/// `accept = "softphone"` it instead tells the softphone to answer (``tellSoftphone(environment:)``).
struct AnswerCommand: Sendable {
    var argv: [String]
    var timeout: Duration

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func run(environment extra: [String: String]) async throws(Failure) -> SIPNameAddress {
        let argv = self.argv
        let timeout = self.timeout
        // Spawning and reading block: on a serial queue of its own, which costs nothing while idle (no
        // wake-ups, unlike a concurrent queue; DESIGN.md section 8).
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<String, Failure>, Never>) in
            DispatchQueue(label: "attendant.sip-voice.answer-command").async {
                continuation.resume(returning: Self.spawnAndRead(argv: argv, environment: extra, timeout: timeout))
            }
        }
        let line = try result.get()
        do {
            let contact = try SIPNameAddress(parsing: line)
            guard contact.uri.isSIP else { throw Failure(description: "answer-command \(argv[0]) printed \"\(line)\", not a sip: address") }
            return contact
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(
                description:
                    "answer-command \(argv[0]) printed \"\(line)\", which is not a SIP address (\(error)); it should print where to send the call, such as sip:me@127.0.0.1:5070"
            )
        }
    }

    /// With `accept = "softphone"`: runs the command, which tells the softphone ringing beside this channel to
    /// answer, and waits for it to end; exit status 0 within the time limit is success. Its output is not
    /// read (it goes to /dev/null; standard error to the journal).
    func tellSoftphone(environment extra: [String: String]) async throws(Failure) {
        let argv = self.argv
        let timeout = self.timeout
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, Failure>, Never>) in
            DispatchQueue(label: "attendant.sip-voice.answer-command").async {
                continuation.resume(returning: Self.spawnAndWait(argv: argv, environment: extra, timeout: timeout))
            }
        }
        try result.get()
    }

    /// Blocking: spawns the command and reaps it, killing its process group when it outlives `timeout`.
    private static func spawnAndWait(argv: [String], environment extra: [String: String], timeout: Duration) -> Result<Void, Failure> {
        let program = argv[0]
        let pid: pid_t
        switch Self.spawn(argv: argv, environment: extra, output: nil) {
        case .success(let started): pid = started
        case .failure(let failure): return .failure(failure)
        }
        let deadline = monotonicMilliseconds() + Int64(timeout.seconds * 1000)
        var status: Int32 = 0
        var exited = waitpid(pid, &status, WNOHANG) == pid
        while !exited, monotonicMilliseconds() < deadline {
            usleep(5_000)
            exited = waitpid(pid, &status, WNOHANG) == pid
        }
        guard exited else {
            kill(-pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            return .failure(
                Failure(
                    description:
                        "answer-command \(program) did not finish within \(timeout.seconds) s and was stopped; is the softphone running and listening for its control commands?"
                )
            )
        }
        guard (status & 0x7f) == 0 else {
            return .failure(Failure(description: "answer-command \(program) was killed by signal \(status & 0x7f)"))
        }
        let code = (status >> 8) & 0xff
        guard code == 0 else {
            return .failure(
                Failure(
                    description:
                        "answer-command \(program) exited with status \(code); run it by hand to see why (its standard error is in the daemon's log), and check that the softphone is running with its control module"
                )
            )
        }
        return .success(())
    }

    /// Blocking: spawns the command, reads its first line of output, reaps it.
    private static func spawnAndRead(argv: [String], environment extra: [String: String], timeout: Duration) -> Result<String, Failure> {
        let program = argv[0]
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            return .failure(Failure(description: "answer-command \(program): cannot make a pipe: \(String(cString: strerror(errno)))"))
        }
        defer { close(pipeEnds[0]) }
        // Neither end leaks into other children; dup2 onto the command's stdout clears the flag there.
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let spawned = Self.spawn(argv: argv, environment: extra, output: pipeEnds[1])
        close(pipeEnds[1])
        let pid: pid_t
        switch spawned {
        case .success(let started): pid = started
        case .failure(let failure): return .failure(failure)
        }

        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = monotonicMilliseconds() + Int64(timeout.seconds * 1000)
        var timedOut = false
        reading: while output.count < 4096, !output.contains(10) {
            let left = deadline - monotonicMilliseconds()
            guard left > 0 else {
                timedOut = true
                break
            }
            var descriptor = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(left, 60_000)))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break reading }
            output += buffer[0..<count]
        }
        if timedOut || !output.contains(10) {
            // It printed its line or nothing more is coming: it may keep running (a softphone it started
            // lives in its own group); only a command that printed nothing in time is stopped.
            if timedOut { kill(-pid, SIGKILL) }
        }
        var status: Int32 = 0
        if timedOut {
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            return .failure(Failure(description: "answer-command \(program) printed no address within \(timeout.seconds) s and was stopped"))
        }
        let firstLine = String(decoding: output.prefix { $0 != 10 }, as: UTF8.self).trimmingSpaces
        if firstLine.isEmpty {
            // It closed its output without answering: wait (within the time limit) for its exit status.
            var exited = waitpid(pid, &status, WNOHANG) == pid
            while !exited, monotonicMilliseconds() < deadline {
                usleep(5_000)
                exited = waitpid(pid, &status, WNOHANG) == pid
            }
            if !exited {
                kill(-pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            }
        } else if waitpid(pid, &status, WNOHANG) == 0 {
            // A command that keeps running after printing its answer (it started a softphone) is reaped later.
            Self.reapLater(pid)
        }
        guard !firstLine.isEmpty else {
            let exit = (status & 0x7f) == 0 ? "exited with status \((status >> 8) & 0xff)" : "was killed by signal \(status & 0x7f)"
            return .failure(Failure(description: "answer-command \(program) \(exit) without printing where to send the call"))
        }
        return .success(firstLine)
    }

    /// Blocking: starts the command in a process group of its own, its standard input /dev/null, its output
    /// `output` (nil: /dev/null), its standard error the daemon's (the journal), no other descriptor of
    /// the daemon's, the call in its environment.
    private static func spawn(argv: [String], environment extra: [String: String], output: Int32?) -> Result<pid_t, Failure> {
        let program = argv[0]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let output {
            posix_spawn_file_actions_adddup2(&actions, output, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        // Standard error stays the daemon's (the journal); nothing else of the daemon's goes along.
        ChildDescriptors.closeInherited(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaultSignals = sigset_t()
        sigfillset(&defaultSignals)
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        var environment: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            let name = text.prefix { $0 != "=" }
            if extra[String(name)] == nil { environment.append(text) }
            entry += 1
        }
        environment += extra.map { "\($0.key)=\($0.value)" }

        var pid: pid_t = 0
        let spawned = withCStrings(argv) { cArgv in
            withCStrings(environment) { cEnvironment in
                posix_spawn(&pid, program, &actions, &attributes, cArgv, cEnvironment)
            }
        }
        guard spawned == 0 else {
            return .failure(Failure(description: "answer-command \(program) could not be started: \(String(cString: strerror(spawned)))"))
        }
        return .success(pid)
    }

    private static func reapLater(_ pid: pid_t) {
        // A queue of its own: the wait lasts as long as the softphone runs, and must hold up nothing else.
        DispatchQueue(label: "attendant.sip-voice.reap").async {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
    }

    private static func monotonicMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}

private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(self.drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
