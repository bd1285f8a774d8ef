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
