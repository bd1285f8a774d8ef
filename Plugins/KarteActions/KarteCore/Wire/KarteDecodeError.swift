#if canImport(AttendantPluginKit)
import AttendantPluginKit
#endif

/// Why a track response could not be read. It names the size, the field path and the types involved,
/// never the content, which may hold personal data and is at most a log level away from a journal.
package struct KarteDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    package var problem: String
    package var description: String { self.problem }
    package init(problem: String) { self.problem = problem }

    static func tooLarge(_ size: Int, limit: Int) -> KarteDecodeError {
        KarteDecodeError(problem: "the response is \(size) bytes, more than the limit of \(limit)")
    }

    static func notJSON(_ error: JSONValue.ParseError, size: Int) -> KarteDecodeError {
        KarteDecodeError(problem: "the response (\(size) bytes) is not JSON: \(error.problem) at byte \(error.offset)")
    }

    static func wrong(_ path: String, _ value: JSONValue?, expected: String) -> KarteDecodeError {
        KarteDecodeError(problem: "field \"\(path)\" is \(value?.typeDescription ?? "missing"), expected \(expected)")
    }
}
