import ArgumentParser
import AttendantControl
import Systemd

extension Attendantctl.Chat {
    struct Talk: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Hold the conversation in the terminal: the transcript, live, and an input line.",
            discussion: """
                Shows the thread's messages with their senders and local times (notices such as an agent \
                joining marked --, problems !!), follows new ones as they arrive, shows "NAME is typing…" \
                on the status line while the agent types, and tells the agent when you type (at most one \
                started per 5 s; stopped after 5 s without a key, on Enter, or when the line is emptied). \
                Without --thread it opens the channel's only open thread; with none, what you send first \
                starts one (as chat send does), and with several, name one.

                Keys: Enter sends; Backspace, Delete, Left, Right, Home (Ctrl-A), End (Ctrl-E), Ctrl-U \
                (erase to the start), Ctrl-W (erase a word) edit; PgUp/PgDn (Up/Down: a row) scroll back \
                through what is loaded, and PgUp at its top loads the older messages before it, until \
                the start of the conversation; Ctrl-L redraws; Ctrl-D on an empty line, Ctrl-C or /quit \
                leave.

                Commands: /1 … /9 or /choose N answer with choice N of the latest message that offers \
                choices (shown under it as [1] Billing  [2] Orders …; a link shows its URL); /save [N] \
                saves the latest file that came (shown as [file] NAME (TYPE, SIZE)) into the download \
                folder, as chat save does; /send PATH sends a file; /help lists them; // starts a \
                message with /. The newest agent's message on the screen is marked read as it shows.

                Needs a terminal on standard input and output (xterm, tmux, screen, the Linux console, \
                over SSH too); it uses the alternate screen and plain ANSI sequences, and puts the \
                terminal back as it was when it ends: on leaving, on SIGINT, SIGTERM and SIGHUP (the SSH \
                session dropped) and on errors. It redraws when the window changes size. In scripts use \
                chat send, chat open and monitor instead. Exit status 0 when left, 1 when the chat \
                cannot be opened or the bus closes, 64 without a terminal.
                """
        )

        @Option(name: .long, help: ArgumentHelp("The thread (default: the channel's only open thread).", valueName: "id"))
        var thread: String?

        @OptionGroup var chat: ChatOptions

        func validate() throws {
            if self.thread?.isEmpty == true { throw ValidationError("--thread needs a thread id") }
        }

        func run() async throws {
            guard RawTerminal.isTerminal else {
                Terminal.error("attendantctl: chat talk needs a terminal; use chat send / chat open in scripts")
                throw ExitCode.validationFailure
            }
            var ending: TalkSession.Ending? = nil
            var channelName = ""
            try await self.chat.run(json: false) { client, channel throws(ControlClientError) in
                // The matches first: a message that arrives while the thread is read is not missed.
                let signals = try await client.signals()
                let running = try await client.daemonRunningChanges()
                _ = try await client.daemonOwner()
                let thread = try await TalkSession.thread(client, channel: channel, named: self.thread)
                channelName = channel
                ending = await TalkSession(client: client, channel: channel).run(thread: thread, signals: signals, running: running)
                if case .busClosed = ending {
                    throw ControlClientError(code: .failed, message: "the connection to the \(client.connection.address) closed")
                }
            }
            switch ending {
            case .left: Terminal.out("Left the conversation on \(channelName).")
            case .hungUp, .busClosed, nil: break
            }
        }
    }
}
