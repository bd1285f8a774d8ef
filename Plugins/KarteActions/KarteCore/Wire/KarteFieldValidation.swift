import AttendantPluginKit

/// Why an event was refused before it was queued. It names the event and the field, so the person who
/// wrote `attendantctl actions track … size=3` learns which name to change.
package struct KarteFieldError: Error, Sendable, Hashable, CustomStringConvertible {
    package var event: String
    /// The offending field name; empty when the problem is the event name itself.
    package var field: String
    package var problem: String

    package init(event: String, field: String, problem: String) {
        self.event = event
        self.field = field
        self.problem = problem
    }

    package var description: String {
        self.field.isEmpty
            ? "event name \"\(self.event)\" is refused: \(self.problem)"
            : "event \"\(self.event)\": field \"\(self.field)\" is refused: \(self.problem)"
    }
}

extension KarteEvent {
    /// Field names KARTE's event store reserves; both SDKs drop an event that uses one
    /// (iOS `InvalidEventFieldNameFilterRule.swift:20`, Android `EventValidator.kt`).
    package static let rejectedFieldNames: Set<String> = [
        "_source", "_system", "any", "avg", "cache", "count", "count_sets", "date", "f_t", "first", "keys", "l_t",
        "last", "lrus", "max", "min", "o", "prev", "sets", "size", "span", "sum", "type", "v",
    ]

    /// Checks the event as the SDKs do: a non-empty name, and top-level value names that are not reserved,
    /// contain no `.` and do not start with `$`. Nested objects are the application's own and are not
    /// checked (neither SDK descends into them). The fields are checked in name order so the error is stable.
    package func validate() throws(KarteFieldError) {
        guard !self.name.isEmpty else { throw KarteFieldError(event: self.name, field: "", problem: "it is empty") }
        for field in self.values.keys.sorted() {
            if Self.rejectedFieldNames.contains(field) {
                throw KarteFieldError(event: self.name, field: field, problem: "the name is reserved by KARTE")
            }
            if field.contains(".") {
                throw KarteFieldError(event: self.name, field: field, problem: "a field name must not contain '.'")
            }
            if field.hasPrefix("$") {
                throw KarteFieldError(event: self.name, field: field, problem: "a field name must not start with '$'")
            }
        }
    }
}
