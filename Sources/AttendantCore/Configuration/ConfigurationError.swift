import AttendantPluginAPI

/// Everything wrong with a configuration file, reported together so the user fixes it in one go.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var problems: [Problem]

    public init(_ problems: [Problem]) { self.problems = problems }

    public init(_ problem: Problem) { self.problems = [problem] }

    /// One line per problem.
    public var description: String { self.problems.map(\.description).joined(separator: "\n") }

    /// One problem, with its place in the file.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        public var code: Code
        public var message: String

        public init(_ code: Code, _ message: String) {
            self.code = code
            self.message = message
        }

        public var description: String { self.message }

        /// A problem about a key: the same form as a plugin's ``SettingsError``.
        public static func key(
            _ code: Code,
            file: String?,
            line: Int?,
            key: String,
            scope: String,
            _ problem: String
        ) -> Problem {
            let error = SettingsError(file: file, line: line, key: key, scope: scope, problem: problem)
            return Problem(code, error.description)
        }
    }

    /// The class of a configuration problem.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// The file cannot be read (missing, permissions).
        public static let unreadable = Code("unreadable")
        /// The file is not valid TOML.
        public static let syntax = Code("syntax")
        /// A key nobody knows.
        public static let unknownKey = Code("unknown-key")
        /// A required key is missing.
        public static let missingKey = Code("missing-key")
        /// A value of the wrong TOML type.
        public static let wrongType = Code("wrong-type")
        /// A value of the right type that is not allowed.
        public static let invalidValue = Code("invalid-value")
        /// Two channels with one name.
        public static let duplicateChannel = Code("duplicate-channel")
        /// A plugin rejected its settings, or could not be loaded to check them.
        public static let plugin = Code("plugin")

        public var description: String { self.rawValue }
    }
}
