import ArgumentParser
import AttendantControl

/// --channel, shared by the chat commands.
struct ChatOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The chat channel (default: the daemon's only channel, if it has exactly one).", valueName: "name"))
    var channel: String?

    func validate() throws {
        if self.channel?.isEmpty == true { throw ValidationError("--channel needs a channel name") }
    }

    /// Runs `body` with the channel to use: the one given, or else the daemon's only channel. Several
    /// (or no) channels without --channel is a usage error.
    func run(json: Bool, _ body: (ControlClient, String) async throws(ControlClientError) -> Void) async throws {
        var channels: [String]? = nil
        try await Session.run(json: json) { client throws(ControlClientError) in
            if let channel = self.channel {
                try await body(client, channel)
                return
            }
            let names = try await client.channels().map(\.name)
            guard names.count == 1, let only = names.first else {
                channels = names
                return
            }
            try await body(client, only)
        }
        if let channels {
            throw ValidationError(
                channels.isEmpty
                    ? "attendantd has no channels configured, so there is no chat channel to use"
                    : "attendantd has several channels (\(channels.joined(separator: ", "))); name the chat channel with --channel"
            )
        }
    }
}

/// `{"ok":true,"action",…}`, what the chat commands without a result print with --json (this file and Chat+Send).
func done(_ action: String, _ channel: String, _ more: [(String, JSON)] = []) -> String {
    JSON.object([("ok", .bool(true)), ("action", .string(action)), ("channel", .string(channel))] + more).text
}

extension Attendantctl {
    struct Chat: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Chat with the contact centre through a chat channel.",
            discussion: """
                A chat goes: prepare, connect, then create a thread (or open one), send messages and \
                end the conversation; view reports the page the person is looking at (after prepare). \
                A request out of that order fails with the channel's message (exit status 1, D-Bus error \
                IllegalState); a channel that does not chat answers Unsupported. Every command takes \
                --channel NAME, before or after its name; without it the daemon's only channel is used, \
                and with several it is a usage error. Messages from agents arrive as message-received events: see attendantctl \
                monitor.

                Thread JSON: an object with the keys id, name, state (pending, received, loaded, ready, \
                closed), lastMessages (an array, oldest first, of objects with the keys id, threadID, \
                kind, direction (to-agent, from-agent, notice), sender, senderAddress, text, sentAt (Unix \
                seconds), and readByAgentAt once the agent read it), and when known assignedAgent and \
                positionInQueue.
                """,
            subcommands: [
                Prepare.self, Connect.self, View.self, Threads.self, Open.self, Create.self, Send.self, End.self, Status.self, Form.self, Typing.self,
                Nickname.self, PushURL.self, Notice.self, Talk.self, Choose.self, Save.self, Transcript.self,
            ]
        )

        /// `attendantctl chat --channel NAME send …`: the commands' own --channel, given first.
        @OptionGroup var chat: ChatOptions

        struct Prepare: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Prepare the chat: fetch the channel's chat configuration.",
                discussion: #"JSON: an object with the keys ok (true), action ("chat-prepare"), channel."#
            )

            @OptionGroup var chat: ChatOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await self.chat.run(json: self.output.json) { client, channel throws(ControlClientError) in
                    try await client.chatPrepare(channel: channel)
                    Terminal.out(self.output.json ? done("chat-prepare", channel) : "Prepared the chat on \(channel).")
                }
            }
        }

        struct Connect: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Connect the prepared chat, so threads can be created and messages sent.",
                discussion: #"JSON: an object with the keys ok (true), action ("chat-connect"), channel."#
            )

            @OptionGroup var chat: ChatOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await self.chat.run(json: self.output.json) { client, channel throws(ControlClientError) in
                    try await client.chatConnect(channel: channel)
                    Terminal.out(self.output.json ? done("chat-connect", channel) : "Connected the chat on \(channel).")
                }
            }
        }

        struct View: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Report that the person is viewing a page (for the contact centre's analytics and in-app actions).",
                discussion: #"JSON: an object with the keys ok (true), action ("chat-view"), channel, title, url."#
            )

            @Argument(help: ArgumentHelp("The page's title.", valueName: "title"))
            var title: String

            @Argument(help: ArgumentHelp("The page's URL.", valueName: "url"))
            var url: String

            @OptionGroup var chat: ChatOptions
            @OptionGroup var output: OutputOptions

            func validate() throws {
                guard !self.url.isEmpty else { throw ValidationError("the page URL must not be empty") }
            }

            func run() async throws {
                try await self.chat.run(json: self.output.json) { client, channel throws(ControlClientError) in
                    try await client.chatViewPage(channel: channel, title: self.title, url: self.url)
                    Terminal.out(
                        self.output.json
                            ? done("chat-view", channel, [("title", .string(self.title)), ("url", .string(self.url))])
                            : "Reported viewing \"\(self.title)\" (\(self.url)) on \(channel)."
                    )
                }
            }
        }

        struct Threads: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "List the chat threads with their state and last message.",
                discussion: "JSON: an array of thread objects (see attendantctl chat --help)."
            )

            @OptionGroup var chat: ChatOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await self.chat.run(json: self.output.json) { client, channel throws(ControlClientError) in
                    let threads = try await client.chatThreads(channel: channel)
                    Terminal.out(
                        self.output.json
                            ? JSON.array(threads.map(\.json)).text : ChatThreadRecord.table(threads, channel: channel).joined(separator: "\n")
                    )
                }
            }
        }

        struct Open: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Open a thread: show it with its last messages, and make it the one send and end use.",
                discussion: "JSON: the thread object (see attendantctl chat --help)."
            )

            @Argument(help: ArgumentHelp("The thread's id, as `attendantctl chat threads` shows it.", valueName: "thread"))
            var thread: String

            @OptionGroup var chat: ChatOptions
            @OptionGroup var output: OutputOptions

            func validate() throws {
                guard !self.thread.isEmpty else { throw ValidationError("the thread id must not be empty") }
            }

            func run() async throws {
                try await self.chat.run(json: self.output.json) { client, channel throws(ControlClientError) in
                    let thread = try await client.chatOpenThread(channel: channel, thread: self.thread)
                    Terminal.out(self.output.json ? thread.json.text : thread.textLines(channel: channel).joined(separator: "\n"))
                }
            }
        }

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Start a new thread (a conversation with the contact centre).",
                discussion: "JSON: the new thread object (see attendantctl chat --help)."
            )

            @Option(
                name: .customLong("field"),
                help: ArgumentHelp("A custom field for the contact centre, such as --field topic=billing; repeat for more.", valueName: "key=value")
            )
            var fields: [String] = []

            @OptionGroup var chat: ChatOptions
            @OptionGroup var output: OutputOptions

            /// The fields as a dictionary; a usage error for a field without `=` or a key given twice.
            func customFields() throws -> [String: String] {
                var result: [String: String] = [:]
                for field in self.fields {
                    guard let equals = field.firstIndex(of: "="), equals != field.startIndex else {
                        throw ValidationError("--field \"\(field)\": expected KEY=VALUE, such as --field topic=billing")
                    }
                    let key = String(field[..<equals])
                    guard result[key] == nil else { throw ValidationError("--field \(key) is given twice") }
                    result[key] = String(field[field.index(after: equals)...])
                }
                return result
            }

            func validate() throws { _ = try self.customFields() }

            func run() async throws {
                let fields = try self.customFields()
                try await self.chat.run(json: self.output.json) { client, channel throws(ControlClientError) in
                    let thread = try await client.chatCreateThread(channel: channel, fields: fields)
                    Terminal.out(self.output.json ? thread.json.text : "Created " + thread.title + " on \(channel): \(thread.state).")
                }
            }
        }

        struct End: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "End the conversation: the thread is closed.",
                discussion: """
                    JSON: an object with the keys ok (true), action ("chat-end"), channel, thread (null when \
                    not given: the current thread).
                    """
            )

            @Option(name: .long, help: ArgumentHelp("The thread (default: the one created or opened last).", valueName: "id"))
            var thread: String?

            @OptionGroup var chat: ChatOptions
            @OptionGroup var output: OutputOptions

            func validate() throws {
                if self.thread?.isEmpty == true { throw ValidationError("--thread needs a thread id") }
            }

            func run() async throws {
                try await self.chat.run(json: self.output.json) { client, channel throws(ControlClientError) in
                    try await client.chatEndConversation(channel: channel, thread: self.thread)
                    Terminal.out(
                        self.output.json
                            ? done("chat-end", channel, [("thread", .optional(self.thread, JSON.string))])
                            : "Ended the conversation\(self.thread.map { " in \($0)" } ?? "") on \(channel)."
                    )
                }
            }
        }

        struct Status: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Show the chat's state as the channel sees it: state, mode, threads, outbox, connection.",
                discussion: "JSON: an object of the channel's fields (strings), such as state, mode, threads, outbox, connected, last-error."
            )

            @OptionGroup var chat: ChatOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await self.chat.run(json: self.output.json) { client, channel throws(ControlClientError) in
                    let fields = try await client.channelRequest(channel: channel, command: "chat-status")
                    Terminal.out(self.output.json ? Attendantctl.Chat.json(fields).text : Attendantctl.Chat.lines(fields).joined(separator: "\n"))
                }
            }
        }

        struct Form: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Show the pre-chat form to fill in before creating a thread (its answers go to chat create --field).",
                discussion:
                    "JSON: an object with form (its name) and field.IDENT (the label, (required), and the choices) for each field; empty when the channel has no form."
            )

            @OptionGroup var chat: ChatOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await self.chat.run(json: self.output.json) { client, channel throws(ControlClientError) in
                    let fields = try await client.channelRequest(channel: channel, command: "pre-chat-form")
                    if self.output.json {
                        Terminal.out(Attendantctl.Chat.json(fields).text)
                    } else if fields.isEmpty {
                        Terminal.out("\(channel) has no pre-chat form.")
                    } else {
                        var lines = ["\(fields["form"] ?? "Pre-chat form") (answer with: attendantctl chat create --field ID=VALUE):"]
                        for (key, value) in fields.sorted(by: { $0.key < $1.key }) where key.hasPrefix("field.") {
                            lines.append("  \(key.dropFirst("field.".count)): \(value)")
                        }
                        Terminal.out(lines.joined(separator: "\n"))
                    }
                }
            }
        }

        static func json(_ fields: [String: String]) -> JSON {
            .object(fields.sorted { $0.key < $1.key }.map { ($0.key, JSON.string($0.value)) })
        }

        static func lines(_ fields: [String: String]) -> [String] {
            let width = fields.keys.map(\.count).max() ?? 0
            return fields.sorted { $0.key < $1.key }.map { $0.key + String(repeating: " ", count: width - $0.key.count) + "  " + $0.value }
        }
    }
}
