/// A SIP or SIPS URI (RFC 3261 section 19.1): `sip:user@host:port;params?headers`. Other schemes (`tel:`)
/// keep their text in ``user``-less form so they can be echoed back.
package struct SimSIPURI: Sendable, Hashable, CustomStringConvertible {
    package var scheme: String
    /// The userinfo's user part (`alice`), without any password.
    package var user: String?
    package var password: String?
    /// A host name, an IPv4 address, or an IPv6 reference with its brackets (`[::1]`).
    package var host: String
    package var port: Int?
    package var parameters = SimSIPParameters()
    /// The `?…` part, as sent.
    package var headers: String?

    package init(scheme: String = "sip", user: String? = nil, host: String, port: Int? = nil) {
        self.scheme = scheme
        self.user = user
        self.host = host
        self.port = port
    }

    init(parsing text: some StringProtocol) throws(SimSIPParseError) {
        let text = String(text)
        guard let colon = text.firstIndex(of: ":") else { throw SimSIPParseError("'\(text.prefix(60))' is not a URI") }
        self.scheme = text[..<colon].lowercased()
        guard self.scheme == "sip" || self.scheme == "sips" else {
            throw SimSIPParseError("'\(text.prefix(60))' is not a sip: or sips: URI")
        }
        var rest = Substring(text[text.index(after: colon)...])
        if let question = rest.firstIndex(of: "?") {
            self.headers = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        if let semicolon = rest.firstIndex(of: ";") {
            self.parameters = SimSIPParameters(parsing: rest[semicolon...])
            rest = rest[..<semicolon]
        }
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            if let split = userinfo.firstIndex(of: ":") {
                self.user = String(userinfo[..<split])
                self.password = String(userinfo[userinfo.index(after: split)...])
            } else {
                self.user = String(userinfo)
            }
            guard self.user?.isEmpty == false else { throw SimSIPParseError("empty user in '\(text.prefix(60))'") }
            rest = rest[rest.index(after: at)...]
        }
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw SimSIPParseError("unclosed IPv6 reference in '\(text.prefix(60))'") }
            self.host = String(rest[...close])
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                throw SimSIPParseError("junk after the host in '\(text.prefix(60))'")
            }
        } else if let split = rest.firstIndex(of: ":") {
            self.host = String(rest[..<split])
            portText = rest[rest.index(after: split)...]
        } else {
            self.host = String(rest)
        }
        guard !self.host.isEmpty, !self.host.contains(where: { $0 == " " || $0 == "<" || $0 == ">" }) else {
            throw SimSIPParseError("no host in '\(text.prefix(60))'")
        }
        if let portText {
            guard let port = Int(portText), (0...65535).contains(port) else { throw SimSIPParseError("bad port '\(portText)'") }
            self.port = port
        }
    }

    package var description: String {
        var text = self.scheme + ":"
        if let user {
            text += user
            if let password { text += ":" + password }
            text += "@"
        }
        text += self.host
        if let port { text += ":\(port)" }
        text += self.parameters.description
        if let headers { text += "?" + headers }
        return text
    }

    /// URI comparison as RFC 3261 section 19.1.4 has it, for what the registrar needs to tell bindings
    /// apart: user and password exactly, host case-insensitively, the same port (absent is not 5060), and
    /// `transport`, `user`, `method`, `maddr`, `ttl` present on both or neither and then equal.
    package func isEquivalent(to other: SimSIPURI) -> Bool {
        guard self.scheme == other.scheme, self.user == other.user, self.password == other.password,
            self.host.lowercased() == other.host.lowercased(), self.port == other.port
        else { return false }
        return ["transport", "user", "method", "maddr", "ttl"].allSatisfy { name in
            self.parameters.contains(name) == other.parameters.contains(name)
                && self.parameters[name]?.lowercased() == other.parameters[name]?.lowercased()
        }
    }
}
