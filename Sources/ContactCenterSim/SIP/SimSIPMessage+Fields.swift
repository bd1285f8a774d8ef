/// The header fields the registrar and the caller read, parsed on demand. Each throws when the field is
/// missing where RFC 3261 section 8.1.1 requires it, or does not parse: the registrar answers 400.
extension SimSIPMessage {
    func topVia() throws(SimSIPParseError) -> SimSIPVia {
        guard let value = self.values("Via").first else { throw SimSIPParseError("missing Via") }
        return try SimSIPVia(parsing: value)
    }

    func cseq() throws(SimSIPParseError) -> SimSIPCSeq {
        guard let value = self.field("CSeq") else { throw SimSIPParseError("missing CSeq") }
        return try SimSIPCSeq(parsing: value)
    }

    func callID() throws(SimSIPParseError) -> String {
        guard let value = self.field("Call-ID"), !value.isEmpty else { throw SimSIPParseError("missing Call-ID") }
        return value
    }

    func address(_ name: String) throws(SimSIPParseError) -> SimSIPAddress {
        guard let value = self.field(name) else { throw SimSIPParseError("missing \(name)") }
        return try SimSIPAddress(parsing: value)
    }

    /// Every Contact, in order; empty for none and for the wildcard `*`.
    func contacts() throws(SimSIPParseError) -> [SimSIPAddress] {
        var contacts: [SimSIPAddress] = []
        for value in self.values("Contact") where value != "*" { contacts.append(try SimSIPAddress(parsing: value)) }
        return contacts
    }

    /// `Contact: *` (RFC 3261 section 10.2.2: remove every binding).
    var isWildcardContact: Bool { self.values("Contact") == ["*"] }

    /// The Expires field, in seconds.
    func expires() throws(SimSIPParseError) -> UInt32? {
        guard let value = self.field("Expires") else { return nil }
        guard let seconds = UInt32(value) else { throw SimSIPParseError("bad Expires '\(value.prefix(20))'") }
        return seconds
    }

    /// Each Authorization field; one field is one credential (Digest values contain commas, so they are
    /// never split as a list).
    var credentials: [SimSIPCredentials] {
        self.fields.filter { $0.name == "Authorization" }.map { SimSIPCredentials(parsing: $0.value) }
    }

    /// Whether Supported or Require lists this option tag (`outbound`).
    func announces(_ optionTag: String) -> Bool {
        (self.values("Supported") + self.values("Require")).contains { $0.lowercased() == optionTag.lowercased() }
    }

    package var isProvisional: Bool { (100..<200).contains(self.statusCode ?? 0) }
    package var isSuccess: Bool { (200..<300).contains(self.statusCode ?? 0) }
}
