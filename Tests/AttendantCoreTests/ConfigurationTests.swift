import AttendantCore
import AttendantPluginAPI
import TestSupport
import Testing

/// Every class of configuration error, with the exact message a user sees.
@Suite struct ConfigurationTests {
    let file = "/home/ada/.config/attendant/attendant.toml"

    func problems(_ toml: String) -> [ConfigurationError.Problem] {
        do {
            _ = try AttendantConfiguration(toml: toml, file: self.file)
            return []
        } catch {
            return error.problems
        }
    }

    @Test func validFileWithDefaults() throws {
        let configuration = try AttendantConfiguration(
            toml: """
                [daemon]
                plugin-path = ["~/.local/lib/attendant/plugins"]
                log-level = "debug"

                [[channel]]
                name = "desk"
                plugin = "loopback"
                keepalive-interval = "5m"

                [channel.loopback]
                contact-interval = 30
                """,
            file: self.file
        )
        #expect(configuration.daemon.logLevel == .debug)
        #expect(configuration.daemon.pluginPath == ["~/.local/lib/attendant/plugins"])
        let channel = try #require(configuration.channels.first)
        #expect(channel.name == "desk")
        #expect(channel.keepAliveInterval == .seconds(300))
        #expect(channel.listenTimeout == .seconds(60))
        #expect(channel.verifiesTLS)
        #expect(channel.settings == ["contact-interval": .integer(30)])
        #expect(channel.settingPlaces == ["contact-interval": ConfigurationPlace(file: self.file, line: 11)])
        #expect(channel.chatAlerts.events == [.message, .joined, .left, .pushURL, .custom, .idleAlert])
        #expect(channel.chatAlerts.title.text == "New message from {sender}")
        #expect(channel.chatAlerts.lines == 3)
        #expect(configuration.alerts.coalesce == .milliseconds(250))
        #expect(configuration.alerts.doNotDisturb == false)
    }

    @Test func unreadableFile() {
        #expect {
            try AttendantConfiguration.load(from: "/nonexistent/attendant.toml")
        } throws: { error in
            "\(error)" == "/nonexistent/attendant.toml: cannot read the configuration: No such file or directory"
        }
    }

    @Test func syntaxErrorNamesLineAndColumn() {
        let problems = self.problems("[daemon]\nlog-level = \"info\n")
        #expect(problems.map(\.code) == [.syntax])
        #expect(problems.first?.message.hasPrefix("\(self.file):2:") == true)
        #expect(problems.first?.message.contains("not valid TOML") == true)
    }

    /// toml++ (TOMLKit) asserts on a table header whose key starts with neither a key character nor a
    /// quote, which aborted attendantd (on --check-config, at start and on a reload). Found by scripts/fuzz toml.
    @Test(arguments: ["[=]\n", "a = 1\n[\u{1}]\n", "[[ #]]\n", "[\u{7F}]\n", "[\u{E9}t\u{E9}]\n", "[\\]\n", "[.a]\n", "[\t,]\n"])
    func aTableHeaderWithoutAKeyIsASyntaxError(text: String) {
        let problems = self.problems(text)
        #expect(problems.map(\.code) == [.syntax])
        let line = text.hasPrefix("a = 1") ? 2 : 1
        #expect(problems.first?.message.hasPrefix("\(self.file):\(line):") == true, "\(problems)")
        #expect(problems.first?.message.contains("not valid TOML: a table header needs a key") == true, "\(problems)")
    }

    /// toml++ (TOMLKit) decides a value's type from its characters and then asserts what that type's
    /// reader expects, so a value that starts as a date or a time and is not one aborted attendantd:
    /// `d = 1979-05-27 7` (a space and a digit taken for a date-time's T) and `a = 1980-05-27T\u{1E}7:`.
    /// Found by scripts/fuzz toml.
    @Test(arguments: [
        "c = 1979-05-2= 7\n", "d = 1979-05-27 7\n", "d = [1979-05-27 7]\n", "d = {e = 1979-05-27 7}\n",
        "a = 1\nd = 1979-05-27 7 # a comment\n", "a = 1980-05-27T\u{1E}7:\n", "a = 1980-05-27T07:32\n", "a = 1980-05-27 07:32:00+1\n",
        "a = 07:32:0x\n", "a = 07:32:00Z\n", "a = 1980-05-27T07:32:00.Z\n", "a = [1980-05-27T]\n", "a = 1979-05-27TBB07:J = 1\n",
        "a = {b = 1, c = 1979-05-27T7}\n", "a=197\u{FFFD}-05-2= 7\n", "a = 19é9-05-27 07:00:00\n",
    ])
    func aValueThatStartsAsADateOrTimeAndIsNotOneIsASyntaxError(text: String) {
        let problems = self.problems(text)
        #expect(problems.map(\.code) == [.syntax])
        let line = text.hasPrefix("a = 1\n") ? 2 : 1
        #expect(problems.first?.message.hasPrefix("\(self.file):\(line):") == true, "\(problems)")
        #expect(problems.first?.message.contains("not valid TOML:") == true, "\(problems)")
    }

    /// toml++ (TOMLKit) asserts in `parse_value` when an array's next value starts with `}` (`a=[}`, found by
    /// scripts/fuzz toml): an array ends with `]`, so a `}` while an array is the innermost open value is
    /// invalid TOML wherever it stands.
    @Test(arguments: ["a=[}\n", "a = [ }\n", "a = [1, }\n", "a = [\n  # a comment\n}\n", "a = [[}]]\n", "a = {b = [}}\n", "a = 1\nb = [1 }\n"])
    func anArrayClosedByABraceIsASyntaxError(text: String) {
        let problems = self.problems(text)
        #expect(problems.map(\.code) == [.syntax])
        let line = text.hasPrefix("a = 1\n") ? 2 : text.contains("comment") ? 3 : 1
        #expect(problems.first?.message.hasPrefix("\(self.file):\(line):") == true, "\(problems)")
        #expect(problems.first?.message.contains("not valid TOML: an array ends with ], not }") == true, "\(problems)")
    }

    /// Braces in arrays' inline tables and strings are not that.
    @Test func bracesInsideArraysStillRead() throws {
        let tree = try ConfigurationTree(toml: "a = [{b = 1}, {c = [2, {d = \"}\"}]}]\ne = [ # }\n 1 ]\n", file: self.file)
        #expect(tree.root["a"] == .array([.table(["b": .integer(1)]), .table(["c": .array([.integer(2), .table(["d": .string("}")])])])]))
        #expect(tree.root["e"] == .array([.integer(1)]))
    }

    /// Dates and date-times with a space, in values, arrays and strings, still read as they are.
    @Test func datesWithASpaceStillRead() throws {
        let text = """
            a = 1979-05-27 07:32:00
            b = [1979-05-27, 1979-05-27 07:32:00Z, 1979-05-27t07:32:00.999-07:00, 07:32:00.5, 1979-05-27T00:32:00+09:30]
            c = "1979-05-27 7"
            1979-05-27 = 1
            d = 1979-05-27 # 7
            e = {1979-05-28 = 1979-05-27, x = 1, 1979-05-29 = [1979-05-27 07:32:00]}
            2024-01-01.f = 2
            g = 1979-05-27T07:32:00z
            """
        let tree = try ConfigurationTree(toml: text, file: self.file)
        #expect(tree.root["c"] == .string("1979-05-27 7"))
        #expect(tree.root["1979-05-27"] == .integer(1))
        #expect(tree.root["2024-01-01"] == .table(["f": .integer(2)]))
        for key in ["a", "b", "d", "e", "g"] { #expect(tree.root[key] != nil, "\(key)") }
    }

    /// What looks like such a header inside a string, an array or a comment is not one.
    @Test func bracketsInsideValuesAreNotHeaders() throws {
        let text = """
            a = \"\"\"
            [=]
            \"\"\"
            b = '''
            [#]'''
            c = [
              [1, 2], # [=]
              [], "[=]",
            ]
            d = { e = [ '[' ] }
            # [=]
            ["[=]".x]
            f = 1
            """
        let tree = try ConfigurationTree(toml: text, file: self.file)
        #expect(tree.root["a"] == .string("[=]\n"))
        #expect(tree.root["b"] == .string("[#]"))
        #expect(tree.root["[=]"] == .table(["x": .table(["f": .integer(1)])]))
    }

    @Test func unknownKeysEverywhere() {
        let problems = self.problems(
            """
            colour = "blue"
            [daemon]
            log-levle = "info"
            [[channel]]
            name = "desk"
            plugin = "loopback"
            keepalive = 600
            [channel.loopbak]
            x = 1
            """
        )
        #expect(
            problems.map(\.description) == [
                "\(self.file):3: key \"log-levle\" in [daemon]: unknown key; [daemon] takes \"plugin-path\", \"log-level\", \"state-directory\", \"shutdown-timeout\"",
                "\(self.file):8: key \"loopbak\" in [[channel]] number 1: unknown table; the settings of plugin \"loopback\" go in [channel.loopback]",
                "\(self.file):7: key \"keepalive\" in [[channel]] number 1: unknown key; a [[channel]] takes \"name\", \"plugin\", \"enabled\", \"keepalive-interval\", \"listen-timeout\", \"tls-verify\", \"tls-ca-file\", \"token-command\", \"token-url\", \"token-url-method\", \"token-url-field\", \"token-file\", \"token-credential\", \"token-renew-at\", \"token-renew-before\", \"token-timeout\", \"chat-alert-events\", \"chat-alert-title\", \"chat-alert-lines\", \"loopback\"",
                "\(self.file):1: key \"colour\" in the top level: unknown key; the top level takes \"daemon\", \"channel\", \"alerts\", \"session\", \"links\", \"metrics\"",
            ]
        )
        #expect(problems.allSatisfy { $0.code == .unknownKey })
    }

    @Test func missingKeys() {
        let problems = self.problems("[[channel]]\nenabled = true\n")
        #expect(
            problems.map(\.description) == [
                "\(self.file):1: key \"name\" in [[channel]] number 1: missing; every channel needs a name = \"…\" (letters, digits, - and _)",
                "\(self.file):1: key \"plugin\" in [[channel]] number 1: missing; every channel names its plugin, for example plugin = \"loopback\"",
            ]
        )
        #expect(problems.allSatisfy { $0.code == .missingKey })
    }

    @Test func wrongTypes() {
        let problems = self.problems(
            """
            [daemon]
            plugin-path = "/usr/lib"
            [[channel]]
            name = 7
            plugin = "loopback"
            enabled = "yes"
            """
        )
        #expect(
            problems.map(\.description) == [
                "\(self.file):2: key \"plugin-path\" in [daemon]: expected an array of strings, found the string \"/usr/lib\"",
                "\(self.file):4: key \"name\" in [[channel]] number 1: expected a string, found the integer 7",
                "\(self.file):6: key \"enabled\" in [[channel]] number 1: expected true or false, found the string \"yes\"",
            ]
        )
        #expect(problems.allSatisfy { $0.code == .wrongType })
    }

    @Test func invalidValues() {
        let problems = self.problems(
            """
            [daemon]
            log-level = "loud"
            state-directory = "relative/path"
            [[channel]]
            name = "desk phone"
            plugin = "loopback"
            keepalive-interval = "soon"
            listen-timeout = 0
            """
        )
        #expect(
            problems.map(\.description) == [
                "\(self.file):2: key \"log-level\" in [daemon]: expected one of \"trace\", \"debug\", \"info\", \"notice\", \"warning\", \"error\", \"critical\", found the string \"loud\"",
                "\(self.file):3: key \"state-directory\" in [daemon]: expected an absolute path or one starting with ~/, found \"relative/path\"",
                "\(self.file):5: key \"name\" in [[channel]] number 1: expected letters, digits, - and _ (at most 64), found \"desk phone\"",
                "\(self.file):7: key \"keepalive-interval\" in [[channel]] number 1: expected a duration longer than zero: seconds as a number (30) or a string with a unit (\"500ms\", \"30s\", \"10m\", \"1h\"), at most 100 years, found the string \"soon\"",
                "\(self.file):8: key \"listen-timeout\" in [[channel]] number 1: expected a duration longer than zero: seconds as a number (30) or a string with a unit (\"500ms\", \"30s\", \"10m\", \"1h\"), at most 100 years, found the integer 0",
            ]
        )
        #expect(problems.allSatisfy { $0.code == .invalidValue })
    }

    @Test func duplicateChannelNames() {
        let problems = self.problems(
            """
            [[channel]]
            name = "desk"
            plugin = "loopback"

            [[channel]]
            name = "desk"
            plugin = "loopback"
            """
        )
        #expect(
            problems.map(\.description) == [
                "\(self.file):6: key \"name\" in [[channel]] number 2: a channel named \"desk\" is already defined (first at line 2); channel names must be unique"
            ]
        )
        #expect(problems.first?.code == .duplicateChannel)
    }

    /// `tls-verify` is the one switch for a channel's certificate checks: off only when said so, a boolean
    /// or an error naming the key, and turning it off restarts the channel.
    @Test func tlsVerify() throws {
        let toml = "[[channel]]\nname = \"a\"\nplugin = \"loopback\"\n"
        let verifying = try AttendantConfiguration(toml: toml, file: nil).channels[0]
        let explicit = try AttendantConfiguration(toml: toml + "tls-verify = true\n", file: nil).channels[0]
        let trusting = try AttendantConfiguration(toml: toml + "tls-verify = false\n", file: nil).channels[0]
        #expect(verifying.verifiesTLS && explicit.verifiesTLS)
        #expect(!trusting.verifiesTLS)
        #expect(verifying.needsRestart(toBecome: trusting))
        #expect(
            self.problems(toml + "tls-verify = \"no\"\n").map(\.description) == [
                "\(self.file):4: key \"tls-verify\" in [[channel]] number 1: expected true or false, found the string \"no\""
            ]
        )
    }

    /// `tls-ca-file` names a PEM file of CAs trusted beside the system's store; a path that is not absolute,
    /// or a file that cannot be read or holds no certificate, is an error naming the key and the file.
    @Test func tlsCAFile() async throws {
        let toml = "[[channel]]\nname = \"a\"\nplugin = \"loopback\"\n"
        #expect(
            self.problems(toml + "tls-ca-file = \"ca.pem\"\n").map(\.description) == [
                "\(self.file):4: key \"tls-ca-file\" in [[channel]] number 1: expected an absolute path or one starting with ~/, found \"ca.pem\""
            ]
        )
        let authority = try await TestCertificateAuthority("Configuration Test CA")
        let folder = TemporaryFolder()
        let notPEM = folder.write("not.pem", "hello\n")
        let channel = { (path: String) in try AttendantConfiguration(toml: toml + "tls-ca-file = \"\(path)\"\n", file: self.file).channels[0] }

        let policy = try channel(authority.certificateFile).tlsPolicy(environment: [:])
        #expect(policy.verifies && policy.authorities.count == 1 && policy.authoritiesFile == authority.certificateFile)
        let fromHome = try channel("~/ca.pem").tlsPolicy(environment: ["HOME": authority.folder])
        #expect(fromHome.authorities.count == 1)
        #expect(try channel("/").needsRestart(toBecome: channel(authority.certificateFile)))

        #expect(throws: ConfigurationError.self) { try channel(folder.path + "/missing.pem").tlsPolicy(environment: [:]) }
        do {
            _ = try channel(folder.path + "/missing.pem").tlsPolicy(environment: [:])
        } catch {
            #expect(
                "\(error)"
                    == "\(self.file):4: key \"tls-ca-file\" in [[channel]] \"a\": cannot read \(folder.path)/missing.pem: No such file or directory"
            )
        }
        do {
            _ = try channel(notPEM).tlsPolicy(environment: [:])
            Issue.record("a file without certificates was taken")
        } catch {
            #expect("\(error)".contains("key \"tls-ca-file\" in [[channel]] \"a\": \(notPEM)"), "\(error)")
        }
    }

    @Test func changedSettingsNeedARestartButMovedLinesDoNot() throws {
        let a = try AttendantConfiguration(toml: "[[channel]]\nname = \"a\"\nplugin = \"loopback\"\n", file: nil).channels[0]
        let moved = try AttendantConfiguration(toml: "\n\n[[channel]]\nname = \"a\"\nplugin = \"loopback\"\n", file: nil).channels[0]
        let changed = try AttendantConfiguration(
            toml: "[[channel]]\nname = \"a\"\nplugin = \"loopback\"\n[channel.loopback]\nring-timeout = 5\n",
            file: nil
        ).channels[0]
        #expect(!a.needsRestart(toBecome: moved))
        #expect(a.needsRestart(toBecome: changed))
    }
}
