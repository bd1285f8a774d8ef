import AttendantControl

/// An in-app action channel's answer to one request: string fields, of which `actions` and
/// `variables` hold JSON text.
struct ActionReply {
    /// The fields whose values are JSON text, embedded as JSON in --json output.
    static let jsonFields: Set<String> = ["actions", "variables"]

    var command: String
    var channel: String
    var fields: [String: String]

    subscript(key: String) -> String? { self.fields[key] }

    /// `key` as a flag: the channel answers "true" or "false".
    func flag(_ key: String) -> Bool { self.fields[key] == "true" }

    /// The JSON value of a JSON-text field; nil when the reply lacks it, an error when it is not JSON.
    func json(_ key: String) throws(ControlClientError) -> JSON? {
        guard let text = self.fields[key] else { return nil }
        do {
            return try JSON.parse(text)
        } catch {
            throw self.malformed("its \(key) field is not JSON (\(error))")
        }
    }

    /// `{ok, action, channel, <keys>…, <other fields>…}`: the keys in their documented order, null
    /// when absent, then whatever else the channel answered, sorted.
    func json(keys: [String], ok: Bool = true) throws(ControlClientError) -> JSON {
        var members: [(String, JSON)] = [("ok", .bool(ok)), ("action", .string(self.command)), ("channel", .string(self.channel))]
        for key in keys + self.fields.keys.filter({ !keys.contains($0) }).sorted() {
            let value = Self.jsonFields.contains(key) ? try self.json(key) ?? .null : .optional(self.fields[key], JSON.string)
            members.append((Self.outputName(key), value))
        }
        return .object(members)
    }

    /// The --json key of a reply field: the reply's `action` (an action's id) is `action_id`, since
    /// `action` names the request; the other fields keep their names.
    static func outputName(_ key: String) -> String {
        switch key {
        case "action": "action_id"
        case "ok", "channel": "reply_" + key
        default: key
        }
    }

    /// A reply the CLI cannot read: a daemon of another version, or a bug.
    func malformed(_ problem: String) -> ControlClientError {
        ControlClientError(code: .failed, message: "channel \(self.channel) answered \(self.command), but \(problem); is attendantd another version?")
    }

    /// `count` and `noun`, plural when it is not 1: "1 action", "2 actions".
    static func count(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    /// "PV" or "PV (original OPV)" when the original page differs; nil without a pv_id.
    var pageIDs: String? {
        guard let pv = self["pv_id"], !pv.isEmpty else { return nil }
        guard let original = self["original_pv_id"], !original.isEmpty, original != pv else { return pv }
        return "\(pv) (original \(original))"
    }

    /// " (page PV)", or "" without a pv_id: the end of an event's line.
    var onPage: String { self.pageIDs.map { " (page \($0))" } ?? "" }
}
