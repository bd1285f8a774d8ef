import ArgumentParser
import AttendantControl

extension Attendantctl.Chat {
    struct Transcript: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "E-mail a thread's transcript, where the channel allows it.",
            discussion: """
                The chat server sends the conversation to the address (CXone: SendTranscript, on channels \
                whose configuration allows transcripts; the thread must have reached the server). A channel \
                that does not allow it, or an address it does not take, is an error that says so. JSON: an \
                object with the keys ok (true), action ("chat-transcript"), channel, thread (null: the \
                current one), email.
                """
        )

        @Argument(help: ArgumentHelp("The address to send the transcript to.", valueName: "email"))
        var email: String

        @Option(name: .long, help: ArgumentHelp("The thread (default: the one created or opened last).", valueName: "id"))
        var thread: String?

        @OptionGroup var chat: ChatOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if self.email.isEmpty { throw ValidationError("the e-mail address is empty") }
        }

        func run() async throws {
            try await self.chat.run(json: self.output.json) { client, channel throws(ControlClientError) in
                try await client.chatSendTranscript(channel: channel, thread: self.thread, email: self.email)
                Terminal.out(
                    self.output.json
                        ? JSON.object([
                            ("ok", .bool(true)), ("action", .string("chat-transcript")), ("channel", .string(channel)),
                            ("thread", .optional(self.thread, JSON.string)), ("email", .string(self.email)),
                        ]).text
                        : "Asked \(channel) to e-mail the transcript to \(self.email)."
                )
            }
        }
    }
}
