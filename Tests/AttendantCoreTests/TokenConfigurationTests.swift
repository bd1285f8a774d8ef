import AttendantCore
import AttendantPluginAPI
import Testing

/// The `token-*` keys of a `[[channel]]`, with the exact message of every problem.
@Suite struct TokenConfigurationTests {
    let file = "/home/ada/.config/attendant/attendant.toml"

    func channels(_ toml: String) throws -> [ChannelConfiguration] {
        try AttendantConfiguration(toml: toml, file: self.file).channels
    }

    func problems(_ toml: String) -> [String] {
        do {
            _ = try AttendantConfiguration(toml: toml, file: self.file)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    @Test func eachSourceWithDefaultsAndOverrides() throws {
        let channels = try self.channels(
            """
            [[channel]]
            name = "none"
            plugin = "loopback"

            [[channel]]
            name = "command"
            plugin = "loopback"
            token-command = ["~/bin/get-token", "--channel", "desk"]

            [[channel]]
            name = "url"
            plugin = "loopback"
            token-url = "https://tokens.example.com/desk"
            token-url-method = "post"
            token-url-field = "data.token"
            token-renew-at = 0.75
            token-renew-before = "5m"
            token-timeout = 20

            [[channel]]
            name = "local"
            plugin = "loopback"
            token-url = "http://127.0.0.1:8080/token"

            [[channel]]
            name = "file"
            plugin = "loopback"
            token-file = "~/.local/share/attendant/desk.token"
            token-renew-before = 0

            [[channel]]
            name = "credential"
            plugin = "loopback"
            token-credential = "desk-token"
            """
        )
        #expect(channels[0].token == nil)
        var command = TokenSettings(source: .command(["~/bin/get-token", "--channel", "desk"]))
        command.renewAt = 0.9
        command.renewBefore = .seconds(60)
        command.timeout = .seconds(10)
        #expect(channels[1].token == command)
        var url = TokenSettings(source: .url("https://tokens.example.com/desk", method: .post, field: "data.token"))
        url.renewAt = 0.75
        url.renewBefore = .seconds(300)
        url.timeout = .seconds(20)
        #expect(channels[2].token == url)
        #expect(channels[3].token?.source == .url("http://127.0.0.1:8080/token", method: .get, field: nil))
        #expect(channels[4].token?.source == .file("~/.local/share/attendant/desk.token"))
        #expect(channels[4].token?.renewBefore == .zero)
        #expect(channels[5].token?.source == .credential("desk-token"))
        #expect("\(channels[2].token!.source)" == "token URL https://tokens.example.com/desk")
    }

    @Test func everyProblemWithItsMessage() {
        let problems = self.problems(
            """
            [[channel]]
            name = "a"
            plugin = "loopback"
            token-command = []

            [[channel]]
            name = "b"
            plugin = "loopback"
            token-command = ["bin/get-token"]

            [[channel]]
            name = "c"
            plugin = "loopback"
            token-url = "http://tokens.example.com/desk?key=secret"
            token-url-method = "PUT"
            token-url-field = "data..token"

            [[channel]]
            name = "d"
            plugin = "loopback"
            token-file = "tokens/desk"
            token-renew-at = 1.5
            token-renew-before = "soon"
            token-timeout = 0

            [[channel]]
            name = "e"
            plugin = "loopback"
            token-credential = "../desk"

            [[channel]]
            name = "f"
            plugin = "loopback"
            token-command = ["/usr/bin/pass", "show", "desk"]
            token-file = "~/desk.token"
            token-credential = "desk"

            [[channel]]
            name = "g"
            plugin = "loopback"
            token-renew-at = 0.5
            token-url-field = "token"

            [[channel]]
            name = "h"
            plugin = "loopback"
            token-command = "/usr/bin/get-token"
            token-renew-at = "90%"
            """
        )
        #expect(
            problems == [
                "\(self.file):4: key \"token-command\" in [[channel]] number 1: expected the program and its arguments, such as [\"/usr/bin/pass\", \"show\", \"attendant/desk\"], found an empty array",
                "\(self.file):9: key \"token-command\" in [[channel]] number 2: expected the program as an absolute path, a path starting with ~/ or a name to look up in $PATH, found \"bin/get-token\"",
                "\(self.file):15: key \"token-url-method\" in [[channel]] number 3: expected \"GET\" or \"POST\", found the string \"PUT\"",
                "\(self.file):16: key \"token-url-field\" in [[channel]] number 3: expected the name of the JSON field that holds the token, or a dotted path such as \"data.token\", found \"data..token\"",
                "\(self.file):14: key \"token-url\" in [[channel]] number 3: expected an https:// URL (http:// only to localhost), found \"http://tokens.example.com/desk\"",
                "\(self.file):21: key \"token-file\" in [[channel]] number 4: expected an absolute path or one starting with ~/, found \"tokens/desk\"",
                "\(self.file):22: key \"token-renew-at\" in [[channel]] number 4: expected a fraction of the token's lifetime between 0 and 1 (0.9 renews when 90 % of it has passed), found the number 1.5",
                "\(self.file):23: key \"token-renew-before\" in [[channel]] number 4: expected a duration: seconds as a number (30) or a string with a unit (\"500ms\", \"30s\", \"10m\", \"1h\"), at most 100 years, found the string \"soon\"",
                "\(self.file):24: key \"token-timeout\" in [[channel]] number 4: expected a duration longer than zero: seconds as a number (30) or a string with a unit (\"500ms\", \"30s\", \"10m\", \"1h\"), at most 100 years, found the integer 0",
                "\(self.file):29: key \"token-credential\" in [[channel]] number 5: expected a credential name as the unit's LoadCredential= gives it (no \"/\"), found \"../desk\"",
                "\(self.file):35: key \"token-file\" in [[channel]] number 6: a channel has one token source, and this one already has \"token-command\" (line 34)",
                "\(self.file):36: key \"token-credential\" in [[channel]] number 6: a channel has one token source, and this one already has \"token-command\" (line 34)",
                "\(self.file):42: key \"token-url-field\" in [[channel]] number 7: only used with token-url, which this channel does not have",
                "\(self.file):41: key \"token-renew-at\" in [[channel]] number 7: only used with a token source (token-command, token-url, token-file or token-credential), which this channel does not have",
                "\(self.file):47: key \"token-command\" in [[channel]] number 8: expected an array of strings, found the string \"/usr/bin/get-token\"",
                "\(self.file):48: key \"token-renew-at\" in [[channel]] number 8: expected a number, found the string \"90%\"",
            ]
        )
    }

    @Test func aChangedTokenSourceRestartsTheChannel() throws {
        let a = try self.channels("[[channel]]\nname = \"a\"\nplugin = \"loopback\"\ntoken-file = \"/run/a\"\n")[0]
        let b = try self.channels("[[channel]]\nname = \"a\"\nplugin = \"loopback\"\ntoken-file = \"/run/b\"\n")[0]
        #expect(a.needsRestart(toBecome: b))
    }
}
