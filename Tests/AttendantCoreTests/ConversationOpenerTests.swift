import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation
import TestSupport
import Testing

/// ``ConversationOpener``: which terminal opens a chat's conversation view, with what words, and what the
/// journal says when none can.
@Suite struct ConversationOpenerTests {
    /// A folder of fake programs, each writing its arguments, one a line, to `<name>.args` and exiting with
    /// `status`.
    struct Programs {
        let folder: String

        init(_ names: [String], status: Int32 = 0) throws {
            self.folder = try makeTemporaryFolder("attendant-terminals")
            for name in names {
                let script = "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"\(self.folder)/\(name).args\"\nexit \(status)\n"
                try script.write(toFile: "\(self.folder)/\(name)", atomically: true, encoding: .utf8)
                chmod("\(self.folder)/\(name)", 0o755)
            }
        }

        func arguments(of name: String) -> [String]? {
            (try? String(contentsOfFile: "\(self.folder)/\(name).args", encoding: .utf8)).map { $0.split(separator: "\n").map(String.init) }
        }

        func opener(terminal: [String]? = nil, records: LogRecords = LogRecords()) -> ConversationOpener {
            ConversationOpener(
                terminal: terminal,
                environment: ["PATH": self.folder],
                executableDirectory: nil,
                logger: Logger(label: "test") { _ in RecordingLogHandler(records: records) },
                // The fake terminals exit at once; a busy machine may take seconds to run them, which must not
                // count as a terminal that stays open (it did, with the daemon's 2 s, under load).
                settle: .seconds(60)
            )
        }
    }

    static let view = ["attendantctl", "chat", "talk", "--channel", "chat", "--thread", "t1"]

    @Test func xdgTerminalExecComesFirstThenDebiansAlternativeThenNothing() throws {
        let both = try Programs(["xdg-terminal-exec", "x-terminal-emulator"])
        #expect(try both.opener().command(channel: "chat", thread: "t1").get() == ["\(both.folder)/xdg-terminal-exec"] + Self.view)
        let debian = try Programs(["x-terminal-emulator"])
        #expect(try debian.opener().command(channel: "chat", thread: "t1").get() == ["\(debian.folder)/x-terminal-emulator", "-e"] + Self.view)
        let none = try Programs([])
        guard case .failure(let error) = none.opener().command(channel: "chat", thread: "t1") else {
            Issue.record("a terminal was found in an empty folder")
            return
        }
        #expect(error.message.contains("set [alerts] terminal"))
    }

    @Test func theConfiguredTerminalWinsAndAReloadChangesIt() throws {
        let programs = try Programs(["xdg-terminal-exec"])
        let opener = programs.opener(terminal: ["gnome-terminal", "--"])
        #expect(try opener.command(channel: "chat", thread: "t1").get() == ["gnome-terminal", "--"] + Self.view)
        opener.update(terminal: nil)
        #expect(try opener.command(channel: "chat", thread: "t1").get().first == "\(programs.folder)/xdg-terminal-exec")
    }

    @Test func openingRunsTheTerminalWithTheViewAndATerminalThatFailsIsNamed() async throws {
        let programs = try Programs(["xdg-terminal-exec"])
        let records = LogRecords()
        await programs.opener(records: records).open(channel: "chat", thread: "t1")
        #expect(programs.arguments(of: "xdg-terminal-exec") == Array(Self.view))
        #expect(records.all.contains { $0.message == "opened the conversation of thread t1 with \(programs.folder)/xdg-terminal-exec" })

        let failing = try Programs(["broken-terminal"], status: 3)
        let failures = LogRecords()
        await failing.opener(terminal: ["\(failing.folder)/broken-terminal"], records: failures).open(channel: "chat", thread: "t1")
        #expect(
            failures.all.contains {
                $0.message
                    == "cannot open the conversation of thread t1: \(failing.folder)/broken-terminal exited with status 3; check [alerts] terminal"
            },
            "\(failures.all.map(\.message))"
        )
    }
}
