import AttendantCore
import AttendantPluginAPI
import Testing

/// The `[alerts]` table and the `chat-alert-*` keys of a `[[channel]]`, with the exact messages.
@Suite struct AlertConfigurationTests {
    let file = "/home/ada/.config/attendant/attendant.toml"

    func problems(_ toml: String) -> [ConfigurationError.Problem] {
        do {
            _ = try AttendantConfiguration(toml: toml, file: self.file)
            return []
        } catch {
            return error.problems
        }
    }

    @Test func alertKeysAreRead() throws {
        let configuration = try AttendantConfiguration(
            toml: """
                [[channel]]
                name = "support"
                plugin = "loopback"
                chat-alert-events = ["message", "typing-started"]
                chat-alert-title = "{channel}: {sender} wrote in {thread}"
                chat-alert-lines = 5

                [alerts]
                coalesce = "400ms"
                do-not-disturb = true
                """,
            file: self.file
        )
        let chat = try #require(configuration.channels.first).chatAlerts
        #expect(chat.events == [.message, .typingStarted])
        #expect(chat.lines == 5)
        #expect(chat.title.render(["channel": "support", "sender": "Grace", "thread": "Order 7"]) == "support: Grace wrote in Order 7")
        #expect(configuration.alerts.coalesce == .milliseconds(400))
        #expect(configuration.alerts.doNotDisturb)
        #expect(configuration.alerts.ring && configuration.alerts.ringSound == nil, "by default a call rings with the theme's sound")
    }

    @Test func ringKeysAreReadAndARelativeSoundIsRefused() throws {
        let configuration = try AttendantConfiguration(toml: "[alerts]\nring = false\nring-sound = \"~/sounds/ring.oga\"\n", file: self.file)
        #expect(!configuration.alerts.ring)
        #expect(configuration.alerts.ringSound == "~/sounds/ring.oga")
        #expect(
            self.problems("[alerts]\nring-sound = \"ring.oga\"\n").map(\.description) == [
                "\(self.file):2: key \"ring-sound\" in [alerts]: expected an absolute path or one starting with ~/, found \"ring.oga\""
            ]
        )
    }

    /// A plugin's own default title (GMS's "New message from Agent") applies where the channel sets none.
    @Test func aPluginsDefaultTitleAppliesOnlyWhereTheChannelSetsNone() throws {
        let configuration = try AttendantConfiguration(
            toml: """
                [[channel]]
                name = "gms"
                plugin = "gms-chat"

                [[channel]]
                name = "titled"
                plugin = "gms-chat"
                chat-alert-title = "{sender} in {channel}"

                [[channel]]
                name = "cxone"
                plugin = "cxone-chat"
                """,
            file: self.file
        )
        let alerts = AlertPlanner.Configuration(configuration) { plugin in plugin == "gms-chat" ? "New message from Agent" : nil }
        let names = ["sender": "Ada", "channel": "gms", "thread": "t"]
        #expect(alerts.chat(for: "gms").title.render(names) == "New message from Agent")
        #expect(alerts.chat(for: "titled").title.render(names) == "Ada in gms")
        #expect(alerts.chat(for: "cxone").title.render(names) == "New message from Ada")
    }

    @Test func anEmptyEventListTurnsChatAlertsOffAndZeroCoalesceIsAllowed() throws {
        let configuration = try AttendantConfiguration(
            toml: "[[channel]]\nname = \"a\"\nplugin = \"loopback\"\nchat-alert-events = []\n[alerts]\ncoalesce = 0\n",
            file: nil
        )
        #expect(configuration.channels[0].chatAlerts.events.isEmpty)
        #expect(configuration.alerts.coalesce == .zero)
    }

    @Test func invalidChatAlertValues() {
        let problems = self.problems(
            """
            [[channel]]
            name = "support"
            plugin = "loopback"
            chat-alert-events = ["message", "typing", "Notice.Joined"]
            chat-alert-title = "Message from {agent}"
            chat-alert-lines = 0
            [[channel]]
            name = "desk"
            plugin = "loopback"
            chat-alert-lines = 21
            chat-alert-title = ""
            """
        )
        let kinds = "\"message\", \"typing-started\", \"typing-stopped\", \"joined\", \"left\", \"push-url\", \"custom\", \"idle-alert\""
        #expect(
            problems.map(\.description) == [
                "\(self.file):4: key \"chat-alert-events\" in [[channel]] number 1: unknown chat event \"typing\"; expected some of \(kinds)",
                "\(self.file):4: key \"chat-alert-events\" in [[channel]] number 1: unknown chat event \"Notice.Joined\"; expected some of \(kinds)",
                "\(self.file):5: key \"chat-alert-title\" in [[channel]] number 1: unknown placeholder {agent}; the template knows {sender}, {channel}, {thread}",
                "\(self.file):6: key \"chat-alert-lines\" in [[channel]] number 1: expected an integer from 1 to 20, found the integer 0",
                "\(self.file):11: key \"chat-alert-title\" in [[channel]] number 2: expected a title that is not empty",
                "\(self.file):10: key \"chat-alert-lines\" in [[channel]] number 2: expected an integer from 1 to 20, found the integer 21",
            ]
        )
        #expect(problems.allSatisfy { $0.code == .invalidValue })
    }

    @Test func wrongTypesOfAlertKeys() {
        let problems = self.problems(
            """
            [[channel]]
            name = "support"
            plugin = "loopback"
            chat-alert-events = "message"
            chat-alert-title = 7
            chat-alert-lines = "3"
            [alerts]
            do-not-disturb = "on"
            """
        )
        #expect(
            problems.map(\.description) == [
                "\(self.file):4: key \"chat-alert-events\" in [[channel]] number 1: expected an array of strings, found the string \"message\"",
                "\(self.file):5: key \"chat-alert-title\" in [[channel]] number 1: expected a string, found the integer 7",
                "\(self.file):6: key \"chat-alert-lines\" in [[channel]] number 1: expected an integer, found the string \"3\"",
                "\(self.file):8: key \"do-not-disturb\" in [alerts]: expected true or false, found the string \"on\"",
            ]
        )
        #expect(problems.allSatisfy { $0.code == .wrongType })
    }

    @Test func invalidAlertsTable() {
        let problems = self.problems(
            """
            [alerts]
            coalesce = "30s"
            quiet = true
            """
        )
        #expect(
            problems.map(\.description) == [
                "\(self.file):2: key \"coalesce\" in [alerts]: expected a duration of at most 10 seconds, found the string \"30s\"",
                "\(self.file):3: key \"quiet\" in [alerts]: unknown key; [alerts] takes \"coalesce\", \"do-not-disturb\", \"ring\", \"ring-sound\", \"terminal\"",
            ]
        )
        #expect(problems.map(\.code) == [.invalidValue, .unknownKey])
        #expect(
            self.problems("[alerts]\nterminal = [\"\", \"-e\"]\n").map(\.description) == [
                "\(self.file):2: key \"terminal\" in [alerts]: expected a program and its arguments, such as [\"foot\"] or [\"gnome-terminal\", \"--\"]"
            ]
        )
        #expect(
            self.problems("[alerts]\ncoalesce = \"soon\"\n").map(\.description) == [
                "\(self.file):2: key \"coalesce\" in [alerts]: expected a duration: seconds as a number (30) or a string with a unit (\"500ms\", \"30s\", \"10m\", \"1h\"), at most 100 years, found the string \"soon\""
            ]
        )
    }

    @Test func changedAlertKeysRestartTheChannel() throws {
        let base = "[[channel]]\nname = \"a\"\nplugin = \"loopback\"\n"
        let a = try AttendantConfiguration(toml: base, file: nil).channels[0]
        let retitled = try AttendantConfiguration(toml: base + "chat-alert-title = \"Hi {sender}\"\n", file: nil).channels[0]
        let sameAsDefault = try AttendantConfiguration(toml: base + "chat-alert-lines = 3\n", file: nil).channels[0]
        #expect(a.needsRestart(toBecome: retitled))
        #expect(!a.needsRestart(toBecome: sameAsDefault), "spelling out a default is no change")
    }

    @Test func templatesParsePlaceholdersAndLeaveOtherBracesAlone() throws {
        let known = AlertTemplate.chatPlaceholders
        #expect(try AlertTemplate("{sender} {", known: known).render(["sender": "Ada"]) == "Ada {")
        #expect(try AlertTemplate("{ not a placeholder } {sender}", known: known).render(["sender": "Ada"]) == "{ not a placeholder } Ada")
        #expect(try AlertTemplate("}{{sender}}", known: known).render(["sender": "Ada"]) == "}{Ada}")
        #expect(try AlertTemplate("no placeholders", known: known).render([:]) == "no placeholders")
        #expect(throws: AlertTemplate.Error(placeholder: "Sender", known: known)) {
            try AlertTemplate("From {Sender}", known: known)
        }
    }
}
