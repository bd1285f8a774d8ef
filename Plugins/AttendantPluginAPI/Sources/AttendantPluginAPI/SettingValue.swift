// MARK: - Host API: settings

/// A value from the configuration file, as TOML types it.
public enum SettingValue: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    /// A TOML date, time or date-time, in its RFC 3339 text form.
    case dateTime(String)
    case array([SettingValue])
    case table([String: SettingValue])

    /// The TOML type name, for error messages: "a string", "an integer", ….
    public var typeDescription: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .double: "a floating-point number"
        case .bool: "a boolean"
        case .dateTime: "a date-time"
        case .array: "an array"
        case .table: "a table"
        }
    }

    /// The type and value, for error messages: `the string "soon"`, `the integer -3`.
    public var description: String {
        switch self {
        case .string(let s): "the string \"\(s)\""
        case .integer(let i): "the integer \(i)"
        case .double(let d): "the number \(d)"
        case .bool(let b): "the boolean \(b)"
        case .dateTime(let d): "the date-time \(d)"
        case .array: "an array"
        case .table: "a table"
        }
    }
}

/// A setting that is missing, of the wrong type or out of range.
///
/// Its ``description`` is the message the user sees: file and line when known, the key, the table and
/// channel it belongs to, what was expected and what was found.
public struct SettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The configuration file, if the settings came from one.
    public var file: String?
    /// The line of the key in the file, when known.
    public var line: Int?
    /// The key, for example `contact-interval`.
    public var key: String
    /// Where the key lives, for example `[channel.loopback] of channel "desk"`.
    public var scope: String
    /// What was wrong and what was expected.
    public var problem: String

    public init(file: String?, line: Int?, key: String, scope: String, problem: String) {
        self.file = file
        self.line = line
        self.key = key
        self.scope = scope
        self.problem = problem
    }

    public var description: String {
        var location = ""
        if let file {
            location = file
            if let line { location += ":\(line)" }
            location += ": "
        }
        let scope = self.scope.isEmpty ? "" : " in \(self.scope)"
        return "\(location)key \"\(self.key)\"\(scope): \(self.problem)"
    }
}
