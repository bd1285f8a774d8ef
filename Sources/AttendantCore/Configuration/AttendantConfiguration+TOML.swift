import AttendantPluginAPI
import TOMLKit

extension AttendantConfiguration {
    /// Reads a configuration file.
    ///
    /// - Throws: ``ConfigurationError`` listing every problem, each naming the file, line and key.
    package static func load(from path: String) throws(ConfigurationError) -> AttendantConfiguration {
        let text: String
        do {
            text = try FileContents.read(path)
        } catch {
            throw ConfigurationError(.init(.unreadable, "\(path): cannot read the configuration: \(error)"))
        }
        return try AttendantConfiguration(toml: text, file: path)
    }

    /// Parses a configuration from TOML text.
    package init(toml text: String, file: String?) throws(ConfigurationError) {
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            let place = "\(file ?? "configuration"):\(error.source.begin.line):\(error.source.begin.column)"
            throw ConfigurationError(.init(.syntax, "\(place): not valid TOML: \(error.description)"))
        } catch {
            throw ConfigurationError(.init(.syntax, "\(file ?? "configuration"): not valid TOML: \(error)"))
        }

        let index = KeyLineIndex(text)
        var problems: [ConfigurationError.Problem] = []
        var reader = TableReader(table: root, path: "", scope: "the top level", file: file, index: index)

        var daemon = DaemonSettings()
        if let table = reader.table("daemon") {
            var daemonReader = TableReader(table: table, path: "daemon", scope: "[daemon]", file: file, index: index)
            daemon = daemonReader.daemonSettings()
            problems += daemonReader.finish(knownHint: "[daemon] takes")
        }

        var channels: [ChannelConfiguration] = []
        if let array = reader.arrayOfTables("channel") {
            var firstLineOfName: [String: Int?] = [:]
            for (position, table) in array.enumerated() {
                let path = "channel[\(position)]"
                var channelReader = TableReader(
                    table: table,
                    path: path,
                    scope: "[[channel]] number \(position + 1)",
                    file: file,
                    index: index
                )
                if let channel = channelReader.channel() {
                    if let earlier = firstLineOfName[channel.name] {
                        let where_ = earlier.map { " (first at line \($0))" } ?? ""
                        problems.append(
                            .key(
                                .duplicateChannel,
                                file: file,
                                line: index["\(path).name"],
                                key: "name",
                                scope: channelReader.scope,
                                "a channel named \"\(channel.name)\" is already defined\(where_); channel names must be unique"
                            )
                        )
                    } else {
                        firstLineOfName[channel.name] = index["channel[\(position)].name"]
                    }
                    channels.append(channel)
                }
                problems += channelReader.problems
            }
        }
        var alerts = AlertSettings()
        if let table = reader.table("alerts") {
            var alertsReader = TableReader(table: table, path: "alerts", scope: "[alerts]", file: file, index: index)
            alerts = alertsReader.alertSettings()
            problems += alertsReader.finish(knownHint: "[alerts] takes")
        }
        var session = SessionSettings()
        if let table = reader.table("session") {
            var sessionReader = TableReader(table: table, path: "session", scope: "[session]", file: file, index: index)
            session = sessionReader.sessionSettings()
            problems += sessionReader.finish(knownHint: "[session] takes")
        }
        var links = LinkSettings()
        if let table = reader.table("links") {
            var linksReader = TableReader(table: table, path: "links", scope: "[links]", file: file, index: index)
            links = linksReader.linkSettings()
            problems += linksReader.finish(knownHint: "[links] takes")
        }
        var metrics = MetricsSettings()
        if let table = reader.table("metrics") {
            var metricsReader = TableReader(table: table, path: "metrics", scope: "[metrics]", file: file, index: index)
            metrics = metricsReader.metricsSettings()
            problems += metricsReader.finish(knownHint: "[metrics] takes")
        }
        problems += reader.finish(knownHint: "the top level takes")
        guard problems.isEmpty else { throw ConfigurationError(problems) }

        self.init(daemon: daemon, channels: channels, alerts: alerts, session: session, links: links, metrics: metrics, file: file)
    }
}

/// Reads one TOML table, remembering which keys were read and collecting problems.
struct TableReader {
    let table: TOMLTable
    let path: String
    let scope: String
    let file: String?
    let index: KeyLineIndex
    private(set) var problems: [ConfigurationError.Problem] = []
    private var read: [String] = []
    /// Keys already reported, which ``finish(knownHint:)`` must not report again.
    private var reported: Set<String> = []

    init(table: TOMLTable, path: String, scope: String, file: String?, index: KeyLineIndex) {
        self.table = table
        self.path = path
        self.scope = scope
        self.file = file
        self.index = index
    }

    func line(_ key: String) -> Int? { self.index[self.path.isEmpty ? key : "\(self.path).\(key)"] }

    mutating func problem(_ code: ConfigurationError.Code, _ key: String, _ message: String) {
        self.problems.append(
            .key(code, file: self.file, line: self.line(key), key: key, scope: self.scope, message)
        )
    }

    private mutating func value(_ key: String) -> (any TOMLValueConvertible)? {
        self.read.append(key)
        return self.table[key]
    }

    private mutating func typed<T>(_ key: String, _ expected: String, _ convert: (any TOMLValueConvertible) -> T?) -> T? {
        guard let value = self.value(key) else { return nil }
        guard let converted = convert(value) else {
            self.problem(.wrongType, key, "expected \(expected), found \(SettingValue(toml: value))")
            return nil
        }
        return converted
    }

    mutating func string(_ key: String) -> String? { self.typed(key, "a string") { $0.string } }

    mutating func bool(_ key: String) -> Bool? { self.typed(key, "true or false") { $0.bool } }

    /// A file's path: absolute, or from the home folder (`~/`, expanded where the file is used).
    mutating func path(_ key: String) -> String? {
        guard let path = self.string(key) else { return nil }
        guard path.hasPrefix("/") || path.hasPrefix("~/") else {
            self.problem(.invalidValue, key, "expected an absolute path or one starting with ~/, found \"\(path)\"")
            return nil
        }
        return path
    }

    mutating func integer(_ key: String) -> Int? { self.typed(key, "an integer") { $0.int } }

    mutating func number(_ key: String) -> Double? {
        self.typed(key, "a number") { $0.double ?? $0.int.map(Double.init) }
    }

    mutating func strings(_ key: String) -> [String]? {
        self.typed(key, "an array of strings") { value in
            guard let array = value.array else { return nil }
            var strings: [String] = []
            for item in array {
                guard let s = item.string else { return nil }
                strings.append(s)
            }
            return strings
        }
    }

    mutating func duration(_ key: String, positive: Bool = true) -> Duration? {
        guard let value = self.value(key) else { return nil }
        let setting = SettingValue(toml: value)
        guard let duration = ChannelSettings.parseDuration(setting), !positive || duration > .zero else {
            let kind = positive ? "a duration longer than zero" : "a duration"
            self.problem(
                .invalidValue,
                key,
                "expected \(kind): seconds as a number (30) or a string with a unit (\"500ms\", \"30s\", \"10m\", \"1h\"), found \(setting)"
            )
            return nil
        }
        return duration
    }

    mutating func table(_ key: String) -> TOMLTable? { self.typed(key, "a table") { $0.table } }

    mutating func arrayOfTables(_ key: String) -> [TOMLTable]? {
        self.typed(key, "an array of tables ([[\(key)]])") { value in
            guard let array = value.array else { return nil }
            var tables: [TOMLTable] = []
            for item in array {
                guard let table = item.table else { return nil }
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
                .key(.missingKey, file: self.file, line: self.index[self.path], key: "name", scope: self.scope,
                     "missing; every channel needs a name = \"…\" (letters, digits, - and _)")
            )
        }
        if let name, !ChannelConfiguration.isValidName(name) {
            self.problem(.invalidValue, "name", "expected letters, digits, - and _ (at most 64), found \"\(name)\"")
            valid = false
        }
        if self.table["plugin"] == nil {
            self.problems.append(
                .key(.missingKey, file: self.file, line: self.index[self.path], key: "plugin", scope: self.scope,
                     "missing; every channel names its plugin, for example plugin = \"loopback\"")
            )
        }
        if let plugin, plugin.isEmpty {
            self.problem(.invalidValue, "plugin", "expected a plugin name or a path to a .so file, found an empty string")
            valid = false
        }
        var channel = ChannelConfiguration(name: name ?? "", plugin: plugin ?? "")
        channel.line = self.index[self.path]
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
                channel.settings = SettingValue(toml: settings).tableValue
                channel.settingLines = self.index.lines(under: "\(self.path).\(tableName)")
            }
            let known = Set(self.read)
            for key in self.table.keys.sorted() where !known.contains(key) && self.table[key]?.table != nil {
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

extension SettingValue {
    init(toml value: any TOMLValueConvertible) {
        switch value.type {
        case .string: self = .string(value.string ?? "")
        case .int: self = .integer(Int64(value.int ?? 0))
        case .double: self = .double(value.double ?? 0)
        case .bool: self = .bool(value.bool ?? false)
        case .array: self = .array((value.array ?? []).map { SettingValue(toml: $0) })
        case .table:
            var entries: [String: SettingValue] = [:]
            if let table = value.table {
                for key in table.keys { if let item = table[key] { entries[key] = SettingValue(toml: item) } }
            }
            self = .table(entries)
        case .date, .time, .dateTime: self = .dateTime(value.debugDescription)
        }
    }

    var tableValue: [String: SettingValue] {
        if case .table(let entries) = self { entries } else { [:] }
    }
}
