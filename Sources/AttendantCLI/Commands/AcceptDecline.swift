import ArgumentParser
import AttendantControl

/// CONTACT and --channel, shared by accept and decline.
struct ContactArguments: ParsableArguments {
    @Argument(help: ArgumentHelp("The contact's id, as `attendantctl contacts` shows it.", valueName: "contact"))
    var contact: String

    @Option(name: .long, help: ArgumentHelp("The channel the contact came in on (default: found by the contact's id).", valueName: "name"))
    var channel: String?

    func validate() throws {
        guard !self.contact.isEmpty else { throw ValidationError("the contact id must not be empty") }
        if self.channel?.isEmpty == true { throw ValidationError("--channel needs a channel name") }
    }

    /// `{"ok","action","contact","channel"}`
    func json(action: String) -> JSON {
        .object([("ok", .bool(true)), ("action", .string(action)), ("contact", .string(self.contact)), ("channel", .optional(self.channel, JSON.string))])
    }

    var place: String { self.channel.map { " on \($0)" } ?? "" }
}

extension Attendantctl {
    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Accept an incoming contact (answer the call, take the chat).",
            discussion: """
                JSON: an object with the keys ok (true), action ("accept"), contact, channel (null when \
                not given).
                """
        )

        @OptionGroup var target: ContactArguments
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await Session.run(json: self.output.json) { client throws(ControlClientError) in
                try await client.accept(contact: self.target.contact, channel: self.target.channel)
                Terminal.out(self.output.json ? self.target.json(action: "accept").text : "Accepted \(self.target.contact)\(self.target.place).")
            }
        }
    }

    struct Decline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decline an incoming contact.",
            discussion: """
                JSON: an object with the keys ok (true), action ("decline"), contact, channel (null when \
                not given).
                """
        )

        @OptionGroup var target: ContactArguments
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await Session.run(json: self.output.json) { client throws(ControlClientError) in
                try await client.decline(contact: self.target.contact, channel: self.target.channel)
                Terminal.out(self.output.json ? self.target.json(action: "decline").text : "Declined \(self.target.contact)\(self.target.place).")
            }
        }
    }
}
