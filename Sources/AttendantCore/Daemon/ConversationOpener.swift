package import AttendantPluginAPI
import Foundation
import Synchronization

/// Opens a chat's conversation view, `attendantctl chat talk --channel C --thread T`, in a new terminal
/// window: what a chat notification's default action does, and its Reply button where the notification
/// server has no text field of its own.
///
/// The terminal is `[alerts] terminal` (a program and its first arguments, the command following, such as
/// `["foot"]` or `["gnome-terminal", "--"]`); without it, `xdg-terminal-exec` (the proposed
/// freedesktop default-terminal launcher, which takes the command as its arguments) where it is installed,
/// otherwise Debian's `x-terminal-emulator` alternative, which every terminal package that provides it
/// runs with `-e` followed by the command (Debian Policy 11.8.3).
package final class ConversationOpener: Sendable {
    private let terminal: Mutex<[String]?>
    /// `attendantctl`: the one beside this daemon, else the one on `PATH`.
    private let attendantctl: String
    private let searchPath: String
    private let logger: Logger
    /// How long the terminal has to fail before it counts as open.
    private let settle: Duration

    /// `settle`: a terminal still running after it has opened its window (tests wait for their fake
    /// terminal's exit instead).
    package init(terminal: [String]?, environment: [String: String], executableDirectory: String?, logger: Logger, settle: Duration = .seconds(2)) {
        self.terminal = Mutex(terminal)
        self.settle = settle
        self.searchPath = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let beside = executableDirectory.map { $0 + "/attendantctl" }
        self.attendantctl = beside.flatMap { access($0, X_OK) == 0 ? $0 : nil } ?? "attendantctl"
        self.logger = logger
    }

    /// A reloaded `[alerts] terminal`.
    package func update(terminal: [String]?) {
        self.terminal.withLock { $0 = terminal }
    }

    /// The words to run for `channel`'s `thread`, or why there are none.
    package func command(channel: String, thread: String) -> Result<[String], ConversationOpenerError> {
        let view = [self.attendantctl, "chat", "talk", "--channel", channel, "--thread", thread]
        if let terminal = self.terminal.withLock({ $0 }) { return .success(terminal + view) }
        if let launcher = self.find("xdg-terminal-exec") { return .success([launcher] + view) }
        if let alternative = self.find("x-terminal-emulator") { return .success([alternative, "-e"] + view) }
        return .failure(
            ConversationOpenerError(
                "no terminal to open the conversation in: neither xdg-terminal-exec nor x-terminal-emulator is installed; set [alerts] terminal to your terminal's command, such as [\"foot\"] or [\"gnome-terminal\", \"--\"]"
            )
        )
    }

    /// Opens the view; the outcome goes to the journal (the person clicked a notification: there is no one
    /// else to tell).
    package func open(channel: String, thread: String) async {
        let metadata: Logger.Metadata = ["channel": "\(channel)"]
        switch self.command(channel: channel, thread: thread) {
        case .failure(let error):
            self.logger.warning("cannot open the conversation of thread \(thread): \(error.message)", metadata: metadata)
        case .success(let words):
            // A terminal stays in the foreground for as long as its window is open, or hands the window to
            // a server and exits 0: both mean it opened.
            switch await LinkOpener.run(words, within: self.settle) {
            case .exited(0), .still:
                self.logger.info("opened the conversation of thread \(thread) with \(words[0])", metadata: metadata)
            case let other:
                self.logger.warning(
                    "cannot open the conversation of thread \(thread): \(words[0]) \(other); check [alerts] terminal",
                    metadata: metadata
                )
            }
        }
    }

    /// The program's path on the daemon's `PATH`, run as found (not looked up again).
    private func find(_ program: String) -> String? {
        self.searchPath.split(separator: ":").lazy.map { "\($0)/\(program)" }.first { access($0, X_OK) == 0 }
    }
}

package struct ConversationOpenerError: Error, Sendable, Equatable, CustomStringConvertible {
    package let message: String
    init(_ message: String) { self.message = message }
    package var description: String { self.message }
}
