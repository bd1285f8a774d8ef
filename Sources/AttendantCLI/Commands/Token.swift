import ArgumentParser
import AttendantControl

extension Attendantctl {
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Manage channel tokens.",
            subcommands: [Renew.self]
        )

        struct Renew: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Renew a channel's token now.",
                discussion: """
                    JSON: an object with the keys ok (true), action ("token-renew"), channel, \
                    tokenExpiresIn (seconds; null when the token does not say).
                    """
            )

            @Argument(help: ArgumentHelp("The channel whose token to renew.", valueName: "channel"))
            var channel: String

            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await Session.run(json: self.output.json) { client throws(ControlClientError) in
                    try await client.renewToken(channel: self.channel)
                    // The renewal worked; the new expiry is a courtesy, so a failure to list is not one.
                    let record = (try? await client.channels())?.first { $0.name == self.channel }
                    if self.output.json {
                        Terminal.out(
                            JSON.object([
                                ("ok", .bool(true)), ("action", .string("token-renew")), ("channel", .string(self.channel)),
                                ("tokenExpiresIn", .optional(record?.tokenExpiresIn, JSON.int)),
                            ]).text
                        )
                    } else if let record, record.tokenExpiresIn != nil {
                        Terminal.out("Renewed the token of \(self.channel); it \(record.tokenText).")
                    } else {
                        Terminal.out("Renewed the token of \(self.channel).")
                    }
                }
            }
        }
    }
}
