import Foundation

// The notifications dunst shows, as its `-print` records, `dunstctl history` and the bus tell them.
//
// Facts measured with Debian 12's dunst 1.9.0 and libnotify-bin 0.8.1:
//
// dunst
//   - `dunstctl history` (NotificationListHistory) lists only notifications that left the screen (closed by
//     the client's CloseNotification, by `dunstctl close`/`close-all`, or expired), newest first, each with
//     body, message (the formatted text, markup included), summary, appname, category,
//     default_action_name ("default" unless the client named one), icon_path, id, timestamp (monotonic µs),
//     timeout (µs, 0 = never) and progress (-1 = none). No urgency, no actions, no hints.
//   - There is no list of displayed notifications in 1.9: `dunstctl count displayed|waiting|history` gives
//     counts only. `displayed()` below derives the list from the `-print` records minus the history.
//   - `dunst -print` writes a record to stdout when a notification is queued (also for a replacement, with
//     the same id):
//         {
//         \tappname: '...'        \tsummary: '...'        \tbody: '...'         \ticon: '...'
//         \traw_icon set: false   \ticon_id: '...'        \tdesktop_entry: ''   \tcategory: ...
//         \ttimeout: 0  (ms)      \turgency: LOW|NORMAL|CRITICAL                \ttransient: 0|1
//         \tformatted: '...'      \tfg/bg/highlight/frame: #rrggbb              \tfullscreen: show
//         \tformat: ...           \tprogress: -1          \tstack_tag: ...      \tid: N
//         [\turls: { ... }]       \tactions: {} | {\n\t\t"key": "label"\n...\t} \tscript_count: N
//         }
//     one field a line (the quoted values may span lines; quotes inside are not escaped). Of the hints it
//     shows only urgency, category, desktop_entry, image/icon, transient, value (progress),
//     x-dunst-stack-tag and dunst's colour hints; sound-name and other hints appear nowhere in dunst, so
//     `notifyCalls` reads them from the bus.
//   - The context menu (`dunstctl context`) covers every displayed notification that has actions or URLs;
//     it pipes one line per action, `#<label> (<summary>) [<id>,<key>]`, and one per URL to the `dmenu`
//     command and invokes the line it prints back: dunst emits ActionInvoked(id, key), and only that: the
//     notification stays on screen until the client closes it (notify-send does, with CloseNotification:
//     NotificationClosed reason 3). With nothing actionable on screen dunst does not run the menu; a second
//     `dunstctl context` within ~50 ms of the first menu's end is refused ("Context menu already running").
//   - ActionInvoked and NotificationClosed are unicast: sent to the unique name that called Notify.
//   - markup = full: dunst itself escapes a lone `&` (and `<` that starts no tag) in summary and body, keeps
//     tags and entities, and gives the formatted text to pango_parse_markup. `<b>x</b> &amp;` shows as "x &"
//     (bold x); `&lt;b&gt;x&lt;/b&gt; &amp;amp;` shows `<b>x</b> &amp;` literally; markup Pango rejects (an
//     unclosed `<b>`) is shown stripped of tags, with "WARNING: Unable to parse markup: ..." on stderr.
//   - Notification ids need not start at 1; a restarted dunst counts from the beginning again.

/// A notification action: the key the client sent and the label shown.
package struct NotificationAction: Hashable, Sendable, CustomStringConvertible {
    package let key: String
    package let label: String

    package init(key: String, label: String) {
        self.key = key
        self.label = label
    }
    package var description: String { "\(self.key)=\(self.label)" }
}

/// One record dunst printed with `-print` (see the format at the top of this file).
package struct PrintedNotification: Sendable {
    /// Which dunst process printed it: 1 for the first, 2 after the first restart, and so on.
    package let server: Int
    package let id: Int
    package let appname: String
    package let summary: String
    package let body: String
    /// LOW, NORMAL or CRITICAL.
    package let urgency: String
    /// Milliseconds; 0 means it stays until closed.
    package let timeout: Int
    package let category: String
    package let icon: String
    package let transient: Bool
    /// The text dunst renders (format applied, markup included).
    package let formatted: String
    package let progress: Int
    package let stackTag: String
    /// In dunst's order, which is its hash table's and not necessarily the client's.
    package let actions: [NotificationAction]
    package let urls: String?
    /// Every `name: value` field as printed (quoted values without their quotes).
    package let fields: [String: String]

    package static let order = [
        "appname", "summary", "body", "icon", "raw_icon set", "icon_id", "desktop_entry", "category", "timeout",
        "urgency", "transient", "formatted", "fg", "bg", "highlight", "frame", "fullscreen", "format", "progress",
        "stack_tag", "id",
    ]
    package static let quoted: Set<String> = ["appname", "summary", "body", "icon", "icon_id", "desktop_entry", "formatted"]

    /// Parses one record: the text between "{\n" and "\n}\n".
    package init?(record: String, server: Int) {
        var fields: [String: String] = [:]
        var rest = Substring(record)
        for (index, name) in Self.order.enumerated() {
            guard rest.hasPrefix("\t\(name): ") else { return nil }
            rest = rest.dropFirst(name.count + 3)
            let end: String.Index
            if index + 1 < Self.order.count {
                guard let next = rest.range(of: "\n\t\(Self.order[index + 1]): ") else { return nil }
                end = next.lowerBound
            } else {
                end = rest.firstIndex(of: "\n") ?? rest.endIndex
            }
            var value = String(rest[..<end])
            if Self.quoted.contains(name), value.hasPrefix("'"), value.hasSuffix("'"), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            fields[name] = value
            rest = rest[end...].dropFirst()  // the newline
        }
        var urls: String?
        var actions: [NotificationAction] = []
        let lines = rest.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line == "\turls:" {
                var collected: [String] = []
                index += 2  // "\t{"
                while index < lines.count && lines[index] != "\t}" {
                    collected.append(lines[index].trimmingCharacters(in: CharacterSet(charactersIn: "\t")))
                    index += 1
                }
                urls = collected.joined(separator: "\n")
            } else if line == "\tactions: {" {
                index += 1
                while index < lines.count && lines[index] != "\t}" {
                    // \t\t"key": "label"
                    let entry = lines[index].trimmingCharacters(in: CharacterSet(charactersIn: "\t"))
                    if let separator = entry.range(of: "\": \""), entry.hasPrefix("\""), entry.hasSuffix("\"") {
                        actions.append(
                            NotificationAction(
                                key: String(entry[entry.index(after: entry.startIndex)..<separator.lowerBound]),
                                label: String(entry[separator.upperBound..<entry.index(before: entry.endIndex)])
                            )
                        )
                    }
                    index += 1
                }
            } else if let colon = line.range(of: ": "), line.hasPrefix("\t") {
                fields[String(line[line.index(after: line.startIndex)..<colon.lowerBound])] = String(line[colon.upperBound...])
            }
            index += 1
        }
        guard let id = Int(fields["id"] ?? "") else { return nil }
        self.server = server
        self.id = id
        self.appname = fields["appname"] ?? ""
        self.summary = fields["summary"] ?? ""
        self.body = fields["body"] ?? ""
        self.urgency = fields["urgency"] ?? ""
        self.timeout = Int(fields["timeout"] ?? "") ?? 0
        self.category = fields["category"] ?? ""
        self.icon = fields["icon"] ?? ""
        self.transient = fields["transient"] == "1"
        self.formatted = fields["formatted"] ?? ""
        self.progress = Int(fields["progress"] ?? "") ?? -1
        self.stackTag = fields["stack_tag"] ?? ""
        self.actions = actions
        self.urls = urls
        self.fields = fields
    }

    /// The complete records in dunst's stdout so far.
    package static func parse(_ output: String, server: Int) -> [PrintedNotification] {
        var records: [PrintedNotification] = []
        var rest = Substring(output)
        while let start = rest.range(of: "{\n\tappname: "),
            let counted = rest[start.upperBound...].range(of: "\n\tscript_count: "),
            let end = rest[counted.upperBound...].range(of: "\n}\n")
        {
            let body = rest[rest.index(start.lowerBound, offsetBy: 2)..<end.lowerBound]
            if let record = PrintedNotification(record: String(body) + "\n", server: server) { records.append(record) }
            rest = rest[end.upperBound...]
        }
        return records
    }
}

/// One entry of `dunstctl history`.
package struct HistoryEntry: Sendable {
    package let id: Int
    package let appname: String
    package let summary: String
    package let body: String
    /// The formatted text dunst showed (markup included).
    package let message: String
    package let category: String
    package let defaultActionName: String
    package let iconPath: String
    /// Monotonic microseconds.
    package let timestamp: Int
    /// Microseconds; 0 means it stayed until closed.
    package let timeout: Int
    package let progress: Int
    /// Every field, unwrapped.
    package let fields: [String: JSONValue]

    package init(_ fields: [String: JSONValue]) {
        self.fields = fields
        self.id = fields["id"]?.int ?? -1
        self.appname = fields["appname"]?.string ?? ""
        self.summary = fields["summary"]?.string ?? ""
        self.body = fields["body"]?.string ?? ""
        self.message = fields["message"]?.string ?? ""
        self.category = fields["category"]?.string ?? ""
        self.defaultActionName = fields["default_action_name"]?.string ?? ""
        self.iconPath = fields["icon_path"]?.string ?? ""
        self.timestamp = fields["timestamp"]?.int ?? 0
        self.timeout = fields["timeout"]?.int ?? 0
        self.progress = fields["progress"]?.int ?? -1
    }
}

/// One org.freedesktop.Notifications.Notify call seen on the session bus, with the id the server returned.
package struct NotifyCall: Sendable {
    package let sender: String
    package let appName: String
    package let replacesID: Int
    package let icon: String
    package let summary: String
    package let body: String
    /// In the order the client sent them.
    package let actions: [NotificationAction]
    /// Unwrapped values: urgency is a number (the byte), sound-name a string, ...
    package let hints: [String: JSONValue]
    package let expireTimeout: Int
    /// The id in the server's reply; nil before the reply or after an error.
    package let returnedID: Int?
    /// Whether the monitor saw the reply (a method_return or an error) yet.
    package let replied: Bool

    package var urgency: Int? { self.hints["urgency"]?.int }

    package init?(_ call: BusMessage, reply: BusMessage?) {
        let arguments = call.arguments
        guard call.signature == "susssasa{sv}i", arguments.count == 8 else { return nil }
        self.sender = call.sender ?? ""
        self.appName = arguments[0].string ?? ""
        self.replacesID = arguments[1].int ?? 0
        self.icon = arguments[2].string ?? ""
        self.summary = arguments[3].string ?? ""
        self.body = arguments[4].string ?? ""
        let flat = (arguments[5].array ?? []).compactMap(\.string)
        self.actions = stride(from: 0, to: flat.count - 1, by: 2).map { NotificationAction(key: flat[$0], label: flat[$0 + 1]) }
        self.hints = (arguments[6].object ?? [:]).mapValues(\.unwrapped)
        self.expireTimeout = arguments[7].int ?? 0
        self.returnedID = reply?.type == "method_return" ? reply?.arguments.first?.int : nil
        self.replied = reply != nil
    }
}

/// What the context-menu picker was offered and chose, and the action dunst invoked.
package struct InvokedAction: Sendable {
    /// The lines dunst piped to the picker.
    package let menu: [String]
    package let chosen: String
    package let notificationID: Int
    package let key: String
}
