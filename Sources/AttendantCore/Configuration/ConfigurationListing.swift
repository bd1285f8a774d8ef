import AttendantPluginAPI

/// `attendantd --cat-config`: the merged configuration as TOML, each value followed by the file and line
/// it came from, as `systemd-analyze cat-config` shows where systemd's settings come from.
///
/// The text is valid TOML that reads back to the same configuration. Keys are in the order they were
/// first written (by file, then line), so a listing reads like the files it came from.
package struct ConfigurationListing {
    package let tree: ConfigurationTree

    package init(_ tree: ConfigurationTree) { self.tree = tree }

    package var text: String {
        var lines: [String] = []
        if self.tree.files.isEmpty {
            lines.append("# The built-in demo configuration.")
        } else {
            lines.append("# The configuration attendantd reads, merged from these files in order (later values win):")
            lines += self.tree.files.map { "#   \($0)" }
        }
        self.table(self.tree.root, path: "", header: nil, into: &lines)
        return lines.joined(separator: "\n") + "\n"
    }

    /// A table's header: its dotted key path, and whether it is an element of an array of tables.
    private struct Header {
        var keys: String
        var arrayElement = false
        var text: String { self.arrayElement ? "[[\(self.keys)]]" : "[\(self.keys)]" }
    }

    /// The keys of `table` and then its tables; `header` is written first, if any, with the table's place
    /// (a `[[channel]]`'s is where the channel was first named).
    private func table(_ table: [String: SettingValue], path: String, header: Header?, into lines: inout [String]) {
        let keys = self.ordered(table.keys, under: path)
        let plain = keys.filter { !Self.isSection(table[$0]!, key: $0, path: path) }
        let sections = keys.filter { Self.isSection(table[$0]!, key: $0, path: path) }
        // A table that holds only tables needs no header of its own: its tables' headers name it (TOML 1.0,
        // "Table"). Writing one anyway wrote a table nested 700 deep as 700 ever longer headers, 4.2 MB
        // from a 12 KB file (found by Fuzz/Configuration). An empty table and an element of an array of
        // tables keep theirs: without it they would be lost.
        if let header, !plain.isEmpty || sections.isEmpty || header.arrayElement {
            lines.append("")
            lines.append(self.annotated(header.text, at: path))
        }
        for key in plain {
            let full = Self.join(path, key)
            lines.append(self.annotated("\(Self.key(key)) = \(Self.value(table[key]!))", at: full))
        }
        for key in sections {
            let full = Self.join(path, key)
            let keys = header.map { "\($0.keys).\(Self.key(key))" } ?? Self.key(key)
            switch table[key]! {
            case .table(let entries):
                self.table(entries, path: full, header: Header(keys: keys), into: &lines)
            case .array(let channels):
                for (index, channel) in channels.enumerated() {
                    self.table(channel.tableValue, path: "\(full)[\(index)]", header: Header(keys: keys, arrayElement: true), into: &lines)
                }
            default:
                break
            }
        }
    }

    /// Every table is written as a section, and every array of tables (`[[channel]]`, and any other) as an
    /// array of tables; other arrays are written inline. Written inline, an array of tables held its tables
    /// as nested inline tables, one level each, and toml++ refuses values nested more than 256 deep
    /// (TOML_MAX_NESTED_VALUES), where a section's dotted keys nest no value: a listing that did not read
    /// back (found by Fuzz/Configuration).
    private static func isSection(_ value: SettingValue, key: String, path: String) -> Bool {
        switch value {
        case .table: true
        case .array(let items): !items.isEmpty && items.allSatisfy(\.isTable)
        default: false
        }
    }

    private func ordered(_ keys: Dictionary<String, SettingValue>.Keys, under path: String) -> [String] {
        let last = ConfigurationTree.FirstWritten(layer: Int.max, line: Int.max)
        func rank(_ key: String) -> ConfigurationTree.FirstWritten {
            let full = Self.join(path, key)
            return self.tree.firstWritten[full] ?? self.tree.firstWritten[full + "[0]"] ?? last
        }
        return keys.sorted { a, b in
            let (ra, rb) = (rank(a), rank(b))
            return ra != rb ? ra < rb : a < b
        }
    }

    private func annotated(_ text: String, at path: String) -> String {
        guard let place = self.tree[place: path], place.file != nil else { return text }
        return "\(text)  # \(place)"
    }

    private static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// A bare key when TOML allows one, else a quoted key.
    static func key(_ key: String) -> String {
        let bare = !key.isEmpty && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        return bare ? key : self.string(key)
    }

    /// A value in TOML's syntax; arrays and tables inline.
    static func value(_ value: SettingValue) -> String {
        switch value {
        case .string(let text): self.string(text)
        case .integer(let number): "\(number)"
        case .double(let number):
            if number.isNaN {
                "nan"
            } else if number.isInfinite {
                number < 0 ? "-inf" : "inf"
            } else {
                "\(number)".contains(where: { $0 == "." || $0 == "e" }) ? "\(number)" : "\(number).0"
            }
        case .bool(let flag): flag ? "true" : "false"
        case .dateTime(let text): text
        case .array(let items): "[" + items.map(Self.value).joined(separator: ", ") + "]"
        case .table(let entries): entries.isEmpty ? "{}" : "{ " + Self.leaves(entries, prefix: "").joined(separator: ", ") + " }"
        @unknown default: self.string("\(value)")
        }
    }

    /// An inline table's entries as dotted keys to its leaves (`a.b = 1`, not `a = { b = 1 }`): dotted keys
    /// nest no value, so a table that the files nested deep with dotted keys reads back within toml++'s
    /// limit of 256 nested values.
    private static func leaves(_ entries: [String: SettingValue], prefix: String) -> [String] {
        entries.keys.sorted().flatMap { key -> [String] in
            let dotted = prefix + Self.key(key)
            if case .table(let inner) = entries[key]!, !inner.isEmpty { return Self.leaves(inner, prefix: dotted + ".") }
            return ["\(dotted) = \(Self.value(entries[key]!))"]
        }
    }

    /// A basic string, with TOML's escapes.
    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
