import Synchronization

// MARK: - Host API: settings

/// A plugin's own settings: the `[channel.<plugin>]` table of one `[[channel]]` in the configuration.
///
/// Read each setting with the typed accessors; they throw a ``SettingsError`` naming the file, line and
/// key and what was expected. The host remembers which keys a plugin asked for (present or not) and
/// reports every other key of the table as unknown, listing the known ones, so a typo never goes
/// unnoticed.
///
/// ```swift
/// let interval = try settings.duration("contact-interval") ?? .seconds(30)
/// guard interval > .zero else {
///     throw settings.error("contact-interval", "must be longer than zero")
/// }
/// ```
public struct ChannelSettings: Sendable {
    /// The settings as they are in the file.
    public let values: [String: SettingValue]
    /// The configuration file, if any.
    public let file: String?
    /// Where the table is, for messages: `[channel.loopback] of channel "desk"`.
    public let scope: String
    private let lines: [String: Int]
    /// The file of each key that was not written in ``file`` (a drop-in's).
    private let files: [String: String]
    private let ledger: KeyLedger

    public init(
        _ values: [String: SettingValue],
        file: String? = nil,
        scope: String = "",
        lines: [String: Int] = [:]
    ) {
        self.values = values
        self.file = file
        self.scope = scope
        self.lines = lines
        self.files = [:]
        self.ledger = KeyLedger()
    }

    /// Settings whose keys come from several files: the host's configuration merges drop-ins
    /// (`attendant.toml.d/*.toml`), so each key's message names the file it was written in, `files[key]`,
    /// and ``file`` only where that has no entry. Plugins read settings and never make them; this is for
    /// hosts and test kits.
    public init(
        _ values: [String: SettingValue],
        file: String?,
        scope: String,
        lines: [String: Int],
        files: [String: String]
    ) {
        self.values = values
        self.file = file
        self.scope = scope
        self.lines = lines
        self.files = files
        self.ledger = KeyLedger()
    }

    // MARK: Typed accessors

    public func string(_ key: String) throws -> String? {
        try self.read(key, expected: "a string") { if case .string(let s) = $0 { s } else { nil } }
    }

    public func integer(_ key: String) throws -> Int? {
        try self.read(key, expected: "an integer") {
            if case .integer(let i) = $0 { Int(exactly: i) } else { nil }
        }
    }

    public func double(_ key: String) throws -> Double? {
        try self.read(key, expected: "a number") {
            switch $0 {
            case .double(let d): d
            case .integer(let i): Double(i)
            default: nil
            }
        }
    }

    public func bool(_ key: String) throws -> Bool? {
        try self.read(key, expected: "true or false") { if case .bool(let b) = $0 { b } else { nil } }
    }

    /// A duration: a number of seconds (`30`, `1.5`) or a string with a unit (`"500ms"`, `"30s"`,
    /// `"10m"`, `"1h"`).
    public func duration(_ key: String) throws -> Duration? {
        try self.read(key, expected: Self.durationExpectation) { Self.parseDuration($0) }
    }

    public func strings(_ key: String) throws -> [String]? {
        try self.read(key, expected: "an array of strings") {
            guard case .array(let items) = $0 else { return nil }
            var strings: [String] = []
            for item in items {
                guard case .string(let s) = item else { return nil }
                strings.append(s)
            }
            return strings
        }
    }

    /// A nested table, such as `[channel.sip-voice.tls]`, as settings of its own.
    public func table(_ key: String) throws -> ChannelSettings? {
        try self.read(key, expected: "a table") {
            guard case .table(let table) = $0 else { return nil }
            return ChannelSettings(table, file: self.files[key] ?? self.file, scope: "\(self.scope) table \"\(key)\"")
        }
    }

    /// Checks that `url`, the value of `key`, is an absolute URL with one of `schemes` (`https`, `wss`, …)
    /// and something after `://` (since API 1.5).
    ///
    /// - Throws: ``SettingsError`` naming the key: `"gms.example" is not a http or https URL`.
    public func checkURL(_ url: String, key: String, schemes: [String]) throws {
        guard let colon = url.firstIndex(of: ":"), schemes.contains(url[..<colon].lowercased()), url[colon...].hasPrefix("://"),
            url.count > url.distance(from: url.startIndex, to: colon) + 3
        else {
            throw self.error(key, "\"\(url)\" is not a \(schemes.joined(separator: " or ")) URL")
        }
    }

    /// An error about `key` that the plugin found itself, such as a value out of range.
    public func error(_ key: String, _ problem: String) -> SettingsError {
        SettingsError(file: self.files[key] ?? self.file, line: self.lines[key], key: key, scope: self.scope, problem: problem)
    }

    // MARK: Key accounting (used by the host)

    /// The keys the plugin asked for so far, whether they were present or not.
    public var knownKeys: Set<String> { self.ledger.keys }

    /// The keys present in the table that the plugin never asked for, sorted.
    public var unknownKeys: [String] {
        let known = self.ledger.keys
        return self.values.keys.filter { !known.contains($0) }.sorted()
    }

    /// A ``SettingsError`` for each unknown key, naming the keys the plugin knows.
    public func unknownKeyErrors(plugin: String) -> [SettingsError] {
        let known = self.ledger.keys.sorted()
        let hint =
            known.isEmpty
            ? "the \(plugin) plugin takes no settings"
            : "the \(plugin) plugin knows \(known.map { "\"\($0)\"" }.joined(separator: ", "))"
        return self.unknownKeys.map { self.error($0, "unknown key; \(hint)") }
    }

    // MARK: Private

    private func read<T>(_ key: String, expected: String, _ convert: (SettingValue) -> T?) throws -> T? {
        self.ledger.insert(key)
        guard let value = self.values[key] else { return nil }
        guard let converted = convert(value) else {
            throw self.error(key, "expected \(expected), found \(value)")
        }
        return converted
    }

    static let durationExpectation =
        "a duration: seconds as a number (30) or a string with a unit (\"500ms\", \"30s\", \"10m\", \"1h\"), at most 100 years"

    /// The longest duration a setting may give: 100 years (36,525 days). A longer one is no setting anyone
    /// means, and sleeping for it would overflow the nanoseconds a sleep counts in (Int64).
    static let longestDuration: Int64 = 3_155_760_000

    /// Parses `30`, `1.5`, `"500ms"`, `"30s"`, `"10m"`, `"1h"`, up to 100 years; returns nil for anything else.
    public static func parseDuration(_ value: SettingValue) -> Duration? {
        switch value {
        case .integer(let seconds):
            return Self.duration(milliseconds: Double(seconds) * 1000)
        case .double(let seconds):
            return Self.duration(milliseconds: seconds * 1000)
        case .string(let text):
            let units: [(suffix: String, milliseconds: Double)] = [
                ("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000),
            ]
            for unit in units where text.hasSuffix(unit.suffix) {
                let number = text.dropLast(unit.suffix.count)
                guard let amount = Double(number), number.allSatisfy({ $0.isNumber || $0 == "." }) else { return nil }
                return Self.duration(milliseconds: amount * unit.milliseconds)
            }
            return nil
        default:
            return nil
        }
    }

    /// `milliseconds` rounded, if it is a duration from 0 to ``longestDuration`` (the fuzz target found
    /// 70 digits of minutes, which made an Int64 past Int64.max and stopped the daemon).
    private static func duration(milliseconds: Double) -> Duration? {
        guard milliseconds.isFinite, milliseconds >= 0, milliseconds <= Double(Self.longestDuration) * 1000 else { return nil }
        return .milliseconds(Int64(milliseconds.rounded()))
    }
}

/// The set of keys a plugin asked for; shared by copies of one ``ChannelSettings``.
private final class KeyLedger: Sendable {
    private let asked = Mutex<Set<String>>([])

    func insert(_ key: String) { self.asked.withLock { _ = $0.insert(key) } }

    var keys: Set<String> { self.asked.withLock { $0 } }
}
