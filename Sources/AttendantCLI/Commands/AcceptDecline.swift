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
        .object([
            ("ok", .bool(true)), ("action", .string(action)), ("contact", .string(self.contact)), ("channel", .optional(self.channel, JSON.string)),
        ])
    }

    var place: String { self.channel.map { " on \($0)" } ?? "" }
}

extension ContactArguments {
    /// Asks the daemon to accept or decline, then reports it.
    func answer(_ action: String, json: Bool) async throws {
        try await Session.run(json: json) { client throws(ControlClientError) in
            if action == "accept" {
                try await client.accept(contact: self.contact, channel: self.channel)
            } else {
                try await client.decline(contact: self.contact, channel: self.channel)
            }
            let done = action == "accept" ? "Accepted" : "Declined"
            Terminal.out(json ? self.json(action: action).text : "\(done) \(self.contact)\(self.place).")
        }
    }
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

        func run() async throws { try await self.target.answer("accept", json: self.output.json) }
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

        func run() async throws { try await self.target.answer("decline", json: self.output.json) }
    }
}
