import ArgumentParser
import AttendantControl
import Glibc

extension Attendantctl.Chat {
    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a message to the contact centre.",
            discussion: """
                The message is kept in the channel's outbox until the server has it. Exit status 0 when \
                it was sent, and also when it is queued: the chat is reconnecting or the desktop is \
                asleep, and it goes out by itself, once, when the chat is connected again (printed as \
                "Queued on NAME: REASON."). Exit status 1 with the D-Bus error ServerError and the server's \
                reason when the server refused it; a refused message is dropped from the outbox, unless \
                the server only failed to handle it then, in which case it stays and is sent again on \
                the next connection (the message says which).

                With --file PATH the file goes first, as the channel's SDK uploads one (CXone: to the \
                channel's attachment endpoint, checked against its allowed types and size), then the text \
                if there is one; a type or size the channel does not take fails with what it takes. The \
                type comes from the file's extension unless --type says it.

                JSON: an object with the keys ok (true), action ("chat-send"), channel, thread (null \
                when not given: the current thread), text, delivery ("sent" or "queued"), message (the \
                message's id, null if the channel gives none), reason (why it is queued, else null); with \
                --file, file and fileDelivery too.
                """
        )

        @Option(name: .long, help: ArgumentHelp("The thread (default: the one created or opened last).", valueName: "id"))
        var thread: String?

        @Option(name: .long, help: ArgumentHelp("A file to send (a regular file, at most 64 MiB).", valueName: "path"))
        var file: String?

        @Option(name: .long, help: ArgumentHelp("The file's MIME type (default: from its extension).", valueName: "type"))
        var type: String?

        @Argument(help: ArgumentHelp("The message; several words are joined with spaces.", valueName: "text"))
        var words: [String] = []

        @OptionGroup var chat: ChatOptions
        @OptionGroup var output: OutputOptions

        var text: String { self.words.joined(separator: " ") }

        func validate() throws {
            guard !self.text.isEmpty || self.file != nil else { throw ValidationError("nothing to send: give the message text or --file") }
            if self.file?.isEmpty == true { throw ValidationError("--file needs a path") }
            if self.thread?.isEmpty == true { throw ValidationError("--thread needs a thread id") }
        }

        func run() async throws {
            try await self.chat.run(json: self.output.json) { client, channel throws(ControlClientError) in
                var sentFile: (String, String)? = nil
                if let path = self.file {
                    let (name, descriptor) = try SavedFile.openToSend(path)
                    defer { close(descriptor) }
                    let fileDelivery = try await client.chatSendFile(
                        channel: channel,
                        thread: self.thread,
                        name: name,
                        mimeType: self.type ?? SavedFile.mimeType(forName: name),
                        from: descriptor
                    )
                    sentFile = (name, fileDelivery["delivery"] ?? "sent")
                    guard !self.text.isEmpty else {
                        let place = "\(self.thread.map { " to \($0)" } ?? "") on \(channel)"
                        Terminal.out(
                            self.output.json
                                ? done(
                                    "chat-send",
                                    channel,
                                    [
                                        ("thread", .optional(self.thread, JSON.string)), ("file", .string(name)),
                                        ("fileDelivery", .string(sentFile!.1)),
                                    ]
                                )
                                : "Sent \(name)\(place)."
                        )
                        return
                    }
                }
                let delivery = try await client.chatSendMessage(channel: channel, thread: self.thread, text: self.text)
                let state = delivery["delivery"] ?? "sent"
                let reason = delivery["reason"]
                let place = "\(self.thread.map { " to \($0)" } ?? "") on \(channel)"
                Terminal.out(
                    self.output.json
                        ? done(
                            "chat-send",
                            channel,
                            [
                                ("thread", .optional(self.thread, JSON.string)), ("text", .string(self.text)), ("delivery", .string(state)),
                                ("message", .optional(delivery["message"], JSON.string)), ("reason", .optional(reason, JSON.string)),
                            ] + (sentFile.map { [("file", JSON.string($0.0)), ("fileDelivery", JSON.string($0.1))] } ?? [])
                        )
                        : state == "queued" ? "Queued\(place): \(reason ?? "it is sent once the chat is connected")." : "Sent\(place)."
                )
            }
        }
    }
}
