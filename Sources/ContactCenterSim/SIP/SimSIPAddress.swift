/// A name-address or addr-spec with header parameters (RFC 3261 section 20.10, 20.20, 20.39): the value of
/// From, To and each Contact.
package struct SimSIPAddress: Sendable, Hashable, CustomStringConvertible {
    package var displayName: String?
    package var uri: SimSIPURI
    /// The header's parameters (`tag`, `expires`, `+sip.instance`, `reg-id`), not the URI's.
    package var parameters = SimSIPParameters()

    package init(displayName: String? = nil, uri: SimSIPURI, parameters: SimSIPParameters = SimSIPParameters()) {
        self.displayName = displayName
        self.uri = uri
        self.parameters = parameters
    }

    /// `"Name" <uri>;params`, `Name <uri>;params` or `uri;params` (without angle brackets, every
    /// semicolon belongs to the header, section 20.10).
    init(parsing text: some StringProtocol) throws(SimSIPParseError) {
        let text = SimSIPText.trimmed(text)
        guard let open = Self.openingAngle(in: text) else {
            let pieces = text.split(separator: ";", maxSplits: 1)
            guard let first = pieces.first else { throw SimSIPParseError("empty address") }
            self.uri = try SimSIPURI(parsing: SimSIPText.trimmed(first))
            if pieces.count == 2 { self.parameters = SimSIPParameters(parsing: pieces[1]) }
            return
        }
        guard let close = text[open...].firstIndex(of: ">") else { throw SimSIPParseError("unclosed '<' in '\(text.prefix(60))'") }
        let name = SimSIPText.trimmed(text[..<open])
        if !name.isEmpty { self.displayName = SimSIPText.unquoted(name) }
        self.uri = try SimSIPURI(parsing: text[text.index(after: open)..<close])
        self.parameters = SimSIPParameters(parsing: text[text.index(after: close)...])
    }

    /// The `<` that opens the URI: the first one outside a quoted display name.
    private static func openingAngle(in text: String) -> String.Index? {
        var inQuotes = false
        var escaped = false
        for index in text.indices {
            let character = text[index]
            if escaped {
                escaped = false
            } else if inQuotes, character == "\\" {
                escaped = true
            } else if character == "\"" {
                inQuotes.toggle()
            } else if !inQuotes, character == "<" {
                return index
            }
        }
        return nil
    }

    package var tag: String? { self.parameters["tag"] }

    /// The Contact's `expires`, in seconds; nil when absent or not a number.
    package var expires: UInt32? { self.parameters["expires"].flatMap { UInt32($0) } }

    /// RFC 5626 `+sip.instance`, without its angle brackets (`urn:uuid:…`).
    package var instanceID: String? {
        guard var value = self.parameters["+sip.instance"] else { return nil }
        if value.hasPrefix("<"), value.hasSuffix(">") { value = String(value.dropFirst().dropLast()) }
        return value
    }

    /// RFC 5626 `reg-id`.
    package var registrationID: UInt32? { self.parameters["reg-id"].flatMap { UInt32($0) } }

    /// Always the name-addr form, so URI parameters cannot be mistaken for header parameters.
    package var description: String {
        var text = ""
        if let displayName, !displayName.isEmpty { text = SimSIPText.quoted(displayName) + " " }
        return text + "<\(self.uri)>" + self.parameters.description
    }
}
