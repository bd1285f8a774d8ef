import ArgumentParser
import AttendantControl

extension Attendantctl {
    struct Channels: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the channels with their listening state and token health.",
            discussion: """
                States: starting, listening, background (a chat disconnected while the machine sleeps, or \
                while the screen is locked when background-on names the lock; it listens again in the \
                foreground), recovering, failed, stopping, stopped. TOKEN tells when the channel's token \
                expires, RENEWED when it was last renewed (local time).

                JSON: an array of objects with the keys name, plugin, state, detail, onProbation, \
                tokenExpiresIn (seconds, negative once expired), tokenLastRenewal (Unix seconds), \
                tokenLastError, tokenFailures, failure (why a failed channel gave up: sign-in-needed or \
                configuration; null otherwise); the token keys are null when the channel has no token.
                """
        )

        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await Session.run(json: self.output.json) { client throws(ControlClientError) in
                let channels = try await client.channels()
                if self.output.json {
                    Terminal.out(JSON.array(channels.map(\.json)).text)
                } else {
                    Terminal.out(ChannelRecord.table(channels))
                }
            }
        }
    }
}
