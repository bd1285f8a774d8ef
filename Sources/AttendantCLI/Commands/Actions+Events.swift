import ArgumentParser
import AttendantControl

// The events the person's activity sends to KARTE: view (a new page), track, identify, attribute, and
// boundary (a new page without an event).
extension Attendantctl.Actions {
    struct View: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Report that the person opened a screen: a view event that starts a new page.",
            discussion: """
                Starts a new page (a new pv_id) and softly resets the shown actions: those in display \
                limit mode are closed. JSON keys: ok, action ("actions-view"), channel, event ("view"), \
                pv_id, original_pv_id.
                """
        )

        @Argument(help: ArgumentHelp("The screen's name (KARTE's view_name).", valueName: "name"))
        var name: String

        @Option(name: .long, help: ArgumentHelp("The screen's title.", valueName: "title"))
        var title: String?

        @OptionGroup var values: ActionValues
        @OptionGroup var actions: ActionsOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if self.name.isEmpty { throw ValidationError("the view name must not be empty; give the screen's name, such as: actions view pricing") }
        }

        func run() async throws {
            var arguments = ["name": self.name]
            if let title = self.title { arguments["title"] = title }
            if let values = try self.values.text() { arguments["values"] = values }
            try await self.actions.request("actions-view", arguments, json: self.output.json, keys: ["event", "pv_id", "original_pv_id"]) { reply in
                ["Viewed \(self.name) on \(reply.channel)" + (reply.pageIDs.map { ": page \($0)" } ?? "") + "."]
            }
        }
    }

    struct Track: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send an event of the person's activity, such as a purchase.",
            discussion: #"JSON keys: ok, action ("actions-track"), channel, event, pv_id."#
        )

        @Argument(help: ArgumentHelp("The event's name, such as buy.", valueName: "event"))
        var event: String

        @OptionGroup var values: ActionValues
        @OptionGroup var actions: ActionsOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if self.event.isEmpty { throw ValidationError("the event name must not be empty; give one, such as: actions track buy") }
        }

        func run() async throws {
            var arguments = ["event": self.event]
            if let values = try self.values.text() { arguments["values"] = values }
            try await self.actions.request("actions-track", arguments, json: self.output.json, keys: ["event", "pv_id"]) { reply in
                ["Tracked \(reply["event"] ?? self.event) on \(reply.channel)" + reply.onPage + "."]
            }
        }
    }

    struct Identify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Tell KARTE who the person is: an identify event with their user id.",
            discussion: #"JSON keys: ok, action ("actions-identify"), channel, event ("identify"), pv_id."#
        )

        @Argument(help: ArgumentHelp("The person's user id in your systems.", valueName: "user-id"))
        var userID: String

        @OptionGroup var values: ActionValues
        @OptionGroup var actions: ActionsOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if self.userID.isEmpty { throw ValidationError("the user id must not be empty; give the person's id, such as: actions identify user-42") }
        }

        func run() async throws {
            var arguments = ["user_id": self.userID]
            if let values = try self.values.text() { arguments["values"] = values }
            try await self.actions.request("actions-identify", arguments, json: self.output.json, keys: ["event", "pv_id"]) { reply in
                ["Identified the person as \(self.userID) on \(reply.channel)" + reply.onPage + "."]
            }
        }
    }

    struct Attribute: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set attributes of the person (an attribute event), such as their plan.",
            discussion: #"Needs at least one value. JSON keys: ok, action ("actions-attribute"), channel, event ("attribute"), pv_id."#
        )

        @OptionGroup var values: ActionValues
        @OptionGroup var actions: ActionsOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if try self.values.fields().isEmpty {
                throw ValidationError("attribute needs at least one value: give --value KEY=VALUE (such as --value plan=gold) or --values JSON")
            }
        }

        func run() async throws {
            let fields = try self.values.fields()
            let arguments = ["values": JSON.object(fields).text]
            try await self.actions.request("actions-attribute", arguments, json: self.output.json, keys: ["event", "pv_id"]) { reply in
                ["Set \(ActionReply.count(fields.count, "attribute")) on \(reply.channel)" + reply.onPage + "."]
            }
        }
    }

    struct Boundary: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark a screen boundary without an event: a new page and a soft reset, as view does.",
            discussion: """
                For a screen change that should not be reported as a view: actions in display limit \
                mode are closed, and the next events belong to the new page. JSON keys: ok, action \
                ("actions-boundary"), channel, pv_id.
                """
        )

        @OptionGroup var actions: ActionsOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await self.actions.request("actions-boundary", json: self.output.json, keys: ["pv_id"]) { reply in
                ["Marked a screen boundary on \(reply.channel)" + (reply.pageIDs.map { ": page \($0)" } ?? "") + "."]
            }
        }
    }
}
