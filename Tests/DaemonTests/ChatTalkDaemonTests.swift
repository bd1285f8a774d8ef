import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// `attendantctl chat talk` as a person uses it: in a real terminal (a detached tmux session of a fixed
/// size on a private server), typed into with send-keys and read back with capture-pane, against the real
/// daemon and its chat channels. Every wait is on what the pane shows.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ChatTalkDaemonTests {
    /// A tmux server of its own (its socket in a folder of the test, no configuration file), run in the
    /// foreground as the test's child (`-D`: a daemonised server would keep Foundation's socket and make
    /// the client that started it look as if it never ended), with one shell in a window of a fixed size.
    final class Tmux: Sendable {
        let folder: String
        let socket: String
        let environment: [String: String]
        let server: FixtureProcess

        init(columns: Int = 100, rows: Int = 30, environment extra: [String: String]) async throws {
            self.folder = try makeTemporaryFolder("talk-tmux")
            self.socket = self.folder + "/socket"
            var environment = ProcessInfo.processInfo.environment
            environment.merge(extra) { $1 }
            environment.removeValue(forKey: "TMUX")
            self.environment = environment
            // FixtureProcess starts it with no signal blocked: the shell and what it runs must not inherit
            // the test runner's blocked signals (SIGWINCH, SIGTERM, SIGHUP).
            self.server = try FixtureProcess("tmux", "/usr/bin/tmux", ["-D", "-S", self.socket, "-f", "/dev/null"], environment: environment)
            // The session's environment is what -e gives, not the server's; the prompt is set in the file
            // $ENV names, which an interactive sh reads (dash sets root's own over one in the environment).
            let shellStartup = self.folder + "/shellrc"
            try "PS1='shell$ '\n".write(toFile: shellStartup, atomically: true, encoding: .utf8)
            // A client asking before the server listens would start a server of its own.
            try await eventually("the tmux server's socket") { [socket, server] in FileManager.default.fileExists(atPath: socket) || !server.isRunning
            }
            let (status, output) = try await run(
                "/usr/bin/tmux",
                ["-S", self.socket, "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)"]
                    + (extra.merging(["ENV": shellStartup]) { $1 }).sorted { $0.key < $1.key }.flatMap { ["-e", "\($0.key)=\($0.value)"] } + [
                        "/bin/sh"
                    ],
                environment: environment
            )
            try #require(status == 0, "tmux did not start a session: \(output)\n\(self.server.report)")
            try await self.waitFor("the shell's prompt") { $0.contains("shell$") }
        }

        @discardableResult
        func tmux(_ arguments: [String]) async throws -> String {
            let (status, output) = try await run("/usr/bin/tmux", ["-S", self.socket] + arguments, environment: self.environment)
            guard status == 0 else { throw FixtureError("tmux \(arguments.joined(separator: " ")) failed (\(status)): \(output)") }
            return output
        }

        /// Types `text` as it is (no key names).
        func type(_ text: String) async throws { try await self.tmux(["send-keys", "-l", text]) }

        /// Presses keys by tmux's names (Enter, C-c, PPage, NPage, BSpace).
        func press(_ keys: String...) async throws { try await self.tmux(["send-keys"] + keys) }

        /// The pane as it shows now, one string per row.
        func pane() async throws -> [String] {
            try await self.tmux(["capture-pane", "-p"]).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }

        /// Waits until the pane satisfies `condition`; the failure shows the pane as it was last.
        @discardableResult
        func waitFor(_ what: String, _ condition: (String) -> Bool) async throws -> [String] {
            var last: [String] = []
            do {
                try await eventually(what) {
                    last = try await self.pane()
                    return condition(last.joined(separator: "\n"))
                }
            } catch {
                throw FixtureError("\(error); the pane:\n\(last.joined(separator: "\n"))")
            }
            return last
        }

        /// Ends the server and its shell (blocking, bounded; the server is killed if it will not go).
        func stop() {
            let process = SpawnedProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
            process.arguments = ["-S", self.socket, "kill-server"]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            if (try? process.run()) != nil { process.exitStatus(within: 10) }
            self.server.process.exitStatus(within: 10)
            try? FileManager.default.removeItem(atPath: self.folder)
        }

        deinit { self.stop() }
    }

    static let loopbackChat = """
        [[channel]]
        name = "desk"
        plugin = "loopback"
        [channel.loopback]
        contact-kind = "chat"
        echo-agent = true
        contact-interval = "1h"
        """

    /// The daemon on ``loopbackChat``, its chat prepared, connected and with a thread.
    static func chattingDaemon(scratch: Scratch, bus: PrivateBus) async throws -> DaemonProcess {
        let daemon = try await TokenDaemonTests.daemon(Self.loopbackChat, scratch: scratch, bus: bus)
        for step in [["prepare"], ["connect"], ["create"]] {
            let (status, output) = try await CXoneChatDaemonTests.chat(step, bus: bus)
            try #require(status == 0, "chat \(step[0]): \(output)\n\(daemon.stderr)")
        }
        return daemon
    }

    /// The terminal is back in cooked mode with echo: what `stty -a` prints in the pane says so. The marker
    /// is typed as `:do''ne`, so only the shell's output reads `:done`: in a narrow pane the typed command
    /// wraps, and a wrapped piece of it once ended in `:done` and was taken for the answer.
    static func expectSaneTerminal(_ tmux: Tmux) async throws {
        try await tmux.tmux([
            "send-keys",
            "clear; stty -a | tr -s ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo -e isig -e -isig | tr '\\n' ' '; echo :do''ne",
            "Enter",
        ])
        let pane = try await tmux.waitFor("stty's answer") { $0.contains(":done\n") || $0.hasSuffix(":done") }
        let line = try #require(pane.first { $0.hasSuffix(":done") && !$0.contains("stty") }, "\(pane)")
        #expect(line == "isig icanon echo :done", "the terminal's modes after the view: \(line)")
    }

    @Test func theViewShowsTheTranscriptSendsGetsTheAnswerScrollsRedrawsAndLeavesTheTerminalSane() async throws {
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.chattingDaemon(scratch: scratch, bus: bus)
        // 8 long messages and their 8 echoes, 3 rows each at 100 columns: more than the 27 rows of the
        // transcript show.
        let filler = String(repeating: "lorem ipsum ", count: 20)
        for number in 1...8 {
            let (status, output) = try await CXoneChatDaemonTests.chat(["send", "message \(number) \(filler)"], bus: bus)
            try #require(status == 0, "\(output)")
        }
        try await eventually("the 8 echoes") {
            CXoneChatDaemonTests.texts(try await CXoneChatDaemonTests.threads(bus: bus).first).filter { $0.hasPrefix("Echo: ") }.count == 8
        }

        // Without a terminal it refuses, saying what to use instead.
        let piped = try await TokenDaemonTests.ctl(["chat", "talk"], bus: bus)
        #expect(piped.status == 64 && piped.output.contains("chat talk needs a terminal; use chat send / chat open in scripts"), "\(piped)")

        let tmux = try await Tmux(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        try await tmux.type("\(TokenDaemonTests.attendantctl) chat talk")
        try await tmux.press("Enter")
        var pane = try await tmux.waitFor("the transcript") { $0.contains("Echo: message 8 ") && $0.contains("Enter sends") }
        #expect(pane[0].hasPrefix(#" desk · thread thread-1 "Loopback thread 1" · ready"#), "\(pane[0])")
        #expect(pane[28].hasPrefix("Enter sends · PgUp/PgDn scroll") && pane[29] == ">", "\(pane)")
        let echo8 = try #require(pane.firstIndex { $0.contains(" Loopback Agent: Echo: message 8 lorem") }, "\(pane)")
        #expect(pane[echo8].range(of: #"^\d\d:\d\d Loopback"#, options: .regularExpression) != nil, "a local time: \(pane[echo8])")
        #expect(pane[echo8 + 1].hasPrefix("      lorem ipsum") && pane[echo8 + 1].count <= 100, "wrapped under the text: \(pane)")
        #expect(!pane.contains { $0.contains("You: message 1 ") }, "the oldest is above the view: \(pane)")

        // Back a page: the oldest message shows, and the status line says there is more below.
        try await tmux.press("PPage")
        pane = try await tmux.waitFor("a page back") { $0.contains("more below: PgDn") }
        #expect(pane.contains { $0.contains("You: message 1 lorem") }, "\(pane)")
        #expect(!pane.contains { $0.contains("Echo: message 8 ") }, "\(pane)")
        try await tmux.press("NPage")
        try await tmux.waitFor("back at the newest") { $0.contains("Echo: message 8 ") && $0.contains("Enter sends") }

        // A reply: what is typed shows on the input line, Enter sends it, the agent's answer follows.
        try await tmux.type("hello from the terminal")
        try await tmux.waitFor("the input line") { $0.hasSuffix("> hello from the terminal") || $0.contains("\n> hello from the terminal") }
        try await tmux.press("Enter")
        pane = try await tmux.waitFor("the agent's answer") { $0.contains("Echo: hello from the terminal") }
        let ours = try #require(pane.firstIndex { $0.hasSuffix(": hello from the terminal") && !$0.contains("Echo") }, "\(pane)")
        let answer = try #require(pane.firstIndex { $0.hasSuffix("Loopback Agent: Echo: hello from the terminal") }, "\(pane)")
        #expect(ours < answer && pane[29] == ">", "\(pane)")
        #expect(!pane[ours].contains("(sending)"), "the daemon answered sent: \(pane[ours])")
        await #expect(
            try CXoneChatDaemonTests.threads(bus: bus).first.map(CXoneChatDaemonTests.texts)?.suffix(2) == [
                "hello from the terminal", "Echo: hello from the terminal",
            ]
        )

        // A smaller window: drawn again for its size, the long line wrapped within 40 columns.
        try await tmux.type("draft")
        try await tmux.tmux(["resize-window", "-x", "40", "-y", "12"])
        pane = try await tmux.waitFor("the view redrawn at 40×12") { text in
            let rows = text.split(separator: "\n", omittingEmptySubsequences: false)
            return rows.count >= 12 && rows[0].hasPrefix(" desk · thread") && rows[11] == "> draft"
        }
        #expect(pane.prefix(12).allSatisfy { $0.count <= 40 }, "\(pane)")
        #expect(pane[10].hasPrefix("Enter sends"), "\(pane)")
        let wrapped = try #require(pane.firstIndex { $0.hasSuffix("Loopback Agent: Echo: hello from") }, "wrapped: \(pane)")
        #expect(pane[wrapped + 1] == "      the terminal", "indented under the text: \(pane)")

        // Ctrl-C leaves: the shell's prompt again, the view's last word, the terminal as it was.
        try await tmux.press("C-c")
        try await tmux.waitFor("the shell again") { $0.contains("Left the conversation on desk.\nshell$") }
        try await Self.expectSaneTerminal(tmux)

        // SIGTERM (systemd, kill) and SIGHUP (the SSH session dropped) leave it sane too.
        for signal in ["TERM", "HUP"] {
            try await tmux.tmux(["send-keys", "clear; \(TokenDaemonTests.attendantctl) chat talk; echo exit=$?", "Enter"])
            try await tmux.waitFor("the view for SIG\(signal)") { $0.contains("Enter sends") }
            let shell = try await tmux.tmux(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
            // The shell's child, by its id.
            let (_, child) = try await run("/usr/bin/pgrep", ["-P", shell])
            let pid = try #require(pid_t(child.trimmingCharacters(in: .whitespacesAndNewlines)), "no child of the shell \(shell): \(child)")
            kill(pid, signal == "TERM" ? SIGTERM : SIGHUP)
            try await tmux.waitFor("the shell after SIG\(signal)") { $0.contains("exit=0\nshell$") }
            try await Self.expectSaneTerminal(tmux)
        }
        tmux.stop()
        await CXoneChatDaemonTests.stop(daemon)
    }

    /// A private sshd on 127.0.0.1: a host key, a key for this user and a configuration of its own, in a
    /// folder of the test (no PAM, so it runs without the system's login setup; the user is whoever runs
    /// the tests, root too). sshd puts itself in the background and is stopped by the pid it writes.
    final class SSHServer: Sendable {
        let folder: String
        let port: UInt16
        let user: String

        init() async throws {
            self.folder = try makeTemporaryFolder("talk-ssh")
            self.port = try LoopbackPort.pickTCP()
            self.user = String(cString: getpwuid(getuid()).pointee.pw_name)
            for key in ["host_key", "user_key"] {
                let (status, output) = try await run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", "\(self.folder)/\(key)"])
                try #require(status == 0, "ssh-keygen: \(output)")
            }
            try FileManager.default.copyItem(atPath: "\(self.folder)/user_key.pub", toPath: "\(self.folder)/authorized_keys")
            let configuration = """
                Port \(self.port)
                ListenAddress 127.0.0.1
                HostKey \(self.folder)/host_key
                AuthorizedKeysFile \(self.folder)/authorized_keys
                PidFile \(self.folder)/sshd.pid
                UsePAM no
                StrictModes no
                PermitRootLogin prohibit-password
                PasswordAuthentication no
                KbdInteractiveAuthentication no
                """
            try configuration.write(toFile: "\(self.folder)/sshd_config", atomically: true, encoding: .utf8)
            // sshd's privilege separation needs its empty folder (Debian's package makes it at boot only).
            try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
            let (status, output) = try await run("/usr/sbin/sshd", ["-f", "\(self.folder)/sshd_config", "-E", "\(self.folder)/sshd.log"])
            try #require(status == 0, "sshd did not start: \(output)")
            try await eventually("sshd's pid") { [folder] in FileManager.default.fileExists(atPath: "\(folder)/sshd.pid") }
        }

        /// ssh's options and destination, for a command line.
        var destination: String {
            "-i \(self.folder)/user_key -p \(self.port) -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \(self.user)@127.0.0.1"
        }

        func stop() {
            if let text = try? String(contentsOfFile: "\(self.folder)/sshd.pid", encoding: .utf8),
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                kill(pid, SIGTERM)
            }
            try? FileManager.default.removeItem(atPath: self.folder)
        }
    }

    /// Over SSH, as a person logged in from another machine uses it (the terminal is ssh's pty on the far
    /// side): the transcript, a line sent and its answer, Ctrl-C, and the terminal sane after ssh ends.
    @Test func theViewWorksOverSSH() async throws {
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.chattingDaemon(scratch: scratch, bus: bus)
        let tmux = try await Tmux(environment: ["LANG": "C.UTF-8"])
        let ssh = try await SSHServer()
        defer { ssh.stop() }
        // The far side's session bus is named on the command line: sshd without PAM sets up no user session.
        let command = "DBUS_SESSION_BUS_ADDRESS=\"\(bus.address)\" \(TokenDaemonTests.attendantctl) chat talk"
        try await tmux.type("ssh -tt \(ssh.destination) '\(command)'")
        try await tmux.press("Enter")
        try await tmux.waitFor("the view over ssh") { $0.contains("Enter sends") }
        try await tmux.type("hello over ssh")
        try await tmux.press("Enter")
        try await tmux.waitFor("the agent's answer over ssh") { $0.contains("Echo: hello over ssh") }
        try await tmux.press("C-c")
        try await tmux.waitFor("the shell again after ssh") { $0.contains("Left the conversation on desk.\nshell$") }
        try await Self.expectSaneTerminal(tmux)
        tmux.stop()
        await CXoneChatDaemonTests.stop(daemon)
    }

    /// Answering from the desktop in the view, on the Loopback chat's echo agent: older messages loaded at
    /// the top, read receipts as messages show, quick replies chosen with /2, a file saved with /save into
    /// the download folder, a file sent with /send, and the inactivity prompt's "End the chat".
    @Test func theViewLoadsOlderMessagesMarksReadChoosesSavesAndSendsFiles() async throws {
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.chattingDaemon(scratch: scratch, bus: bus)
        // 12 messages and their 12 echoes: the thread gives its last 20, and 4 are older.
        for number in 1...12 {
            let (status, output) = try await CXoneChatDaemonTests.chat(["send", "older \(number)"], bus: bus)
            try #require(status == 0, "\(output)")
        }
        // The last echo is the last to come (each comes a second after its message, and message 12 went last).
        // Not a count of the echoes among the thread's last 20: on a busy machine each send takes longer than
        // a second, the echoes interleave with the messages, and only 10 of them are among the last 20.
        try await eventually("the 12 echoes") {
            CXoneChatDaemonTests.texts(try await CXoneChatDaemonTests.threads(bus: bus).first).contains("Echo: older 12")
        }
        /// The id of the thread's last message whose text is `text`.
        func id(of text: String) async throws -> String? {
            let thread = try await CXoneChatDaemonTests.threads(bus: bus).first
            return (thread?["lastMessages"] as? [[String: Any]])?.last { $0["text"] as? String == text }?["id"] as? String
        }
        func readMark() async throws -> String? { try await CXoneChatDaemonTests.status(bus: bus)["read.thread-1"] }
        let newest = try #require(try await id(of: "Echo: older 12"))

        // The download folder is the one user-dirs.dirs names (xdg-user-dirs), in the view's environment.
        let home = try makeTemporaryFolder("talk-home")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let downloads = home + "/Downloads here"
        try FileManager.default.createDirectory(atPath: home + "/config", withIntermediateDirectories: true)
        try "XDG_DOWNLOAD_DIR=\"$HOME/Downloads here\"\n".write(toFile: home + "/config/user-dirs.dirs", atomically: true, encoding: .utf8)
        let tmux = try await Tmux(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "HOME": home, "XDG_CONFIG_HOME": home + "/config"])
        try await tmux.type("\(TokenDaemonTests.attendantctl) chat talk")
        try await tmux.press("Enter")
        var pane = try await tmux.waitFor("the transcript") { $0.contains("Echo: older 12") && $0.contains("Enter sends") }
        // The echoes come a second after each message, so the order of the 24 is the daemon's: counted.
        func messages(_ pane: [String]) -> [String] { pane.filter { $0.contains(": older ") || $0.contains(": Echo: older ") } }
        let given = messages(pane)
        #expect(given.count == 20, "the last 20: \(pane)")
        // What shows is seen: the channel is told, with the newest agent's message.
        try await eventually("the read mark on \(newest)") { try await readMark() == newest }

        // PgUp at the top of what is loaded asks for the page before it, until a page comes back empty.
        try await tmux.press("PPage")
        pane = try await tmux.waitFor("the older page") { $0.contains("4 older messages loaded.") }
        let loaded = messages(pane)
        #expect(loaded.count == 24 && Array(loaded.suffix(20)) == given, "4 put before the 20: \(pane)")
        let all = (1...12).flatMap { ["You: older \($0)", "Loopback Agent: Echo: older \($0)"] }
        #expect(Set(loaded.map { String($0.split(separator: " ", maxSplits: 1)[1]) }) == Set(all), "\(pane)")
        try await tmux.press("PPage")
        try await tmux.waitFor("the start") { $0.contains("This is the start of the conversation.") }

        // Quick replies: numbered buttons under the message, /2 answers with the label, the agent echoes it.
        try await tmux.type("menu")
        try await tmux.press("Enter")
        pane = try await tmux.waitFor("the menu's buttons") {
            $0.contains("      [1] Billing  [2] Orders  [3] Other  [4] Help centre <https://help.example.org/loopback>")
        }
        #expect(pane.contains { $0.hasSuffix("Loopback Agent: What can I help you with?") }, "\(pane)")
        try await tmux.type("/2")
        try await tmux.press("Enter")
        pane = try await tmux.waitFor("the choice and its echo") { $0.contains("Loopback Agent: Echo: Orders") }
        let chosen = try #require(pane.firstIndex { $0.hasSuffix("You: Orders") }, "\(pane)")
        let echoed = try #require(pane.firstIndex { $0.hasSuffix("Loopback Agent: Echo: Orders") }, "\(pane)")
        #expect(chosen < echoed && pane[29] == ">", "\(pane)")
        let echo = try #require(try await id(of: "Echo: Orders"))
        try await eventually("the read mark on \(echo)") { try await readMark() == echo }

        // A file from the agent: shown with its type and size, /save puts it in the download folder.
        try await tmux.type("file")
        try await tmux.press("Enter")
        try await tmux.waitFor("the file") { $0.contains("      [file] loopback-notes.txt (text/plain, 67 bytes)") }
        try await tmux.type("/save")
        try await tmux.press("Enter")
        pane = try await tmux.waitFor("saved") { $0.contains("-- Saved ") }
        let saved = downloads + "/loopback-notes.txt"
        #expect(pane.contains { $0.contains("-- Saved \(saved) (text/plain, 67 bytes)") }, "\(pane)")
        #expect(pane[28].hasPrefix("Enter sends"), "no \"Saving …\" left on the status line: \(pane[28])")
        #expect(try String(contentsOfFile: saved, encoding: .utf8) == "Notes from the Loopback agent.\nThis file came with a chat message.\n")

        // attendantctl chat save takes the same file (its message from chat open --json) into another folder.
        let message = try #require(try await id(of: "Here is the file you asked for."))
        let elsewhere = home + "/elsewhere"
        let cli = try await CXoneChatDaemonTests.chat(["save", message, "--to", elsewhere], bus: bus)
        #expect(cli.status == 0 && cli.output.contains("Saved \(elsewhere)/loopback-notes.txt (text/plain, 67 bytes)."), "\(cli)")
        #expect(FileManager.default.contents(atPath: elsewhere + "/loopback-notes.txt") == FileManager.default.contents(atPath: saved))

        // A file sent: ours with its file, and the agent's answer.
        try "hello".write(toFile: home + "/hello.txt", atomically: true, encoding: .utf8)
        try await tmux.type("/send ~/hello.txt")
        try await tmux.press("Enter")
        pane = try await tmux.waitFor("the agent got it") { $0.contains("Loopback Agent: Got hello.txt (5 bytes)") }
        #expect(pane.contains { $0.hasSuffix("You: [file] hello.txt (text/plain, 5 bytes)") }, "\(pane)")

        // The inactivity prompt: "End the chat" closes the thread.
        try await tmux.type("idle")
        try await tmux.press("Enter")
        try await tmux.waitFor("the prompt") {
            $0.contains("-- Are you still there? The chat closes soon.") && $0.contains("[1] I'm here  [2] End the chat")
        }
        try await tmux.type("/2")
        try await tmux.press("Enter")
        pane = try await tmux.waitFor("the thread closed") { $0.contains("The conversation is closed.") }
        #expect(pane[0].contains(" · closed"), "\(pane[0])")

        try await tmux.press("C-c")
        try await tmux.waitFor("the shell again") { $0.contains("Left the conversation on desk.\nshell$") }
        tmux.stop()
        await CXoneChatDaemonTests.stop(daemon)
    }
}
