import ArgumentParser
import AttendantControl
import Foundation
import Glibc

// Answering from the desktop (issue 33): a message's choices, and files both ways.
extension Attendantctl.Chat {
    struct Choose: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Answer a message with one of the choices it offers.",
            discussion: """
                A bot's quick replies, a list picker's items, an "are you still there?" prompt's buttons: \
                `chat open --json` lists each message's choices (choices: id, label, url). The channel answers \
                as its SDK does (CXone: a message with the choice's postback). JSON: an object with the keys \
                ok (true), action ("chat-choose"), channel, thread (null: the current one), message, choice.
                """
        )

        @Argument(help: ArgumentHelp("The message that offers the choice.", valueName: "message"))
        var message: String

        @Argument(help: ArgumentHelp("The choice's id, or its label.", valueName: "choice"))
        var choice: String

        @Option(name: .long, help: ArgumentHelp("The thread (default: the one created or opened last).", valueName: "id"))
        var thread: String?

        @OptionGroup var chat: ChatOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await self.chat.run(json: self.output.json) { client, channel throws(ControlClientError) in
                // A label is taken for the choice it names, when no choice has it as its id.
                var choice = self.choice
                let threads =
                    if let thread = self.thread { [try await client.chatOpenThread(channel: channel, thread: thread)] } else {
                        try await client.chatThreads(channel: channel)
                    }
                let choices = threads.lazy.compactMap { $0.lastMessages.first { $0.id == self.message } }.first?.choices ?? []
                if !choices.contains(where: { $0.id == choice }), let labelled = choices.first(where: { $0.label == choice }) {
                    choice = labelled.id
                }
                try await client.chatChoose(channel: channel, thread: self.thread, message: self.message, choice: choice)
                Terminal.out(
                    self.output.json
                        ? JSON.object([
                            ("ok", .bool(true)), ("action", .string("chat-choose")), ("channel", .string(channel)),
                            ("thread", .optional(self.thread, JSON.string)), ("message", .string(self.message)), ("choice", .string(choice)),
                        ]).text
                        : "Chose \(choice) for \(self.message) on \(channel)."
                )
            }
        }
    }

    struct Save: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save a file an agent sent.",
            discussion: """
                Stores the attachment in the download folder (XDG_DOWNLOAD_DIR of ~/.config/user-dirs.dirs, \
                else ~/Downloads) or --to FOLDER, under the sender's file name made safe: no folders, no \
                control characters, no leading dots, at most 200 bytes, and " (1)", " (2)"… when the name is \
                taken; an existing file is never replaced. `chat open --json` lists each message's \
                attachments (id, name, mimeType, size). Files of more than 64 MiB are refused. JSON: an \
                object with the keys ok (true), action ("chat-save"), channel, message, attachment, path, \
                mimeType, size.
                """
        )

        @Argument(help: ArgumentHelp("The message the file came with.", valueName: "message"))
        var message: String

        @Argument(help: ArgumentHelp("The attachment's id (default: the message's only one).", valueName: "attachment"))
        var attachment: String?

        @Option(name: .long, help: ArgumentHelp("The thread (default: the one created or opened last).", valueName: "id"))
        var thread: String?

        @Option(name: .long, help: ArgumentHelp("The folder to save in (default: the download folder).", valueName: "folder"))
        var to: String?

        @OptionGroup var chat: ChatOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await self.chat.run(json: self.output.json) { client, channel throws(ControlClientError) in
                let thread =
                    if let given = self.thread {
                        try await client.chatOpenThread(channel: channel, thread: given)
                    } else {
                        try await client.chatThreads(channel: channel).first { $0.lastMessages.contains { $0.id == self.message } }
                    }
                guard let message = thread?.lastMessages.first(where: { $0.id == self.message }) else {
                    throw ControlClientError(
                        code: .local,
                        message: "no message \(self.message) in \(self.thread ?? "the threads of \(channel)"); chat open --json lists them"
                    )
                }
                let attachments = message.attachments ?? []
                guard
                    let attachment = self.attachment.map({ id in attachments.first { $0.id == id } })
                        ?? (attachments.count == 1 ? attachments.first : nil)
                else {
                    let listed = attachments.map(\.id).joined(separator: ", ")
                    throw ControlClientError(
                        code: .local,
                        message: attachments.isEmpty
                            ? "message \(self.message) has no attachments"
                            : "name the attachment of message \(self.message) to save: \(listed)"
                    )
                }
                let folder = self.to ?? SavedFile.downloadFolder(environment: ProcessInfo.processInfo.environment)
                let (path, saved) = try await SavedFile.receive(into: folder, name: SavedFile.safeName(attachment.name)) {
                    descriptor throws(ControlClientError) in
                    try await client.chatSaveAttachment(
                        channel: channel,
                        thread: thread?.id,
                        message: self.message,
                        attachment: attachment.id,
                        into: descriptor
                    )
                }
                Terminal.out(
                    self.output.json
                        ? JSON.object([
                            ("ok", .bool(true)), ("action", .string("chat-save")), ("channel", .string(channel)),
                            ("message", .string(self.message)), ("attachment", .string(attachment.id)), ("path", .string(path)),
                            ("mimeType", .string(saved.mimeType)), ("size", .int(saved.size)),
                        ]).text
                        : "Saved \(path) (\(saved.mimeType), \(saved.size) bytes)."
                )
            }
        }
    }
}
