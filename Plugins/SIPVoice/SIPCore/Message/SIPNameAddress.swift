/// The value of a From, To or Contact header (or one Route, Path, …element): an optional display name,
/// a URI and header parameters such as `tag`, `expires`, `+sip.instance` and `reg-id`.
///
/// Parses both forms of RFC 3261 section 20.10: `"Alice" <sip:alice@example.com>;tag=1` (name-addr) and
/// `sip:alice@example.com;tag=1` (addr-spec, where every `;` parameter belongs to the header, not the URI).
/// Always serializes as name-addr, with the display name quoted.
package struct SIPNameAddress: Sendable, Hashable, CustomStringConvertible {
    /// The display name, unquoted; nil when absent.
    package var displayName: String?
    package var uri: SIPURI
    package var parameters: SIPParameters

    package init(displayName: String? = nil, uri: SIPURI, parameters: SIPParameters = []) {
        self.displayName = displayName
        self.uri = uri
        self.parameters = parameters
    }

    /// The `tag` parameter (From and To).
    package var tag: String? {
        get { self.parameters["tag"] }
        set {
            if let newValue { self.parameters.set("tag", newValue) } else { self.parameters.remove("tag") }
        }
    }

    /// The `expires` parameter (Contact), if it is a number.
    package var expires: UInt32? { self.parameters["expires"].flatMap(SIPSyntax.parseUInt32) }

    /// The `+sip.instance` parameter without its quotes and angle brackets (`urn:uuid:…`), RFC 5626.
    package var instanceID: String? {
        guard var value = self.parameters["+sip.instance"] else { return nil }
        if value.hasPrefix("<"), value.hasSuffix(">") { value = String(value.dropFirst().dropLast()) }
        return value
    }

    /// The `reg-id` parameter (RFC 5626).
    package var registrationID: UInt32? { self.parameters["reg-id"].flatMap(SIPSyntax.parseUInt32) }

    package var description: String {
        var text = ""
        if let displayName, !displayName.isEmpty { text = SIPSyntax.quoted(displayName) + " " }
        text += "<\(self.uri)>"
        text += self.parameters.serializedWithSemicolons
        return text
    }
}

extension SIPNameAddress {
    package init(parsing text: some StringProtocol) throws(SIPParseError) {
        var scanner = SIPScanner(text)
        scanner.skipWhitespace()
        var displayName: String?
        let uriText: String
        if scanner.peek == UInt8(ascii: "\"") {
            guard let quoted = scanner.readQuotedString() else {
                throw SIPParseError(.headerValue, "unterminated quoted display name")
            }
            displayName = quoted
            guard scanner.consume(UInt8(ascii: "<")) else {
                throw SIPParseError(.headerValue, "expected '<' after the display name at \(scanner.excerpt)")
            }
            uriText = try Self.readBracketed(&scanner)
        } else if let open = Self.tokenDisplayNameEnd(scanner) {
            // A display name of tokens and whitespace before '<'.
            let trimmedName = SIPSyntax.trimmed(scanner.bytes[scanner.index..<open])
            displayName = trimmedName.isEmpty ? nil : trimmedName
            scanner.index = open + 1
            uriText = try Self.readBracketed(&scanner)
        } else {
            // addr-spec: the URI ends at the first ';' (parameters belong to the header) or whitespace.
            uriText = scanner.readWhile { $0 != UInt8(ascii: ";") && !SIPSyntax.isWhitespace($0) }
        }
        do {
            self.uri = try SIPURI(parsing: uriText)
        } catch {
            throw SIPParseError(.headerValue, "invalid URI: \(error.what)")
        }
        self.displayName = displayName
        self.parameters = try SIPParameters.parseHeaderParameters(&scanner)
    }

    /// The index of the '<' that ends a display name made of tokens, or nil if the value is an addr-spec
    /// (whose quoted parameters may themselves contain '<').
    private static func tokenDisplayNameEnd(_ scanner: SIPScanner) -> Int? {
        var index = scanner.index
        while index < scanner.bytes.count {
            let byte = scanner.bytes[index]
            if byte == UInt8(ascii: "<") { return index }
            guard SIPSyntax.isToken(byte) || SIPSyntax.isWhitespace(byte) || byte >= 0x80 else { return nil }
            index += 1
        }
        return nil
    }

    private static func readBracketed(_ scanner: inout SIPScanner) throws(SIPParseError) -> String {
        let uri = scanner.readWhile { $0 != UInt8(ascii: ">") }
        guard scanner.consume(UInt8(ascii: ">"), skippingWhitespace: false) else {
            throw SIPParseError(.headerValue, "expected '>' after the URI")
        }
        return uri
    }
}
