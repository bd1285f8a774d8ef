#if canImport(AttendantPluginKit)
import AttendantPluginKit
#endif

/// Why a frame, page or document from Genesys was refused. It names the field (as a path from the
/// document's root) and what was wrong with it, never the value: values carry session tokens, JWTs and
/// the text of a conversation, which must not reach a log.
package struct GenesysWireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of wrong it was; compare with the static members.
    package struct Kind: Sendable, Hashable, CustomStringConvertible {
        package var name: String
        package var description: String { self.name }

        /// Not JSON at all (the parser's problem and byte offset follow).
        package static let notJSON = Kind(name: "not JSON")
        /// More bytes than the limit for this kind of document.
        package static let tooLarge = Kind(name: "too large")
        /// Nested deeper than the limit.
        package static let tooDeep = Kind(name: "nested too deeply")
        /// A field the SDK requires is absent (or null).
        package static let missingField = Kind(name: "missing field")
        /// A field has the wrong JSON type.
        package static let wrongType = Kind(name: "wrong type")
        /// A field has the right type but a value outside what the SDK accepts (an unknown enum case,
        /// a fraction where a count belongs).
        package static let badValue = Kind(name: "bad value")
        /// A frame whose `class` the SDK does not know (WebMessagingJson.decodeFromString throws for it).
        package static let unknownClass = Kind(name: "unknown class")
    }

    package var kind: Kind
    package var problem: String
    package var description: String { self.problem }

    package init(_ kind: Kind, _ problem: String) {
        self.kind = kind
        self.problem = problem
    }

    static func missing(_ path: String) -> GenesysWireError {
        GenesysWireError(.missingField, "field \"\(path)\" is missing")
    }

    static func wrong(_ path: String, _ value: JSONValue, expected: String) -> GenesysWireError {
        GenesysWireError(.wrongType, "field \"\(path)\" is \(value.typeDescription), expected \(expected)")
    }

    static func bad(_ path: String, _ why: String) -> GenesysWireError {
        GenesysWireError(.badValue, "field \"\(path)\" \(why)")
    }
}
