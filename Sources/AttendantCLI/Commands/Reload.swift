import ArgumentParser
import AttendantControl

extension Attendantctl {
    struct Reload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-read the configuration files, like systemctl --user reload attendantd.",
            discussion: """
                Only channels whose settings changed restart. When the file has errors the daemon keeps \
                the running configuration and attendantctl prints the errors and exits with 1.

                JSON: an object with the keys ok (true), action ("reload"), status (the daemon's status \
                line afterwards).
                """
        )

        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await Session.run(json: self.output.json) { client throws(ControlClientError) in
                let status = try await client.reload()
                if self.output.json {
                    Terminal.out(JSON.object([("ok", .bool(true)), ("action", .string("reload")), ("status", .string(status))]).text)
                } else {
                    Terminal.out("Reloaded: \(status)")
                }
            }
        }
    }
}
