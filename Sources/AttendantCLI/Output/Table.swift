/// Aligned columns for people: a header row, then one row per record, two spaces between columns,
/// the last column unpadded. Cells are made single-line (control characters become spaces).
public struct Table: Sendable {
    public var header: [String]
    public var rows: [[String]] = []

    public init(_ header: [String]) { self.header = header }

    public mutating func append(_ row: [String]) { self.rows.append(row.map(Self.oneLine)) }

    public var lines: [String] {
        let all = [self.header] + self.rows
        let columns = self.header.count
        var widths = [Int](repeating: 0, count: columns)
        for row in all {
            for (index, cell) in row.prefix(columns).enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return all.map { row in
            var line = ""
            for index in 0..<columns {
                let cell = index < row.count ? row[index] : ""
                if index == columns - 1 {
                    line += cell
                } else {
                    line += cell + String(repeating: " ", count: widths[index] - cell.count + 2)
                }
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// `text` on one line: newlines, tabs and other control characters become spaces.
    public static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }
}
