import ArgumentParser
import AttendantControl

extension Attendantctl {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the daemon's version, status line, channel count and do-not-disturb state.",
            discussion: """
                JSON: an object with the keys version, status, pid, doNotDisturb, notificationServer, \
                channels, listening.
                """
        )

        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await Session.run(json: self.output.json) { client throws(ControlClientError) in
                let status = try await client.status()
                if self.output.json { Terminal.out(status.json.text) } else { Terminal.out(status.textLines) }
            }
        }
    }
}
