/// A SIP or SIPS URI (RFC 3261 section 19.1), or any other absolute URI kept as its text.
///
/// `sip:alice:secret@example.com:5060;transport=tcp?subject=hi` has the user `alice`, the password
/// `secret`, the host `example.com`, the port 5060, a `transport` parameter and a `subject` header. User,
/// parameter and header text stays %-escaped as written. For schemes other than `sip` and `sips` (a `tel:`
/// caller, a `urn:`) only ``scheme`` and ``opaque`` are set.
public struct SIPURI: Sendable, Hashable, CustomStringConvertible {
    /// Lower-cased: `sip`, `sips`, `tel`, …
    public var scheme: String
    public var user: String?
    public var password: String?
    /// A host name, an IPv4 address or a bracketed IPv6 reference (`[2001:db8::1]`); empty for other schemes.
    public var host: String
    public var port: Int?
    public var parameters: SIPParameters
    /// `?name=value&…` headers, in order.
    public var headers: [SIPParameter]
    /// Everything after `scheme:` for schemes other than sip and sips.
    public var opaque: String?

    public init(
        scheme: String = "sip",
        user: String? = nil,
        password: String? = nil,
        host: String,
        port: Int? = nil,
        parameters: SIPParameters = [],
        headers: [SIPParameter] = []
    ) {
        self.scheme = SIPSyntax.lowercased(scheme)
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.parameters = parameters
        self.headers = headers
        self.opaque = nil
    }

    /// Whether the scheme is `sip` or `sips`, so host, port and parameters are meaningful.
    public var isSIP: Bool { self.scheme == "sip" || self.scheme == "sips" }

    /// `host` or `host:port`.
    public var hostPort: String {
        if let port { return "\(self.host):\(port)" }
        return self.host
    }

    /// The `transport` parameter, lower-cased, if present.
    public var transport: String? { self.parameters["transport"].map(SIPSyntax.lowercased) }

    public var description: String {
        if let opaque { return "\(self.scheme):\(opaque)" }
        var text = self.scheme + ":"
        if let user {
            text += user
            if let password { text += ":" + password }
            text += "@"
        }
        text += self.hostPort
        text += self.parameters.serializedWithSemicolons
        if !self.headers.isEmpty {
            text += "?" + self.headers.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: "&")
        }
        return text
    }
}

extension SIPURI {
    /// Parses a URI; `text` must be the whole URI (no angle brackets, no surrounding whitespace).
    public init(parsing text: some StringProtocol) throws(SIPParseError) {
        let text = String(text)
        guard !text.isEmpty else { throw SIPParseError(.uri, "empty URI") }
        guard text.utf8.count <= 4096 else { throw SIPParseError(.uri, "URI longer than 4096 bytes") }
        for byte in text.utf8 where byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"") {
            throw SIPParseError(.uri, "character \(Self.describe(byte)) not allowed in URI \(Self.excerpt(text))")
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw SIPParseError(.uri, "no scheme in URI \(Self.excerpt(text))")
        }
        let scheme = text[..<colon]
        guard let first = scheme.utf8.first, SIPSyntax.isAlpha(first),
            scheme.utf8.allSatisfy({ SIPSyntax.isAlpha($0) || SIPSyntax.isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else {
            throw SIPParseError(.uri, "invalid scheme in URI \(Self.excerpt(text))")
        }
        let rest = text[text.index(after: colon)...]
        self.scheme = SIPSyntax.lowercased(scheme)
        self.user = nil
        self.password = nil
        self.host = ""
        self.port = nil
        self.parameters = []
        self.headers = []
        self.opaque = nil
        guard self.isSIP else {
            guard !rest.isEmpty else { throw SIPParseError(.uri, "nothing after the scheme in \(Self.excerpt(text))") }
            self.opaque = String(rest)
            return
        }
        var remainder = Substring(rest)
        if let at = remainder.firstIndex(of: "@") {
            let userinfo = remainder[..<at]
            if let separator = userinfo.firstIndex(of: ":") {
                self.user = String(userinfo[..<separator])
                self.password = String(userinfo[userinfo.index(after: separator)...])
            } else {
                self.user = String(userinfo)
            }
            guard !(self.user ?? "").isEmpty else { throw SIPParseError(.uri, "empty user part in \(Self.excerpt(text))") }
            remainder = remainder[remainder.index(after: at)...]
        }
        var headersText: Substring?
        if let question = remainder.firstIndex(of: "?") {
            headersText = remainder[remainder.index(after: question)...]
            remainder = remainder[..<question]
        }
        var parametersText: Substring?
        if let semicolon = remainder.firstIndex(of: ";") {
            parametersText = remainder[remainder.index(after: semicolon)...]
            remainder = remainder[..<semicolon]
        }
        try self.parseHostPort(remainder, in: text)
        if let parametersText {
            for piece in parametersText.split(separator: ";", omittingEmptySubsequences: false) {
                guard let parameter = Self.nameValue(piece, allowFlag: true) else {
                    throw SIPParseError(.uri, "malformed parameter '\(Self.excerpt(piece))' in \(Self.excerpt(text))")
                }
                self.parameters.append(parameter)
            }
        }
        if let headersText {
            for piece in headersText.split(separator: "&", omittingEmptySubsequences: false) {
                guard let header = Self.nameValue(piece, allowFlag: false) else {
                    throw SIPParseError(.uri, "malformed header '\(Self.excerpt(piece))' in \(Self.excerpt(text))")
                }
                self.headers.append(header)
            }
        }
    }

    private mutating func parseHostPort(_ text: Substring, in whole: String) throws(SIPParseError) {
        var hostText = text
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw SIPParseError(.uri, "unterminated IPv6 reference in \(Self.excerpt(whole))")
            }
            hostText = text[...close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw SIPParseError(.uri, "unexpected text after IPv6 reference in \(Self.excerpt(whole))") }
                portText = after.dropFirst()
            }
            let inner = hostText.dropFirst().dropLast()
            guard !inner.isEmpty, inner.utf8.allSatisfy({ SIPSyntax.isDigit($0) || ($0 | 0x20 >= UInt8(ascii: "a") && $0 | 0x20 <= UInt8(ascii: "f")) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else {
                throw SIPParseError(.uri, "invalid IPv6 reference in \(Self.excerpt(whole))")
            }
        } else {
            if let colon = text.firstIndex(of: ":") {
                hostText = text[..<colon]
                portText = text[text.index(after: colon)...]
            }
            guard !hostText.isEmpty, hostText.utf8.allSatisfy({ SIPSyntax.isAlpha($0) || SIPSyntax.isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") }) else {
                throw SIPParseError(.uri, "invalid host in \(Self.excerpt(whole))")
            }
        }
        self.host = String(hostText)
        if let portText {
            guard let port = SIPSyntax.parseUInt32(portText), port <= 65535 else {
                throw SIPParseError(.uri, "invalid port in \(Self.excerpt(whole))")
            }
            self.port = Int(port)
        }
    }

    private static func nameValue(_ piece: Substring, allowFlag: Bool) -> SIPParameter? {
        if let equals = piece.firstIndex(of: "=") {
            let name = piece[..<equals]
            let value = piece[piece.index(after: equals)...]
            guard !name.isEmpty, !name.contains("&"), !name.contains("?") else { return nil }
            return SIPParameter(String(name), String(value))
        }
        guard allowFlag, !piece.isEmpty else { return nil }
        return SIPParameter(String(piece))
    }

    static func excerpt(_ text: some StringProtocol) -> String {
        text.count > 48 ? "'\(text.prefix(48))…'" : "'\(text)'"
    }

    private static func describe(_ byte: UInt8) -> String {
        byte < 0x21 || byte == 0x7F ? "0x\(String(byte, radix: 16))" : "'\(Character(Unicode.Scalar(byte)))'"
    }
}

extension SIPURI {
    /// URI equality in the sense of RFC 3261 section 19.1.4, simplified to what matching needs here: scheme,
    /// user (case-sensitive), host (case-insensitive), port, and the `transport`, `user`, `method`, `maddr`
    /// and `ttl` parameters when both carry them.
    public func isEquivalent(to other: SIPURI) -> Bool {
        guard self.scheme == other.scheme else { return false }
        if let opaque = self.opaque { return opaque == other.opaque }
        guard self.user == other.user, self.password == other.password,
            SIPSyntax.equalsIgnoringCase(self.host, other.host), self.port == other.port
        else { return false }
        for name in ["transport", "user", "method", "maddr", "ttl"] {
            let lhs = self.parameters[name]
            let rhs = other.parameters[name]
            if self.parameters.contains(name) != other.parameters.contains(name) { return false }
            if let lhs, let rhs, !SIPSyntax.equalsIgnoringCase(lhs, rhs) { return false }
        }
        return true
    }
}
