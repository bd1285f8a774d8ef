/// A one-line text with `{name}` placeholders, such as `New message from {sender}`.
///
/// A `{word}` (letters, digits, `-`, `_`) is a placeholder and must be one the template knows; any other
/// brace is text. Parsing happens when the configuration is read, so a typo is reported there.
package struct AlertTemplate: Sendable, Hashable, CustomStringConvertible {
    /// The template as written.
    package let text: String
    private let parts: [Part]

    private enum Part: Hashable {
        case text(Substring)
        case placeholder(String)
    }

    /// The placeholders of a chat alert's title: the sender's display name (`Agent` when it has none),
    /// the channel's name, and the thread's name (its id when it has none).
    package static let chatPlaceholders = ["sender", "channel", "thread"]

    /// `New message from {sender}`: the Genesys GMS default, "New message from Agent", with the name.
    package static let defaultChatTitle = AlertTemplate(checked: "New message from {sender}", known: chatPlaceholders)

    /// Parses `text`, accepting only the placeholders in `known`.
    package init(_ text: String, known: [String]) throws(AlertTemplate.Error) {
        var parts: [Part] = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "{") {
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "}") else { break }
            let name = rest[afterOpen..<close]
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                parts.append(.text(rest[...open]))
                rest = rest[afterOpen...]
                continue
            }
            guard known.contains(String(name)) else { throw Error(placeholder: String(name), known: known) }
            if open > rest.startIndex { parts.append(.text(rest[..<open])) }
            parts.append(.placeholder(String(name)))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { parts.append(.text(rest)) }
        self.text = text
        self.parts = parts
    }

    private init(checked text: String, known: [String]) {
        do {
            try self.init(text, known: known)
        } catch {
            preconditionFailure("built-in template \"\(text)\": \(error)")
        }
    }

    /// The text with each placeholder replaced by its value (empty when `values` has none).
    package func render(_ values: [String: String]) -> String {
        var result = ""
        for part in self.parts {
            switch part {
            case .text(let text): result += text
            case .placeholder(let name): result += values[name] ?? ""
            }
        }
        return result
    }

    package var description: String { self.text }

    /// A placeholder the template does not know.
    package struct Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        package var placeholder: String
        package var known: [String]

        package init(placeholder: String, known: [String]) {
            self.placeholder = placeholder
            self.known = known
        }

        package var description: String {
            "unknown placeholder {\(self.placeholder)}; the template knows "
                + self.known.map { "{\($0)}" }.joined(separator: ", ")
        }
    }
}
