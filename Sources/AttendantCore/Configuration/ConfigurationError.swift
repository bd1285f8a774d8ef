import AttendantPluginAPI

/// Everything wrong with a configuration (one file or several), reported together so the user fixes it in one go.
package struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    package var problems: [Problem]

    package init(_ problems: [Problem]) { self.problems = problems }

    package init(_ problem: Problem) { self.problems = [problem] }

    /// One line per problem.
    package var description: String { self.problems.map(\.description).joined(separator: "\n") }

    /// One problem, with its place in the file.
    package struct Problem: Sendable, Hashable, CustomStringConvertible {
        package var code: Code
        package var message: String

        package init(_ code: Code, _ message: String) {
            self.code = code
            self.message = message
        }

        package var description: String { self.message }

        /// A problem about a key, at `place`: the same form as a plugin's ``SettingsError``.
        package static func key(
            _ code: Code,
            place: ConfigurationPlace?,
            key: String,
            scope: String,
            _ problem: String
        ) -> Problem {
            self.key(code, file: place?.file, line: place?.line, key: key, scope: scope, problem)
        }

        /// A problem about a key: the same form as a plugin's ``SettingsError``.
        package static func key(
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
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: String
        package init(_ rawValue: String) { self.rawValue = rawValue }

        /// The file cannot be read (missing, permissions).
        package static let unreadable = Code("unreadable")
        /// None of the configuration's layers exists.
        package static let noConfiguration = Code("no-configuration")
        /// The file is not valid TOML.
        package static let syntax = Code("syntax")
        /// A key nobody knows.
        package static let unknownKey = Code("unknown-key")
        /// A required key is missing.
        package static let missingKey = Code("missing-key")
        /// A value of the wrong TOML type.
        package static let wrongType = Code("wrong-type")
        /// A value of the right type that is not allowed.
        package static let invalidValue = Code("invalid-value")
        /// Two channels with one name.
        package static let duplicateChannel = Code("duplicate-channel")
        /// A plugin rejected its settings, or could not be loaded to check them.
        package static let plugin = Code("plugin")

        package var description: String { self.rawValue }
    }
}
