import AttendantPluginAPI

/// Where a token comes from: a command, a URL, a file or a systemd credential.
///
/// Obligations: ``fetch()`` returns the text as the source gives it (the manager trims and inspects
/// it) and returns promptly when its task is cancelled (the manager cancels it after `token-timeout`).
/// Errors are ``TokenError``s whose messages name the source (``description``) and never contain the
/// token or anything else the source gave as its answer.
package protocol TokenSource: Sendable, CustomStringConvertible {
    func fetch() async throws -> String

    /// The message when the source took longer than `limit`.
    func timeoutMessage(_ limit: Duration) -> String

    /// Calls `onChange` whenever the source may have a new token, until the calling task is cancelled;
    /// sources that cannot tell return at once and are asked on the renewal schedule only. Throws when
    /// the source could tell but its watch cannot start.
    func watchChanges(_ onChange: @escaping @Sendable () -> Void) async throws(TokenError)
}

extension TokenSource {
    package func timeoutMessage(_ limit: Duration) -> String {
        "\(self) gave no token within \(limit.seconds.formatted) s"
    }

    package func watchChanges(_ onChange: @escaping @Sendable () -> Void) async throws(TokenError) {}
}

extension TokenSettings.Source {
    /// The source these settings describe.
    ///
    /// - Parameters:
    ///   - channel: the channel's name, given to a command as `ATTENDANT_CHANNEL`.
    ///   - environment: the daemon's environment (`HOME` for `~/`, `CREDENTIALS_DIRECTORY`).
    package func makeSource(channel: String, environment: [String: String]) -> any TokenSource {
        switch self {
        case .command(let arguments):
            var command = ChildProcess(arguments: arguments)
            command.arguments[0] = Paths.expandingTilde(arguments[0], environment: environment)
            command.environment = ["ATTENDANT_CHANNEL": channel]
            return CommandTokenSource(command: command, description: self.description)
        case .url(let url, let method, let field):
            return URLTokenSource(url: url, method: method, field: field, description: self.description)
        case .file(let path):
            return FileTokenSource(path: .file(Paths.expandingTilde(path, environment: environment)), description: self.description)
        case .credential(let name):
            let directory = environment["CREDENTIALS_DIRECTORY"].flatMap { $0.isEmpty ? nil : $0 }
            return FileTokenSource(path: .credential(name, directory: directory), description: self.description)
        }
    }
}
