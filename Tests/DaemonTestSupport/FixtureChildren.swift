import Foundation
import Glibc
import Synchronization
package import TestSupport

/// The pids of every descendant of `pid` (from /proc/*/stat).
package func descendantProcesses(of pid: Int32) -> [Int32] {
    var children: [Int32: [Int32]] = [:]
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
        guard let child = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
            let close = stat.range(of: ")", options: .backwards)
        else { continue }
        // "pid (comm) state ppid ..."
        let fields = stat[close.upperBound...].split(separator: " ")
        if fields.count > 1, let parent = Int32(fields[1]) { children[parent, default: []].append(child) }
    }
    var result: [Int32] = []
    var queue = [pid]
    while let next = queue.popLast() {
        for child in children[next] ?? [] {
            result.append(child)
            queue.append(child)
        }
    }
    return result
}

/// Starts `executable arguments` through a shell that waits for it, for a daemon that closes every
/// inherited descriptor as it starts (kamailio, pulseaudio): among them is the socket through which
/// Foundation's Process learns that a child ended, and Process then blocks its one watcher thread in
/// waitpid() for that daemon, so no other child's end (kamcmd's, pactl's, ...) is seen until it exits. The
/// shell keeps that socket open and passes SIGTERM on.
package func fixtureDaemon(_ name: String, _ executable: String, _ arguments: [String], environment: [String: String]) throws -> FixtureProcess {
    let wrapper = """
        "$0" "$@" & child=$!
        trap 'kill -TERM $child 2>/dev/null' TERM INT
        status=0
        while kill -0 $child 2>/dev/null; do wait $child; status=$?; done
        exit $status
        """
    return try FixtureProcess(name, "/bin/sh", ["-c", wrapper, executable] + arguments, environment: environment)
}

/// The processes a fixture started, stopped in reverse order, and its scratch folder.
package final class FixtureChildren: Sendable {
    package let directory: String
    private let list = Mutex<[(process: FixtureProcess, stop: @Sendable (FixtureProcess) -> Void)]>([])

    package init(directory: String) { self.directory = directory }

    package func add(_ child: FixtureProcess, stop: @escaping @Sendable (FixtureProcess) -> Void = { $0.terminate() }) {
        self.list.withLock { $0.append((child, stop)) }
    }

    package func stop() {
        for entry in self.list.withLock({ list in
            let all = list
            list = []
            return all
        }).reversed() {
            entry.stop(entry.process)
        }
        try? FileManager.default.removeItem(atPath: self.directory)
    }

    deinit { self.stop() }
}
