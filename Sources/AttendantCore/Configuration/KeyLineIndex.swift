/// Finds the line of each key in a TOML text, so messages about keys can name the line.
///
/// TOML parsers keep no positions for values, so this reads the text once, following table headers
/// (`[daemon]`, `[[channel]]`, `[channel.loopback]`) and `key = value` lines. Keys it cannot place
/// (dotted keys, inline tables, keys inside multi-line strings) simply get no line.
struct KeyLineIndex {
    /// Paths such as `daemon.log-level`, `channel[1]`, `channel[1].name`, `channel[1].loopback.interval`.
    private(set) var lines: [String: Int] = [:]

    init(_ text: String) {
        var table = ""
        var channelIndex = -1
        var inMultilineString: Substring? = nil
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.drop { $0 == " " || $0 == "\t" }
            if let delimiter = inMultilineString {
                if line.contains(delimiter) { inMultilineString = nil }
                continue
            }
            if line.hasPrefix("[[") {
                let name = Self.headerName(line.dropFirst(2), closing: "]]")
                if name == "channel" {
                    channelIndex += 1
                    table = "channel[\(channelIndex)]"
                    self.record(table, lineNumber)
                } else {
                    table = name
                }
            } else if line.hasPrefix("[") {
                let name = Self.headerName(line.dropFirst(), closing: "]")
                if name.hasPrefix("channel."), channelIndex >= 0 {
                    table = "channel[\(channelIndex)]." + name.dropFirst("channel.".count)
                } else {
                    table = name
                }
                self.record(table, lineNumber)
            } else if let key = Self.leadingKey(line) {
                self.record(table.isEmpty ? key : "\(table).\(key)", lineNumber)
                for delimiter in ["\"\"\"", "'''"] {
                    let occurrences = line.ranges(of: delimiter).count
                    if occurrences % 2 == 1 { inMultilineString = Substring(delimiter) }
                }
            }
        }
    }

    /// The line of `path`, if known.
    subscript(path: String) -> Int? { self.lines[path] }

    private mutating func record(_ path: String, _ line: Int) {
        if self.lines[path] == nil { self.lines[path] = line }
    }

    private static func headerName(_ rest: Substring, closing: String) -> String {
        let inside = rest.prefix { $0 != "]" }
        return inside.split(separator: ".").map { part in
            let trimmed = part.trimmingCharacters(in: " \t")
            return trimmed.count >= 2 && trimmed.first == "\"" && trimmed.last == "\""
                ? String(trimmed.dropFirst().dropLast()) : String(trimmed)
        }.joined(separator: ".")
    }

    private static func leadingKey(_ line: Substring) -> String? {
        if line.first == "\"" {
            guard let end = line.dropFirst().firstIndex(of: "\"") else { return nil }
            let key = line[line.index(after: line.startIndex)..<end]
            let rest = line[line.index(after: end)...].drop { $0 == " " || $0 == "\t" }
            return rest.first == "=" ? String(key) : nil
        }
        let key = line.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        guard !key.isEmpty else { return nil }
        let rest = line.dropFirst(key.count).drop { $0 == " " || $0 == "\t" }
        return rest.first == "=" ? String(key) : nil
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> Substring {
        let chars = Set(set)
        let s = self[...]
        let start = s.firstIndex { !chars.contains($0) } ?? s.endIndex
        let end = s.lastIndex { !chars.contains($0) }.map { s.index(after: $0) } ?? start
        return Substring(s[start..<Swift.max(start, end)])
    }
}
