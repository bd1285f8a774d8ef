import DaemonTestSupport
import Foundation
import TestSupport
import Testing

/// `attendantd --help` is wrapped by the argument parser to the terminal's width, not at line breaks
/// written into the source.
@Suite struct HelpTests {
    static func help(columns: Int) async throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "\(columns)"
        let (status, output) = try await run(BuildProducts.attendantd, ["--help"], environment: environment)
        #expect(status == 0, "\(output)")
        return output
    }

    @Test func theDiscussionIsWrappedToTheTerminalNotMidSentence() async throws {
        let wide = try await Self.help(columns: 400)
        for sentence in [
            "attendantd runs as a systemd user service (systemctl --user start attendantd), loads a plugin for each [[channel]] and keeps every channel listening.",
            "Configuration: /etc/attendant/attendant.toml, /etc/attendant/attendant.toml.d/*.toml, then $XDG_CONFIG_HOME/attendant/attendant.toml (~/.config/attendant/attendant.toml) and its attendant.toml.d/*.toml; a later value overrides an earlier one, key by key. --config reads only the files it names. --cat-config shows the merged result and where each value comes from.",
            "Signals: SIGHUP re-reads the configuration and restarts only the channels whose settings changed; SIGTERM and SIGINT stop every channel gracefully.",
            "Exit status: 0 after a clean stop; 1 when --check-config finds problems or start-up fails; 78 (EX_CONFIG) when the daemon cannot start because of its configuration.",
        ] {
            #expect(wide.contains(sentence), "not on one line at 400 columns: \(sentence)\n\(wide)")
        }
        let narrow = try await Self.help(columns: 60)
        // The usage line is the parser's own and is never wrapped.
        let long = narrow.split(separator: "\n").filter { $0.count > 60 && !$0.hasPrefix("USAGE:") }
        #expect(long.isEmpty, "lines over 60 columns:\n\(long.joined(separator: "\n"))")
    }

    /// Without a configuration file the daemon says where it looked and where an example is: in a build from source, the
    /// checkout's (the package's attendantd names /usr/share/doc/attendant/examples/attendant.toml, which
    /// scripts/verify-package checks in a fresh root).
    @Test func withoutAConfigurationItSaysWhereTheExampleIs() async throws {
        let scratch = try Scratch()
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = scratch.path + "/config"
        let (status, output) = try await run(BuildProducts.attendantd, [], environment: environment)
        #expect(status == 78, "\(output)")
        let user = "\(scratch.path)/config/attendant/attendant.toml"
        #expect(
            output.contains(
                "no configuration: none of /etc/attendant/attendant.toml, /etc/attendant/attendant.toml.d/*.toml, \(user), \(user).d/*.toml exists"
            ),
            "\(output)"
        )
        #expect(output.contains("Create \(user) from examples/attendant.toml in the source, or try the demo: attendantd --demo"), "\(output)")
    }
}
