public import ArgumentParser
import AttendantControl
import Glibc

/// `attendantctl`: the client of attendantd's control API on the session bus.
///
/// The command tree lives in this library so tests can parse commands in-process; the `attendantctl`
/// executable only calls ``main(arguments:)``.
public struct Attendantctl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "attendantctl",
        abstract: "Control attendantd, the Attendant user daemon, over the session bus.",
        discussion: """
            attendantctl talks to attendantd through its D-Bus interface org.attendant.Attendant1 on the \
            session bus ($DBUS_SESSION_BUS_ADDRESS). Without a command it shows the status. Every command \
            takes --json and then prints one JSON object (or array) on one line, with the keys listed in \
            the command's --help; keys are never renamed or dropped, absent values are null, times are \
            Unix seconds. With --json, errors are also printed to standard output, as an object with \
            the key error whose value has the keys code (notRunning, noBus, refused, failed), name (the \
            daemon's D-Bus error name, or null) and message.

            Exit status: 0 on success; 1 when attendantd answered with an error (no such channel or \
            contact, the channel refused, the reload failed, ...) or the bus failed; 3 when attendantd is \
            not running or there is no session bus; 64 for a usage error. health exits with the \
            monitoring-plugin codes instead: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (also for usage \
            errors).

            Shell completions: attendantctl --generate-completion-script bash|zsh|fish.
            """,
        version: "attendantctl 0.1.0",
        subcommands: [
            Status.self, Channels.self, Contacts.self, Accept.self, Decline.self, Token.self, Reload.self,
            DoNotDisturb.self, Monitor.self, Health.self, Metrics.self, Chat.self, Actions.self,
        ],
        defaultSubcommand: Status.self
    )

    public init() {}

    /// Exit status when attendantd cannot be reached (not running, no session bus).
    public static let notRunningExitCode: Int32 = 3

    /// Runs the command `arguments` name. Like `main()`, except that a usage error of `health` exits
    /// with UNKNOWN (3) and a plugin line, as monitoring systems expect of a plugin.
    public static func main(arguments: [String]) async {
        do {
            var command = try await self.asyncParseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            if self.exitCode(for: error) == .validationFailure, arguments.first(where: { !$0.hasPrefix("-") }) == "health" {
                Terminal.out("ATTENDANT UNKNOWN - " + Table.oneLine(self.message(for: error)))
                self.exit(withError: ExitCode(HealthReport.Status.unknown.exitCode))
            }
            self.exit(withError: error)
        }
    }
}

/// `--json`, on every command.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON for scripts (the keys are listed above).")
    var json = false
}
