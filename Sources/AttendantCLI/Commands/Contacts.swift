import ArgumentParser
import AttendantControl

extension Attendantctl {
    struct Contacts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the contact history, newest first.",
            discussion: """
                Kinds: call, chat, action. Outcomes: answered, answered-elsewhere (taken on another \
                device: the call stopped ringing here), declined, missed, completed; open while the contact \
                lasts. A forwarded call shows who forwarded it.

                JSON: an array of objects with the keys channel, id, kind, from, fromAddress, fromAsserted \
                (true when from is the identity the network asserted), divertedFrom ({name, address, \
                reason} of who forwarded it, or null), summary, receivedAt, endedAt, outcome; times in Unix \
                seconds, endedAt and outcome null while the contact is open.
                """
        )

        @Option(name: .long, help: ArgumentHelp("How many of the newest contacts to show.", valueName: "n"))
        var limit: UInt32 = 20

        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard self.limit > 0 else { throw ValidationError("--limit must be 1 or more") }
        }

        func run() async throws {
            try await Session.run(json: self.output.json) { client throws(ControlClientError) in
                let contacts = try await client.contacts(limit: self.limit)
                if self.output.json {
                    Terminal.out(JSON.array(contacts.map(\.json)).text)
                } else {
                    Terminal.out(ContactRecord.table(contacts))
                }
            }
        }
    }
}
