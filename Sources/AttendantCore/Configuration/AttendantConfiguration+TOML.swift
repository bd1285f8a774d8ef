import AttendantPluginAPI

extension AttendantConfiguration {
    /// Reads one configuration file (`attendantd --config FILE`).
    ///
    /// - Throws: ``ConfigurationError`` listing every problem, each naming the file, line and key.
    package static func load(from path: String) throws(ConfigurationError) -> AttendantConfiguration {
        try self.load(ConfigurationSources(files: [path]))
    }

    /// Reads `sources`' files in order, each overriding the ones before it key by key
    /// (``ConfigurationTree/merge(_:)``).
    ///
    /// - Throws: ``ConfigurationError`` listing every problem, each naming the file and line of the value
    ///   it is about, whichever file that is.
    package static func load(_ sources: ConfigurationSources) throws(ConfigurationError) -> AttendantConfiguration {
        try AttendantConfiguration(tree: sources.tree())
    }

    /// Parses a configuration from TOML text.
    package init(toml text: String, file: String?) throws(ConfigurationError) {
        try self.init(tree: ConfigurationTree(toml: text, file: file))
    }

    /// Reads the merged values of ``ConfigurationTree``.
    package init(tree: ConfigurationTree) throws(ConfigurationError) {
        let reading = Self.read(tree)
        guard reading.problems.isEmpty else { throw ConfigurationError(reading.problems) }
        self = reading.configuration
    }

    /// Reads `tree`: the configuration (defaults where a value is missing or wrong), every problem, and the
    /// keys asked for in each table, present or not, by table (``knownKeys``).
    static func read(
        _ tree: ConfigurationTree
    ) -> (configuration: AttendantConfiguration, problems: [ConfigurationError.Problem], keys: [String: [String]]) {
        var problems: [ConfigurationError.Problem] = []
        var keys: [String: [String]] = [:]
        var reader = TableReader(table: tree.root, path: "", scope: "the top level", tree: tree)
        func section<T>(_ name: String, _ read: (inout TableReader) -> T) -> T? {
            guard let table = reader.table(name) else { return nil }
            var sectionReader = TableReader(table: table, path: name, scope: "[\(name)]", tree: tree)
            let value = read(&sectionReader)
            problems += sectionReader.finish(knownHint: "[\(name)] takes")
            keys[name] = sectionReader.read
            return value
        }

        let daemon = section("daemon") { $0.daemonSettings() } ?? DaemonSettings()

        var channels: [ChannelConfiguration] = []
        if let array = reader.arrayOfTables("channel") {
            var firstPlaceOfName: [String: ConfigurationPlace?] = [:]
            for (position, table) in array.enumerated() {
                let path = "channel[\(position)]"
                var channelReader = TableReader(table: table, path: path, scope: "[[channel]] number \(position + 1)", tree: tree)
                if let channel = channelReader.channel() {
                    if let earlier = firstPlaceOfName[channel.name] {
                        let where_ = channelReader.reference(to: earlier, from: "name").map { " (first at \($0))" } ?? ""
                        channelReader.problem(
                            .duplicateChannel,
                            "name",
                            "a channel named \"\(channel.name)\" is already defined\(where_); channel names must be unique"
                        )
                    } else {
                        firstPlaceOfName[channel.name] = tree[place: "\(path).name"]
                    }
                    channels.append(channel)
                }
                problems += channelReader.problems
                keys["channel"] = channelReader.read
            }
        }
        let alerts = section("alerts") { $0.alertSettings() } ?? AlertSettings()
        let session = section("session") { $0.sessionSettings() } ?? SessionSettings()
        let links = section("links") { $0.linkSettings() } ?? LinkSettings()
        let metrics = section("metrics") { $0.metricsSettings() } ?? MetricsSettings()
        problems += reader.finish(knownHint: "the top level takes")
        keys[""] = reader.read
        let configuration = AttendantConfiguration(
            daemon: daemon,
            channels: channels,
            alerts: alerts,
            session: session,
            links: links,
            metrics: metrics,
            files: tree.files
        )
        return (configuration, problems, keys)
    }
}

/// Reads one TOML table, remembering which keys were read and collecting problems.
struct TableReader {
    let table: [String: SettingValue]
    let path: String
    let scope: String
    /// Where each value was written.
    let tree: ConfigurationTree
    private(set) var problems: [ConfigurationError.Problem] = []
    /// The keys asked for, present or not, in order.
    private(set) var read: [String] = []
    /// Keys already reported, which ``finish(knownHint:)`` must not report again.
    private var reported: Set<String> = []

    init(table: [String: SettingValue], path: String, scope: String, tree: ConfigurationTree) {
        self.table = table
        self.path = path
        self.scope = scope
        self.tree = tree
    }

    /// Where `key` of this table was written; without a place of its own (a key that is missing), where
    /// the table was.
    func place(_ key: String) -> ConfigurationPlace? {
        self.tree[place: self.path.isEmpty ? key : "\(self.path).\(key)"] ?? self.tablePlace
    }

    /// Where this table was written: the header of a `[[channel]]`, or the first file for the top level.
    var tablePlace: ConfigurationPlace? {
        self.path.isEmpty ? self.tree.files.first.map { ConfigurationPlace(file: $0, line: nil) } : self.tree[place: self.path]
    }

    /// `line 5` for a place in the file of `key`'s value, else `file:5`: how a message about `key` points
    /// at another value.
    func reference(to place: ConfigurationPlace?, from key: String) -> String? {
        guard let place else { return nil }
        if place.file == self.place(key)?.file, let line = place.line { return "line \(line)" }
        return place.file == nil && place.line == nil ? nil : place.description
    }

    mutating func problem(_ code: ConfigurationError.Code, _ key: String, _ message: String) {
        self.problems.append(.key(code, place: self.place(key), key: key, scope: self.scope, message))
    }

    private mutating func value(_ key: String) -> SettingValue? {
        self.read.append(key)
        return self.table[key]
    }

    private mutating func typed<T>(_ key: String, _ expected: String, _ convert: (SettingValue) -> T?) -> T? {
        guard let value = self.value(key) else { return nil }
        guard let converted = convert(value) else {
            self.problem(.wrongType, key, "expected \(expected), found \(value)")
            return nil
        }
        return converted
    }

    mutating func string(_ key: String) -> String? { self.typed(key, "a string") { $0.stringValue } }

    mutating func bool(_ key: String) -> Bool? { self.typed(key, "true or false") { $0.boolValue } }

    /// A file's path: absolute, or from the home folder (`~/`, expanded where the file is used).
    mutating func path(_ key: String) -> String? {
        guard let path = self.string(key) else { return nil }
        guard path.hasPrefix("/") || path.hasPrefix("~/") else {
            self.problem(.invalidValue, key, "expected an absolute path or one starting with ~/, found \"\(path)\"")
            return nil
        }
        return path
    }

    mutating func integer(_ key: String) -> Int? { self.typed(key, "an integer") { $0.integerValue } }

    mutating func number(_ key: String) -> Double? {
        self.typed(key, "a number") { $0.doubleValue ?? $0.integerValue.map(Double.init) }
    }

    mutating func strings(_ key: String) -> [String]? {
        self.typed(key, "an array of strings") { value in
            guard let array = value.arrayValue else { return nil }
            var strings: [String] = []
            for item in array {
                guard let s = item.stringValue else { return nil }
                strings.append(s)
            }
            return strings
        }
    }

    mutating func duration(_ key: String, positive: Bool = true) -> Duration? {
        guard let setting = self.value(key) else { return nil }
        guard let duration = ChannelSettings.parseDuration(setting), !positive || duration > .zero else {
            let kind = positive ? "a duration longer than zero" : "a duration"
            self.problem(
                .invalidValue,
                key,
                "expected \(kind): seconds as a number (30) or a string with a unit (\"500ms\", \"30s\", \"10m\", \"1h\"), at most 100 years, found \(setting)"
            )
            return nil
        }
        return duration
    }

    mutating func table(_ key: String) -> [String: SettingValue]? { self.typed(key, "a table") { $0.tableValueIfTable } }

    mutating func arrayOfTables(_ key: String) -> [[String: SettingValue]]? {
        self.typed(key, "an array of tables ([[\(key)]])") { value in
            guard let array = value.arrayValue else { return nil }
            var tables: [[String: SettingValue]] = []
            for item in array {
                guard let table = item.tableValueIfTable else { return nil }
                tables.append(table)
            }
            return tables
        }
    }

    /// Problems for every key that was not read.
    mutating func finish(knownHint: String) -> [ConfigurationError.Problem] {
        let known = Set(self.read).union(self.reported)
        let hint = "\(knownHint) " + self.read.map { "\"\($0)\"" }.joined(separator: ", ")
        for key in self.table.keys.sorted() where !known.contains(key) {
            self.problem(.unknownKey, key, "unknown key; \(hint)")
        }
        return self.problems
    }

    // MARK: Sections

    mutating func daemonSettings() -> DaemonSettings {
        var daemon = DaemonSettings()
        if let path = self.strings("plugin-path") { daemon.pluginPath = path }
        if let level = self.string("log-level") {
            if let parsed = Logger.Level(rawValue: level) {
                daemon.logLevel = parsed
            } else {
                self.problem(
                    .invalidValue,
                    "log-level",
                    "expected one of \"trace\", \"debug\", \"info\", \"notice\", \"warning\", \"error\", \"critical\", found the string \"\(level)\""
                )
            }
        }
        if let directory = self.string("state-directory") {
            if directory.hasPrefix("/") || directory.hasPrefix("~/") {
                daemon.stateDirectory = directory
            } else {
                self.problem(.invalidValue, "state-directory", "expected an absolute path or one starting with ~/, found \"\(directory)\"")
            }
        }
        if let timeout = self.duration("shutdown-timeout") { daemon.shutdownTimeout = timeout }
        return daemon
    }

    mutating func channel() -> ChannelConfiguration? {
        let name = self.string("name")
        let plugin = self.string("plugin")
        // Missing or mistyped name or plugin were reported as they were read.
        var valid = name != nil && plugin != nil
        if self.table["name"] == nil {
            self.problems.append(
                .key(
                    .missingKey,
                    place: self.tablePlace,
                    key: "name",
                    scope: self.scope,
                    "missing; every channel needs a name = \"…\" (letters, digits, - and _)"
                )
            )
        }
        if let name, !ChannelConfiguration.isValidName(name) {
            self.problem(.invalidValue, "name", "expected letters, digits, - and _ (at most 64), found \"\(name)\"")
            valid = false
        }
        if self.table["plugin"] == nil {
            self.problems.append(
                .key(
                    .missingKey,
                    place: self.tablePlace,
                    key: "plugin",
                    scope: self.scope,
                    "missing; every channel names its plugin, for example plugin = \"loopback\""
                )
            )
        }
        if let plugin, plugin.isEmpty {
            self.problem(.invalidValue, "plugin", "expected a plugin name or a path to a .so file, found an empty string")
            valid = false
        }
        var channel = ChannelConfiguration(name: name ?? "", plugin: plugin ?? "")
        channel.place = self.tablePlace
        for key in self.table.keys { channel.keyPlaces[key] = self.tree[place: "\(self.path).\(key)"] }
        if let enabled = self.bool("enabled") { channel.enabled = enabled }
        if let interval = self.duration("keepalive-interval") { channel.keepAliveInterval = interval }
        if let timeout = self.duration("listen-timeout") { channel.listenTimeout = timeout }
        if let verify = self.bool("tls-verify") { channel.verifiesTLS = verify }
        if let path = self.path("tls-ca-file") { channel.tlsCAFile = path }
        channel.token = self.tokenSettings()
        channel.chatAlerts = self.chatAlertSettings()
        if let plugin, !plugin.isEmpty {
            let tableName = ChannelConfiguration.settingsTableName(forPlugin: plugin)
            if let settings = self.table(tableName) {
                channel.settings = settings
                for key in settings.keys {
                    channel.settingPlaces[key] = self.tree[place: "\(self.path).\(tableName).\(key)"]
                }
            }
            let known = Set(self.read)
            for key in self.table.keys.sorted() where !known.contains(key) && self.table[key]?.isTable == true {
                self.reported.insert(key)
                self.problem(
                    .unknownKey,
                    key,
                    "unknown table; the settings of plugin \"\(plugin)\" go in [channel.\(tableName)]"
                )
            }
        }
        _ = self.finish(knownHint: "a [[channel]] takes")
        return valid ? channel : nil
    }
}

extension ChannelConfiguration {
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}
