import Glibc

/// Reads the configuration's files once in a child process before a running daemon reads them on a
/// reload. TOMLKit's parser, toml++ 3.4, fails its own assertions on some invalid TOML and aborts the
/// process, in release builds too (``TOMLPrescan`` refuses each such text found so far; fuzzing may find
/// more). A daemon that aborted on a reload after a typo would miss every contact until someone restarted
/// it; a child that aborts costs nothing, and the reload is refused with the running configuration kept.
///
/// The child is attendantd itself with `--cat-config` and the files by name: it reads, checks and merges
/// them exactly as the daemon does, prints the listing (dropped) and exits. A configuration error makes it
/// exit 1, and the daemon's own reading then reports it in full; only a child killed by a signal, or one
/// that does not finish within ``limit``, refuses the reload here.
package struct ConfigurationReadCheck: Sendable {
    /// The program and the arguments before the files: `["/proc/self/exe", "--cat-config"]`.
    package var command: [String]
    package var limit: Duration

    package init(command: [String], limit: Duration = .seconds(20)) {
        self.command = command
        self.limit = limit
    }

    /// attendantd itself: the running binary, even if the package was upgraded meanwhile.
    package static let attendantd = ConfigurationReadCheck(command: ["/proc/self/exe", "--cat-config"])

    /// Reads `files` in the child; throws when the reader stopped on them.
    ///
    /// A child that cannot be started is no reason to refuse a reload: the daemon then reads the files
    /// itself, as it did before this check existed, and `warn` says why.
    package func check(_ files: [String], warn: @Sendable (String) -> Void) async throws(ConfigurationError) {
        let process = ChildProcess(arguments: self.command + files.flatMap { ["--config", $0] }, outputLimit: 4096)
        let outcome: ChildProcess.Outcome?
        do {
            outcome = try await Self.run(process, within: self.limit)
        } catch {
            warn("could not read the configuration in a child process first (\(error)); reading it in the daemon")
            return
        }
        let named = files.joined(separator: ", ")
        guard let outcome else {
            throw ConfigurationError(
                .init(
                    .syntax,
                    "reading \(named) did not finish within \(self.limit) (in a child process, which was stopped); the running configuration stays. Look for a file that is not TOML, or very large."
                )
            )
        }
        if case .signalled(let signal) = outcome.termination {
            let name = String(cString: strsignal(signal))
            throw ConfigurationError(
                .init(
                    .syntax,
                    "the TOML reader stopped on \(named) (\(name), in a child process) instead of reporting an error: it is invalid TOML that toml++ cannot report. The running configuration stays. Undo the last change, or find the line by checking copies of the file with attendantd --check-config --config FILE."
                )
            )
        }
    }

    /// The child's outcome, or nil when it was stopped after `limit`.
    private static func run(_ process: ChildProcess, within limit: Duration) async throws -> ChildProcess.Outcome? {
        try await withThrowingTaskGroup(of: ChildProcess.Outcome?.self) { group in
            group.addTask { try await process.run() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}
