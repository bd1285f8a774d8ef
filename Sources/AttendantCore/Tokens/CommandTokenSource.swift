import AttendantPluginAPI
import Glibc

/// `token-command`: runs the command; its standard output, trimmed, is the token.
///
/// The command gets the daemon's environment plus `ATTENDANT_CHANNEL` (the channel's name), `/dev/null`
/// as input and a process group of its own; when it takes longer than `token-timeout` the group gets
/// SIGTERM, then SIGKILL. Messages name the program only (its arguments may hold secrets) and quote
/// the last line of its standard error, never its standard output.
struct CommandTokenSource: TokenSource {
    var command: ChildProcess
    let description: String

    func fetch() async throws -> String {
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await self.command.run()
        } catch let error as ChildProcess.SpawnError {
            throw TokenError(.source, "\(self.description) could not be started: \(String(cString: strerror(error.errno)))")
        }
        try Task.checkCancellation()
        let said = outcome.lastErrorLine.map { ": \($0)" } ?? " (and printed nothing on standard error)"
        switch outcome.termination {
        case .exited(0):
            break
        case .exited(let status):
            throw TokenError(.source, "\(self.description) exited with status \(status)\(said)")
        case .signalled(let signal):
            throw TokenError(.source, "\(self.description) was killed by signal \(signal) (\(String(cString: strsignal(signal))))\(said)")
        }
        guard !outcome.outputTruncated else {
            throw TokenError(
                .malformed,
                "\(self.description) printed more than \(self.command.outputLimit / 1024) KiB; it must print the token alone"
            )
        }
        let text = String(decoding: outcome.output, as: UTF8.self)
        guard !text.allSatisfy(\.isWhitespace) else {
            let stderr = outcome.lastErrorLine.map { "; its standard error said: \($0)" } ?? ""
            throw TokenError(.empty, "\(self.description) printed nothing on standard output (exit status 0)\(stderr)")
        }
        return text
    }

    func timeoutMessage(_ limit: Duration) -> String {
        "\(self.description) did not finish within \(limit.seconds.formatted) s and was killed"
    }
}
