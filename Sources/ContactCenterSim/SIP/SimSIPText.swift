import Foundation

/// Small lexical helpers for SIP header values (RFC 3261 section 25.1): lists split on commas and
/// parameters on semicolons, both ignoring separators inside quoted strings and `<…>` URIs.
enum SimSIPText {
    /// Splits `text` on `separator`, except inside `"…"` (with `\` escapes) and `<…>`; trims each piece
    /// and drops empty ones.
    static func split(_ text: some StringProtocol, on separator: Character) -> [String] {
        var pieces: [String] = []
        var current = ""
        var inQuotes = false
        var inAngles = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if inQuotes, character == "\\" {
                escaped = true
            } else if character == "\"", !inAngles {
                inQuotes.toggle()
            } else if !inQuotes, character == "<" {
                inAngles = true
            } else if !inQuotes, character == ">" {
                inAngles = false
            } else if !inQuotes, !inAngles, character == separator {
                pieces.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        pieces.append(current)
        return pieces.map(Self.trimmed).filter { !$0.isEmpty }
    }

    /// A comma-separated header value as its elements.
    static func splitList(_ value: String) -> [String] { Self.split(value, on: ",") }

    /// `;name=value;flag` (the leading `;` optional) as ordered pairs; names lowercased, values as sent
    /// (quotes kept: ``unquoted(_:)`` removes them).
    static func parameters(_ text: some StringProtocol) -> [(name: String, value: String?)] {
        Self.split(text, on: ";").map { piece in
            guard let equals = piece.firstIndex(of: "=") else { return (piece.lowercased(), nil) }
            return (Self.trimmed(piece[..<equals]).lowercased(), Self.trimmed(piece[piece.index(after: equals)...]))
        }
    }

    /// A quoted string's content (`\"` and `\\` unescaped); other text as it is.
    static func unquoted(_ text: String) -> String {
        guard text.count >= 2, text.first == "\"", text.last == "\"" else { return text }
        var result = ""
        var escaped = false
        for character in text.dropFirst().dropLast() {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// `text` as a quoted string.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Without leading and trailing spaces and tabs.
    static func trimmed(_ text: some StringProtocol) -> String {
        var slice = Substring(text)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }

    /// Random lowercase letters and digits, for tags, branches and Call-IDs.
    static func random(_ count: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<count).map { _ in alphabet.randomElement()! })
    }
}
