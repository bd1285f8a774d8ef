import ArgumentParser
import AttendantControl

extension Attendantctl {
    struct DoNotDisturb: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dnd",
            abstract: "Show or switch do-not-disturb: alerts are held back, contacts are still recorded.",
            discussion: """
                JSON: an object with the key doNotDisturb, the state after the command.
                """
        )

        enum Switch: String, ExpressibleByArgument, CaseIterable {
            case on, off
        }

        @Argument(help: ArgumentHelp("on or off; leave out to show the state.", valueName: "on|off"))
        var state: Switch?

        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await Session.run(json: self.output.json) { client throws(ControlClientError) in
                let on: Bool
                if let state = self.state {
                    on = state == .on
                    try await client.setDoNotDisturb(on)
                } else {
                    on = try await client.status().doNotDisturb
                }
                if self.output.json {
                    Terminal.out(JSON.object([("doNotDisturb", .bool(on))]).text)
                } else {
                    Terminal.out("Do not disturb is \(self.state == nil ? "" : "now ")\(on ? "on" : "off").")
                }
            }
        }
    }
}
