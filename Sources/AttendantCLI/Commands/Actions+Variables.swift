import ArgumentParser
import AttendantControl

extension Attendantctl.Actions {
    struct Variables: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the variables KARTE's campaigns gave the visitor (KARTE Variables).",
            discussion: """
                Without --fetch, the variables the channel has; with it, asked from KARTE first. JSON \
                keys: ok, action ("actions-variables"), channel, variables (an object: each variable's \
                name to an object with the keys value (any JSON), campaign_id, shorten_id), fetched \
                ("true" when asked from KARTE now).
                """
        )

        @Flag(name: .long, help: "Fetch the variables from KARTE before showing them.")
        var fetch = false

        @OptionGroup var actions: ActionsOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let arguments = self.fetch ? ["fetch": "true"] : [:]
            try await self.actions.request("actions-variables", arguments, json: self.output.json, keys: ["variables", "fetched"]) {
                reply throws(ControlClientError) in
                guard let members = (try reply.json("variables") ?? .object([])).members else {
                    throw reply.malformed("its variables field is not an object")
                }
                guard !members.isEmpty else { return ["No variables."] }
                var table = Table(["NAME", "VALUE", "CAMPAIGN"])
                for (name, variable) in members.sorted(by: { $0.0 < $1.0 }) {
                    table.append([name, List.text(variable["value"]), List.text(variable["campaign_id"])])
                }
                return table.lines
            }
        }
    }
}
