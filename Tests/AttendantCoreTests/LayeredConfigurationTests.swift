import AttendantCore
import AttendantPluginAPI
import Glibc
import Testing

/// The administrator's files under /etc, then the user's under ~/.config, each folder with its drop-ins:
/// merged key by key, channels by name, every problem naming the file and line of its value.
@Suite struct LayeredConfigurationTests {
    /// A fake /etc/attendant and $XDG_CONFIG_HOME in one temporary folder.
    struct Layers {
        let folder = TemporaryFolder()
        var system: String { self.folder.path + "/etc" }
        var user: String { self.folder.path + "/config/attendant" }
        var sources: ConfigurationSources {
            .layered(environment: ["XDG_CONFIG_HOME": self.folder.path + "/config"], systemDirectory: self.system)
        }

        init() {
            for folder in ["etc", "etc/attendant.toml.d", "config", "config/attendant", "config/attendant/attendant.toml.d"] {
                mkdir(self.folder.path + "/" + folder, 0o755)
            }
        }

        /// Writes `text` at `name` under the folder (`etc/attendant.toml`, …) and returns its path.
        @discardableResult
        func write(_ name: String, _ text: String) -> String { self.folder.write(name, text) }

        func load() throws(ConfigurationError) -> AttendantConfiguration { try AttendantConfiguration.load(self.sources) }

        /// What loading reports, one line per problem; empty when the layers load.
        func problems() -> [String] {
            do {
                _ = try self.load()
                return []
            } catch {
                return error.problems.map(\.description)
            }
        }
    }

    static let administrator = """
        [daemon]
        log-level = "info"

        [[channel]]
        name = "desk"
        plugin = "loopback"
        keepalive-interval = "5m"

        [channel.loopback]
        contact-interval = 30
        ring-timeout = 20

        [alerts]
        ring = true
        """

    @Test func laterFilesOverrideKeyByKeyAndExtendChannelsByName() throws {
        let layers = Layers()
        layers.write("etc/attendant.toml", Self.administrator)
        layers.write("etc/attendant.toml.d/20-site.toml", "[alerts]\ncoalesce = \"1s\"\n")
        layers.write("etc/attendant.toml.d/10-quiet.toml", "[alerts]\nring = false\ncoalesce = \"2s\"\n")
        layers.write(
            "config/attendant/attendant.toml",
            """
            [daemon]
            log-level = "debug"

            [[channel]]
            name = "desk"
            [channel.loopback]
            contact-interval = 10

            [[channel]]
            name = "mine"
            plugin = "loopback"
            """
        )
        layers.write("config/attendant/attendant.toml.d/50-off.toml", "[[channel]]\nname = \"desk\"\nenabled = false\n")
        // Not drop-ins: other suffixes, hidden files.
        layers.write("config/attendant/attendant.toml.d/60-note.txt", "not TOML")
        layers.write("config/attendant/attendant.toml.d/.70-hidden.toml", "[daemon]\nlog-level = \"error\"\n")

        let configuration = try layers.load()
        #expect(
            configuration.files == [
                layers.system + "/attendant.toml",
                layers.system + "/attendant.toml.d/10-quiet.toml",
                layers.system + "/attendant.toml.d/20-site.toml",
                layers.user + "/attendant.toml",
                layers.user + "/attendant.toml.d/50-off.toml",
            ]
        )
        #expect(configuration.daemon.logLevel == .debug)
        #expect(configuration.alerts.ring == false, "10-quiet.toml's, not overridden")
        #expect(configuration.alerts.coalesce == .seconds(1), "20-site.toml comes after 10-quiet.toml")
        #expect(configuration.channels.map(\.name) == ["desk", "mine"])
        let desk = configuration.channels[0]
        #expect(desk.plugin == "loopback")
        #expect(desk.keepAliveInterval == .seconds(300))
        #expect(desk.enabled == false)
        #expect(desk.settings == ["contact-interval": .integer(10), "ring-timeout": .integer(20)])
        #expect(desk.place == ConfigurationPlace(file: layers.system + "/attendant.toml", line: 4), "where it was first named")
        #expect(desk.settingPlaces["contact-interval"] == ConfigurationPlace(file: layers.user + "/attendant.toml", line: 7))
        #expect(desk.settingPlaces["ring-timeout"] == ConfigurationPlace(file: layers.system + "/attendant.toml", line: 11))
        #expect(desk.keyPlaces["enabled"] == ConfigurationPlace(file: layers.user + "/attendant.toml.d/50-off.toml", line: 3))
    }

    @Test func aProblemNamesTheFileAndLineOfItsValue() {
        let layers = Layers()
        layers.write("etc/attendant.toml", Self.administrator)
        let dropIn = layers.write(
            "config/attendant/attendant.toml.d/50-mine.toml",
            "\n[[channel]]\nname = \"desk\"\nkeepalive-interval = \"soon\"\n\n[[channel]]\nname = \"other\"\n"
        )
        #expect(
            layers.problems() == [
                "\(dropIn):4: key \"keepalive-interval\" in [[channel]] number 1: expected a duration longer than zero: seconds as a number (30) or a string with a unit (\"500ms\", \"30s\", \"10m\", \"1h\"), at most 100 years, found the string \"soon\"",
                "\(dropIn):6: key \"plugin\" in [[channel]] number 2: missing; every channel names its plugin, for example plugin = \"loopback\"",
            ]
        )
    }

    /// A plugin's own check of a key from a drop-in names the drop-in, and the keys from the main file
    /// still name the main file.
    @Test func aPluginSettingFromADropInNamesTheDropIn() throws {
        let layers = Layers()
        let main = layers.write("etc/attendant.toml", Self.administrator)
        let dropIn = layers.write(
            "etc/attendant.toml.d/10-fast.toml",
            "[[channel]]\nname = \"desk\"\n[channel.loopback]\ncontact-interval = \"often\"\n"
        )
        let settings = try #require(try layers.load().channels.first).pluginSettings()
        #expect(throws: SettingsError.self) { try settings.duration("contact-interval") }
        #expect(
            settings.error("contact-interval", "x").description
                == "\(dropIn):4: key \"contact-interval\" in [channel.loopback] of channel \"desk\": x"
        )
        #expect(settings.error("ring-timeout", "x").description == "\(main):11: key \"ring-timeout\" in [channel.loopback] of channel \"desk\": x")
    }

    @Test func aNameTwiceInOneFileIsADuplicateEvenWhenAnEarlierFileHasIt() {
        let layers = Layers()
        layers.write("etc/attendant.toml", Self.administrator)
        // The first "desk" here extends /etc's; the second is a second channel of that name.
        let user = layers.write(
            "config/attendant/attendant.toml",
            "[[channel]]\nname = \"desk\"\n\n[[channel]]\nname = \"desk\"\nplugin = \"loopback\"\n"
        )
        #expect(
            layers.problems() == [
                "\(user):5: key \"name\" in [[channel]] number 2: a channel named \"desk\" is already defined (first at line 2); channel names must be unique"
            ]
        )
    }

    @Test func missingLayersAreSkippedButNoneAtAllIsAnError() throws {
        let layers = Layers()
        #expect {
            try layers.load()
        } throws: { error in
            "\(error)"
                == "no configuration: none of \(layers.system)/attendant.toml, \(layers.system)/attendant.toml.d/*.toml, \(layers.user)/attendant.toml, \(layers.user)/attendant.toml.d/*.toml exists"
        }
        let only = layers.write("config/attendant/attendant.toml.d/10-only.toml", "[[channel]]\nname = \"a\"\nplugin = \"loopback\"\n")
        #expect(try layers.load().files == [only])
        #expect(layers.sources.userFile == layers.user + "/attendant.toml")
    }

    /// A file that exists and cannot be read is an error, not a layer silently left out; so is a syntax
    /// error in any layer, each naming its file, line and column.
    @Test func anUnreadableOrBrokenLayerIsAnErrorThatNamesIt() {
        let layers = Layers()
        layers.write("etc/attendant.toml", Self.administrator)
        mkdir(layers.folder.path + "/config/attendant/attendant.toml.d/20-folder.toml", 0o755)  // not a file: skipped
        mkdir(layers.user + "/attendant.toml", 0o755)
        let broken = layers.write("config/attendant/attendant.toml.d/30-broken.toml", "[daemon]\nlog-level = \n")
        let problems = layers.problems()
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.first == "\(layers.user)/attendant.toml: cannot read the configuration: Is a directory")
        #expect(problems.last?.hasPrefix("\(broken):2:") == true, "\(problems)")
    }

    /// `--config` with several paths: exactly those, in order; a folder stands for its `*.toml` files, and
    /// a missing path is an error.
    @Test func explicitFilesAndFolders() throws {
        let layers = Layers()
        let first = layers.write("etc/attendant.toml", Self.administrator)
        let second = layers.write("etc/attendant.toml.d/10-quiet.toml", "[alerts]\nring = false\n")
        let configuration = try AttendantConfiguration.load(ConfigurationSources(files: [first, layers.system + "/attendant.toml.d"]))
        #expect(configuration.files == [first, second])
        #expect(configuration.alerts.ring == false)
        #expect {
            try AttendantConfiguration.load(ConfigurationSources(files: [first, layers.folder.path + "/missing.toml"]))
        } throws: { error in
            "\(error)" == "\(layers.folder.path)/missing.toml: cannot read the configuration: No such file or directory"
        }
    }

    /// `--cat-config`: the merged values with their files and lines, in TOML that reads back to the same
    /// configuration.
    @Test func theListingShowsWhereEachValueComesFromAndReadsBack() throws {
        let layers = Layers()
        let main = layers.write("etc/attendant.toml", Self.administrator)
        let user = layers.write(
            "config/attendant/attendant.toml",
            "[daemon]\nlog-level = \"debug\"\n\n[[channel]]\nname = \"desk\"\nchat-alert-title = \"Tab\\there \\\"quoted\\\"\"\n[channel.loopback]\ncontact-interval = 10\n"
        )
        let tree = try layers.sources.tree()
        let listing = ConfigurationListing(tree).text
        #expect(
            listing == """
                # The configuration attendantd reads, merged from these files in order (later values win):
                #   \(main)
                #   \(user)

                [daemon]  # \(main):1
                log-level = "debug"  # \(user):2

                [[channel]]  # \(main):4
                name = "desk"  # \(user):5
                plugin = "loopback"  # \(main):6
                keepalive-interval = "5m"  # \(main):7
                chat-alert-title = "Tab\\there \\"quoted\\""  # \(user):6

                [channel.loopback]  # \(main):9
                contact-interval = 10  # \(user):8
                ring-timeout = 20  # \(main):11

                [alerts]  # \(main):13
                ring = true  # \(main):14

                """
        )
        let again = try AttendantConfiguration(toml: listing, file: nil)
        var merged = try AttendantConfiguration(tree: tree)
        merged.files = []
        var reread = again
        for index in reread.channels.indices {
            (reread.channels[index].place, reread.channels[index].settingPlaces, reread.channels[index].keyPlaces) = (nil, [:], [:])
            (merged.channels[index].place, merged.channels[index].settingPlaces, merged.channels[index].keyPlaces) = (nil, [:], [:])
        }
        #expect(reread == merged)
    }

    /// A table that holds only tables is named by their headers, not by one of its own: a table nested 300
    /// deep lists as one header, not 300 ever longer ones (Fuzz/Configuration timed out on 700), and an
    /// empty table still lists, so that the listing reads back to the same tree.
    @Test func aTableThatHoldsOnlyTablesIsListedThroughThem() throws {
        let layers = Layers()
        let path = (1...300).map { "k\($0)" }.joined(separator: ".")
        let main = layers.write("etc/attendant.toml", "[deep.\(path)]\nvalue = 1\n\n[empty]\n")
        let tree = try layers.sources.tree()
        let listing = ConfigurationListing(tree).text
        #expect(listing.utf8.count < 4 * path.utf8.count, "\(listing.utf8.count) bytes")
        #expect(listing.contains("\n[deep.\(path)]  # \(main):1\nvalue = 1  # \(main):2\n"))
        #expect(listing.contains("\n[empty]  # \(main):4\n"))
        #expect(!listing.contains("\n[deep]"))

        let again = Layers()
        again.write("etc/attendant.toml", listing)
        #expect(try again.sources.tree().root == tree.root)
    }

    /// Deep tables inside an array of tables other than `[[channel]]`, and inside an inline value, are
    /// listed as TOML that toml++ reads back: it refuses values nested more than 256 deep
    /// (TOML_MAX_NESTED_VALUES), and dotted keys nest no value. The listing wrote every array of tables but
    /// `channel`'s, and every table inside an inline value, as nested inline tables, one level each: found
    /// by Fuzz/Configuration (`seeds/regression-array-of-tables-nested-deep`), whose listing did not read
    /// back.
    @Test func deepTablesInArraysOfTablesAndInlineValuesAreListedAsTOMLThatReadsBack() throws {
        let layers = Layers()
        let path = (1...300).map { "k\($0)" }.joined(separator: ".")
        layers.write(
            "etc/attendant.toml",
            "mixed = [1, { \(path) = 2, \(path)x = 3, empty = {} }]\nnone = []\n\n[[item]]\nname = \"a\"\n\(path) = 1\n\n[[item]]\n"
        )
        let tree = try layers.sources.tree()
        let listing = ConfigurationListing(tree).text
        #expect(listing.contains("\n[[item]]"))
        #expect(listing.contains("none = []"))

        let again = Layers()
        again.write("etc/attendant.toml", listing)
        #expect(try again.sources.tree().root == tree.root, "\(listing)")
    }
}
