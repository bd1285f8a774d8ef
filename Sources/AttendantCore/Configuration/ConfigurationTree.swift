package import AttendantPluginAPI
import TOMLKit

/// Where a value of the configuration was written: its file and, when known, its line.
package struct ConfigurationPlace: Sendable, Hashable, CustomStringConvertible {
    /// The file; nil for text that came from no file (the built-in demo configuration).
    package var file: String?
    package var line: Int?

    package init(file: String?, line: Int?) {
        self.file = file
        self.line = line
    }

    /// `file:line`, `file`, or `line N` without a file.
    package var description: String {
        switch (self.file, self.line) {
        case (let file?, let line?): "\(file):\(line)"
        case (let file?, nil): file
        case (nil, let line?): "line \(line)"
        case (nil, nil): "the configuration"
        }
    }
}

/// The configuration as TOML values, before they are read into ``AttendantConfiguration``: one file's,
/// or several files merged in order, with the place of every value.
///
/// Merging follows systemd's drop-ins: a later file overrides an earlier one key by key, tables merge
/// recursively, and any other value (arrays included) is replaced whole. `[[channel]]` tables are the
/// exception to "arrays are replaced": they merge by `name`, so a drop-in that names a channel defined
/// earlier changes only the keys it writes, and one with a new name adds a channel. A name written twice
/// in one file stays two channels, which the reader reports as a duplicate.
package struct ConfigurationTree: Sendable {
    /// The top-level table.
    package private(set) var root: [String: SettingValue] = [:]
    /// The place of every value and table, by path: `daemon`, `daemon.log-level`, `channel[0]`,
    /// `channel[0].name`, `channel[0].loopback.contact-interval` (indexes count the merged channels).
    package private(set) var places: [String: ConfigurationPlace] = [:]
    /// The files merged, in order.
    package private(set) var files: [String] = []
    /// Where each path was first written, as (layer, line): the order of keys in a listing, which stays
    /// the order of the first file that wrote them when a later one overrides the value.
    private(set) var firstWritten: [String: FirstWritten] = [:]
    /// How many layers were merged (files, or texts without one).
    private var layers = 0

    struct FirstWritten: Comparable {
        var layer: Int
        var line: Int

        static func < (a: Self, b: Self) -> Bool { (a.layer, a.line) < (b.layer, b.line) }
    }

    package init() {}

    /// One file's text.
    ///
    /// - Throws: ``ConfigurationError`` with a `.syntax` problem naming the file, line and column.
    package init(toml text: String, file: String?) throws(ConfigurationError) {
        if let found = TOMLPrescan.problem(in: text) {
            throw ConfigurationError(.init(.syntax, "\(file ?? "configuration"):\(found.line):\(found.column): not valid TOML: \(found.problem)"))
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            let place = "\(file ?? "configuration"):\(error.source.begin.line):\(error.source.begin.column)"
            throw ConfigurationError(.init(.syntax, "\(place): not valid TOML: \(error.description)"))
        } catch {
            throw ConfigurationError(.init(.syntax, "\(file ?? "configuration"): not valid TOML: \(error)"))
        }
        self.root = SettingValue(toml: table).tableValue
        let lines = KeyLineIndex(text)
        func place(_ path: String, _ value: SettingValue) {
            self.places[path] = ConfigurationPlace(file: file, line: lines[path])
            self.firstWritten[path] = FirstWritten(layer: 0, line: lines[path] ?? Int.max)
            switch value {
            case .table(let entries):
                for (key, entry) in entries { place("\(path).\(key)", entry) }
            default:
                break
            }
        }
        for (key, value) in self.root {
            if key == "channel", case .array(let channels) = value {
                for (index, channel) in channels.enumerated() { place("channel[\(index)]", channel) }
                self.places[key] = ConfigurationPlace(file: file, line: nil)
            } else {
                place(key, value)
            }
        }
        if let file { self.files = [file] }
        self.layers = 1
    }

    /// Lays `later` over this tree: its values win, key by key.
    package mutating func merge(_ later: ConfigurationTree) {
        self.files += later.files
        defer { self.layers += later.layers }
        for (key, value) in later.root {
            if key == "channel", case .array(let added) = value, added.allSatisfy(\.isTable),
                case var channels = self.root[key]?.arrayValue ?? [], channels.allSatisfy(\.isTable)
            {
                var namedInThisFile: Set<String> = []
                for (index, channel) in added.enumerated() {
                    let name = channel.tableValue["name"]?.stringValue
                    let target: Int
                    if let name, !namedInThisFile.contains(name),
                        let existing = channels.firstIndex(where: { $0.tableValue["name"]?.stringValue == name })
                    {
                        target = existing
                        channels[existing] = Self.merged(channels[existing], channel)
                    } else {
                        target = channels.count
                        channels.append(channel)
                    }
                    if let name { namedInThisFile.insert(name) }
                    self.takePlaces(from: later, at: "channel[\(index)]", as: "channel[\(target)]", value: channel)
                }
                self.root[key] = .array(channels)
                if self.places[key] == nil { self.places[key] = later.places[key] }
            } else {
                self.root[key] = self.root[key].map { Self.merged($0, value) } ?? value
                self.takePlaces(from: later, at: key, as: key, value: value)
            }
        }
    }

    /// `later` over `earlier`: tables merge key by key, anything else is replaced.
    private static func merged(_ earlier: SettingValue, _ later: SettingValue) -> SettingValue {
        guard case .table(var entries) = earlier, case .table(let laterEntries) = later else { return later }
        for (key, value) in laterEntries {
            entries[key] = entries[key].map { Self.merged($0, value) } ?? value
        }
        return .table(entries)
    }

    /// Copies the places of `value` (at `path` in `later`) to `target` here. A table that already has a
    /// place keeps it: a channel's header stays where the channel was first named.
    private mutating func takePlaces(from later: ConfigurationTree, at path: String, as target: String, value: SettingValue) {
        if self.firstWritten[target] == nil, var first = later.firstWritten[path] {
            first.layer += self.layers
            self.firstWritten[target] = first
        }
        if case .table(let entries) = value {
            if self.places[target] == nil { self.places[target] = later.places[path] }
            for (key, entry) in entries {
                self.takePlaces(from: later, at: "\(path).\(key)", as: "\(target).\(key)", value: entry)
            }
        } else {
            self.places[target] = later.places[path]
        }
    }

    /// The place of the value at `path`.
    package subscript(place path: String) -> ConfigurationPlace? { self.places[path] }
}

extension SettingValue {
    var isTable: Bool { if case .table = self { true } else { false } }

    var stringValue: String? { if case .string(let s) = self { s } else { nil } }

    var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }

    var integerValue: Int? { if case .integer(let i) = self { Int(exactly: i) } else { nil } }

    var doubleValue: Double? { if case .double(let d) = self { d } else { nil } }

    var arrayValue: [SettingValue]? { if case .array(let items) = self { items } else { nil } }

    var tableValueIfTable: [String: SettingValue]? { if case .table(let entries) = self { entries } else { nil } }
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
