import ArgumentParser
import AttendantControl

extension Attendantctl.Chat {
    struct Typing: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Tell the agent that the person started or stopped typing.",
            discussion: """
                Sends the chat's typing event (CXone: SenderTypingStarted or SenderTypingEnded; GMS: startTyping \
                or stopTyping) for the \
                thread. JSON: an object with the keys ok (true), action ("chat-typing"), channel, state, \
                thread (null when not given: the current thread).
                """
        )

        @Argument(help: ArgumentHelp("started or stopped.", valueName: "state"))
        var state: String = "started"

        @Option(name: .long, help: ArgumentHelp("The thread (default: the one created or opened last).", valueName: "id"))
        var thread: String?

        @OptionGroup var chat: ChatOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard self.state == "started" || self.state == "stopped" else {
                throw ValidationError("the typing state is started or stopped, not \"\(self.state)\"")
            }
            if self.thread?.isEmpty == true { throw ValidationError("--thread needs a thread id") }
        }

        func run() async throws {
            var arguments = ["state": self.state]
            if let thread = self.thread { arguments["thread"] = thread }
            try await self.chat.run(json: self.output.json) { client, channel throws(ControlClientError) in
                _ = try await client.channelRequest(channel: channel, command: "chat-typing", arguments: arguments)
                if self.output.json {
                    let fields: [(String, JSON)] = [
                        ("ok", .bool(true)), ("action", .string("chat-typing")), ("channel", .string(channel)),
                        ("state", .string(self.state)), ("thread", .optional(self.thread, JSON.string)),
                    ]
                    Terminal.out(JSON.object(fields).text)
                } else {
                    Terminal.out("Typing \(self.state)\(self.thread.map { " in \($0)" } ?? "") on \(channel).")
                }
            }
        }
    }
}
