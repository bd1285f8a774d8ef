/// One Via value (RFC 3261 section 20.42): `SIP/2.0/UDP host:port;branch=z9hG4bK…;rport`.
struct SimSIPVia: Sendable, Hashable, CustomStringConvertible {
    /// RFC 3261's magic cookie: a branch that starts with it is unique per transaction (section 8.1.1.7).
    static let branchCookie = "z9hG4bK"

    var transport: String
    /// `host` or `host:port`, as sent.
    var sentBy: String
    var parameters = SimSIPParameters()

    init(transport: String, sentBy: String, parameters: SimSIPParameters = SimSIPParameters()) {
        self.transport = transport
        self.sentBy = sentBy
        self.parameters = parameters
    }

    init(parsing text: String) throws(SimSIPParseError) {
        let head: Substring
        if let semicolon = text.firstIndex(of: ";") {
            head = text[..<semicolon]
            self.parameters = SimSIPParameters(parsing: text[semicolon...])
        } else {
            head = Substring(text)
        }
        let parts = head.split(whereSeparator: { $0 == " " || $0 == "\t" })
        let protocolParts = parts.first?.split(separator: "/").map { SimSIPText.trimmed($0) } ?? []
        guard parts.count == 2, protocolParts.count == 3, protocolParts[0] == "SIP", protocolParts[1] == "2.0" else {
            throw SimSIPParseError("bad Via '\(text.prefix(60))'")
        }
        self.transport = protocolParts[2].uppercased()
        self.sentBy = String(parts[1])
    }

    var branch: String? { self.parameters["branch"] }

    var description: String { "SIP/2.0/\(self.transport) \(self.sentBy)\(self.parameters)" }
}

/// The CSeq (RFC 3261 section 20.16): a sequence number and the method it counts.
struct SimSIPCSeq: Sendable, Hashable, CustomStringConvertible {
    var number: UInt32
    var method: String

    init(_ number: UInt32, _ method: String) {
        self.number = number
        self.method = method
    }

    init(parsing text: String) throws(SimSIPParseError) {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count == 2, let number = UInt32(parts[0]) else { throw SimSIPParseError("bad CSeq '\(text.prefix(40))'") }
        self.number = number
        self.method = String(parts[1])
    }

    var description: String { "\(self.number) \(self.method)" }
}

/// One Authorization value: a scheme and what follows it (RFC 3261 section 22.4; for Bearer, RFC 8898
/// section 2.3, the token itself).
struct SimSIPCredentials: Sendable, Hashable {
    var scheme: String
    var rest: String

    init(parsing text: String) {
        let trimmed = SimSIPText.trimmed(text)
        if let space = trimmed.firstIndex(where: { $0 == " " || $0 == "\t" }) {
            self.scheme = String(trimmed[..<space])
            self.rest = SimSIPText.trimmed(trimmed[space...])
        } else {
            self.scheme = trimmed
            self.rest = ""
        }
    }

    func isScheme(_ scheme: String) -> Bool { self.scheme.lowercased() == scheme.lowercased() }

    /// A Bearer token (b64token: no spaces, no commas); nil for any other scheme or an empty one.
    var bearerToken: String? {
        guard self.isScheme("Bearer"), !self.rest.isEmpty, !self.rest.contains(where: { $0 == " " || $0 == "," }) else { return nil }
        return self.rest
    }
}
