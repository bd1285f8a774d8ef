import ArgumentParser
import AttendantControl

extension Attendantctl {
    struct Actions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Drive an in-app action channel (KARTE in-app messaging): report events, see and follow the actions shown.",
            discussion: """
                An in-app action channel (plugin karte-actions) stands in for an app that KARTE's in-app \
                messaging serves: view, track, identify and attribute send the person's events to KARTE, \
                and KARTE answers with actions, the messages of its campaigns, which attendantd shows as \
                desktop notifications and announces as D-Bus ChannelEvent signals (watch them with \
                attendantctl monitor). list shows the actions now shown, click follows an action's link, \
                dismiss closes actions.

                Events belong to a page, like screens of an app: view starts a new page (a new pv_id) and \
                softly resets the shown actions, and boundary does the same without sending an event. \
                An action whose campaign uses display limit mode is shown only on the page whose event \
                triggered it, so the soft reset closes it; the other actions stay until dismissed.

                suppress closes the shown actions and drops new ones until unsuppress, and tells KARTE \
                _message_suppressed for each, so its reports count them as suppressed. Do-not-disturb \
                (attendantctl dnd) is different: it only holds the notifications back, while actions are \
                still received, listed and counted as shown.

                Values: --value KEY=VALUE (repeat for more) gives one field of the event; VALUE is read as \
                JSON when it is JSON (30, 2.5, true, null, "quoted text", [1,2], {"a":1}) and as plain \
                text otherwise, so --value plan=gold and --value age=30 both work (an integer too long \
                for 64 bits stays text, so long ids keep their digits). --values takes a JSON \
                object of fields; with both, --value wins. Field names are the channel's to check: a \
                refused one fails with its message (exit status 1, D-Bus error InvalidArgument).

                Every command takes --channel NAME, before or after its name; without it, the daemon's \
                only channel of the plugin \
                karte-actions is used, and none or several is a usage error. JSON: one object with the \
                keys ok (true), action (the request, such as "actions-view"), channel, and the reply's \
                keys that the command's --help lists, as strings; actions and variables are JSON.
                """,
            subcommands: [
                View.self, Track.self, Identify.self, Attribute.self, Boundary.self, List.self, Click.self, Dismiss.self,
                Suppress.self, Unsuppress.self, Variables.self,
            ]
        )

        /// `attendantctl actions --channel NAME view …`: the commands' own --channel, given first.
        @OptionGroup var actions: ActionsOptions
    }
}

/// --channel, shared by the in-app action commands.
struct ActionsOptions: ParsableArguments {
    /// The plugin whose channels the commands talk to when no channel is named.
    static let plugin = "karte-actions"

    @Option(
        name: .long,
        help: ArgumentHelp("The in-app action channel (default: the daemon's only channel of the plugin karte-actions).", valueName: "name")
    )
    var channel: String?

    func validate() throws {
        if self.channel?.isEmpty == true { throw ValidationError("--channel needs a channel name") }
    }

    /// Runs `body` with the channel to use: the one given, or else the daemon's only karte-actions
    /// channel. None or several without --channel is a usage error that lists the channels.
    func run(json: Bool, _ body: (ControlClient, String) async throws(ControlClientError) -> Void) async throws {
        var problem: String? = nil
        try await Session.run(json: json) { client throws(ControlClientError) in
            if let channel = self.channel {
                try await body(client, channel)
                return
            }
            let channels = try await client.channels()
            let candidates = channels.filter { $0.plugin == Self.plugin }
            guard candidates.count == 1, let only = candidates.first else {
                problem = Self.noChoice(among: channels, candidates: candidates)
                return
            }
            try await body(client, only.name)
        }
        if let problem { throw ValidationError(problem) }
    }

    static func noChoice(among channels: [ChannelRecord], candidates: [ChannelRecord]) -> String {
        if channels.isEmpty {
            return "attendantd has no channels configured, so there is no in-app action channel to use; configure one of the plugin \(Self.plugin)"
        }
        if candidates.isEmpty {
            let all = channels.map { "\($0.name) (\($0.plugin))" }.joined(separator: ", ")
            return "attendantd has no channel of the plugin \(Self.plugin) (its channels: \(all)); name the in-app action channel with --channel"
        }
        return
            "attendantd has several channels of the plugin \(Self.plugin) (\(candidates.map(\.name).joined(separator: ", "))); name one with --channel"
    }

    /// Sends `command` to the channel and prints its reply: with `json`, the object
    /// `{ok, action, channel, <keys>}` (absent keys null, other keys the reply has after them);
    /// otherwise the lines `text` makes of the reply for people.
    func request(
        _ command: String,
        _ arguments: [String: String] = [:],
        json: Bool,
        keys: [String],
        text: (ActionReply) throws(ControlClientError) -> [String]
    ) async throws {
        try await self.run(json: json) { client, channel throws(ControlClientError) in
            let reply = try await ActionReply(
                command: command,
                channel: channel,
                fields: client.channelRequest(channel: channel, command: command, arguments: arguments)
            )
            Terminal.out(json ? try reply.json(keys: keys).text : try text(reply).joined(separator: "\n"))
        }
    }
}
