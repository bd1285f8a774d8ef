import ArgumentParser
import AttendantControl

// The actions on screen: list them, follow a link, dismiss them, or suppress them altogether.
extension Attendantctl.Actions {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the actions now shown, whether actions are suppressed, and the current page.",
            discussion: """
                JSON keys: ok, action ("actions-list"), channel, actions (an array of objects with the \
                keys id, campaign_id, shorten_id, title, body, links: an array of objects with the keys \
                label, url, target), suppressed ("true" or "false"), visitor_id, pv_id, original_pv_id.
                """
        )

        @OptionGroup var actions: ActionsOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let keys = ["actions", "suppressed", "visitor_id", "pv_id", "original_pv_id"]
            try await self.actions.request("actions-list", json: self.output.json, keys: keys) { reply throws(ControlClientError) in
                guard case .array(let shown) = try reply.json("actions") ?? .array([]) else {
                    throw reply.malformed("its actions field is not an array")
                }
                var lines: [String]
                if shown.isEmpty {
                    lines = ["No actions shown."]
                } else {
                    var table = Table(["ID", "CAMPAIGN", "TITLE", "LINKS"])
                    for action in shown {
                        let links = if case .array(let links) = action["links"] { links.count } else { 0 }
                        table.append([Self.text(action["id"]), Self.text(action["campaign_id"]), Self.text(action["title"]), String(links)])
                    }
                    lines = table.lines
                }
                lines.append("Suppressed: " + (reply.flag("suppressed") ? "yes" : "no"))
                if let page = reply.pageIDs { lines.append("Page: " + page) }
                if let visitor = reply["visitor_id"], !visitor.isEmpty { lines.append("Visitor: " + visitor) }
                return lines
            }
        }

        /// A cell for a JSON value: a string as it is, another value as JSON, "-" for none.
        static func text(_ value: JSON?) -> String {
            switch value {
            case nil, .null?: "-"
            case .string(let text)?: text.isEmpty ? "-" : text
            case let value?: value.text
            }
        }
    }

    struct Click: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow a link of a shown action, as if the person clicked it.",
            discussion: """
                The channel opens the URL (or a handler claims it), tells KARTE the action was clicked, \
                and closes the action unless the link's target keeps it (such as _blank). Exit status 1 \
                when the channel refused the URL or could not open it, with its reason.

                JSON keys: ok (false when refused or failed), action ("actions-click"), channel, \
                action_id (the action followed), url, target, opened ("opened", "claimed" by a handler, \
                "refused" or "failed"), detail (how it was opened, or why not), reset ("true" when the \
                action was closed).
                """
        )

        @Argument(help: ArgumentHelp("The action's id, as actions list shows it; leave it out when one action is shown.", valueName: "action-id"))
        var action: String?

        @Option(name: .long, help: ArgumentHelp("Which of the action's links, counted from 0 (default: its first).", valueName: "n"))
        var link: Int?

        @Option(name: .long, help: ArgumentHelp("The URL to follow, instead of one of the action's links.", valueName: "url"))
        var url: String?

        @OptionGroup var actions: ActionsOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if self.action?.isEmpty == true { throw ValidationError("the action id must not be empty; leave it out for the only action shown") }
            if self.link != nil, self.url != nil { throw ValidationError("give --link or --url, not both") }
            if let link = self.link, link < 0 { throw ValidationError("--link counts the action's links from 0, so it cannot be \(link)") }
            if self.url?.isEmpty == true { throw ValidationError("--url needs a URL") }
        }

        func run() async throws {
            var arguments: [String: String] = [:]
            if let action = self.action { arguments["action"] = action }
            if let link = self.link { arguments["link"] = String(link) }
            if let url = self.url { arguments["url"] = url }
            var failed = false
            try await self.actions.run(json: self.output.json) { client, channel throws(ControlClientError) in
                let fields = try await client.channelRequest(channel: channel, command: "actions-click", arguments: arguments)
                let reply = ActionReply(command: "actions-click", channel: channel, fields: fields)
                let opened = reply["opened"] ?? "opened"
                failed = opened == "refused" || opened == "failed"
                if self.output.json {
                    Terminal.out(try reply.json(keys: ["action", "url", "target", "opened", "detail", "reset"], ok: !failed).text)
                }
                let what = "\(reply["url"] ?? self.url ?? "the link") of action \(reply["action"] ?? self.action ?? "?")"
                let detail = reply["detail"].flatMap { $0.isEmpty ? nil : $0 }
                if failed {
                    let verb = opened == "refused" ? "refused to follow" : "could not open"
                    Terminal.error("attendantctl: \(channel) \(verb) \(what)" + (detail.map { ": \($0)" } ?? ""))
                } else if !self.output.json {
                    let after = reply.flag("reset") ? "the action was closed" : "the action stays shown (target \(reply["target"] ?? "-"))"
                    Terminal.out("Followed \(what)" + (detail.map { " (\($0))" } ?? "") + "; \(after).")
                }
            }
            if failed { throw ExitCode.failure }
        }
    }

    struct Dismiss: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Close a shown action, or all of them (KARTE is told each was closed).",
            discussion: """
                Without an id, every shown action is closed, a hard reset. JSON keys: ok, action \
                ("actions-dismiss"), channel, dismissed (how many, as text).
                """
        )

        @Argument(help: ArgumentHelp("The action's id, as actions list shows it (default: all).", valueName: "action-id"))
        var action: String?

        @OptionGroup var actions: ActionsOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if self.action?.isEmpty == true { throw ValidationError("the action id must not be empty; leave it out to dismiss all") }
        }

        func run() async throws {
            let arguments = self.action.map { ["action": $0] } ?? [:]
            try await self.actions.request("actions-dismiss", arguments, json: self.output.json, keys: ["dismissed"]) { reply in
                let count = Int(reply["dismissed"] ?? "") ?? 0
                if let action = self.action {
                    return [
                        count > 0
                            ? "Dismissed action \(action) on \(reply.channel)."
                            : "Action \(action) was not shown on \(reply.channel); nothing dismissed."
                    ]
                }
                return ["Dismissed \(ActionReply.count(count, "action")) on \(reply.channel)."]
            }
        }
    }

    struct Suppress: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop showing actions: close the shown ones and drop new ones until unsuppress.",
            discussion: """
                KARTE is told _message_suppressed for each action dropped, unlike do-not-disturb (attendantctl \
                dnd), which only holds the notifications back. JSON keys: ok, action ("actions-suppress"), \
                channel, suppressed ("true"), dismissed (how many shown actions were closed, as text).
                """
        )

        @OptionGroup var actions: ActionsOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await self.actions.request("actions-suppress", json: self.output.json, keys: ["suppressed", "dismissed"]) { reply in
                let count = Int(reply["dismissed"] ?? "") ?? 0
                return [
                    "Suppressed actions on \(reply.channel) (dismissed \(ActionReply.count(count, "action"))); undo with: attendantctl actions unsuppress"
                ]
            }
        }
    }

    struct Unsuppress: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show actions again after suppress.",
            discussion: #"JSON keys: ok, action ("actions-unsuppress"), channel, suppressed ("false")."#
        )

        @OptionGroup var actions: ActionsOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await self.actions.request("actions-unsuppress", json: self.output.json, keys: ["suppressed"]) { reply in
                ["Actions on \(reply.channel) are shown again."]
            }
        }
    }
}
