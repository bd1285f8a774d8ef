/// A SIP or SIPS URI (RFC 3261 section 19.1), or any other absolute URI kept as its text.
///
/// `sip:alice:secret@example.com:5060;transport=tcp?subject=hi` has the user `alice`, the password
/// `secret`, the host `example.com`, the port 5060, a `transport` parameter and a `subject` header. User,
/// parameter and header text stays %-escaped as written. For schemes other than `sip` and `sips` (a `tel:`
/// caller, a `urn:`) only ``scheme`` and ``opaque`` are set.
package struct SIPURI: Sendable, Hashable, CustomStringConvertible {
    /// Lower-cased: `sip`, `sips`, `tel`, …
    package var scheme: String
    package var user: String?
    package var password: String?
    /// A host name, an IPv4 address or a bracketed IPv6 reference (`[2001:db8::1]`); empty for other schemes.
    package var host: String
    package var port: Int?
    package var parameters: SIPParameters
    /// `?name=value&…` headers, in order.
    package var headers: [SIPParameter]
    /// Everything after `scheme:` for schemes other than sip and sips.
    package var opaque: String?

    package init(
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
    package var isSIP: Bool { self.scheme == "sip" || self.scheme == "sips" }

    /// `host` or `host:port`.
    package var hostPort: String {
        if let port { return "\(self.host):\(port)" }
        return self.host
    }

    /// The `transport` parameter, lower-cased, if present.
    package var transport: String? { self.parameters["transport"].map(SIPSyntax.lowercased) }

    package var description: String {
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
    ///
    /// It reads bytes: every delimiter is ASCII, and a SIP URI is ASCII (RFC 3261 section 25.1: anything else
    /// is %-escaped), so a delimiter followed by a combining mark still delimits.
    package init(parsing text: some StringProtocol) throws(SIPParseError) {
        let text = String(text)
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw SIPParseError(.uri, "empty URI") }
        guard bytes.count <= 4096 else { throw SIPParseError(.uri, "URI longer than 4096 bytes") }
        for byte in bytes where byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"") {
            throw SIPParseError(.uri, "character \(Self.describe(byte)) not allowed in URI \(Self.excerpt(text))")
        }
        func first(_ byte: UInt8, in range: Range<Int>) -> Int? { bytes[range].firstIndex(of: byte) }
        func string(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        guard let colon = first(UInt8(ascii: ":"), in: 0..<bytes.count) else {
            throw SIPParseError(.uri, "no scheme in URI \(Self.excerpt(text))")
        }
        let scheme = bytes[..<colon]
        guard let initial = scheme.first, SIPSyntax.isAlpha(initial),
            scheme.allSatisfy({
                SIPSyntax.isAlpha($0) || SIPSyntax.isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
            })
        else {
            throw SIPParseError(.uri, "invalid scheme in URI \(Self.excerpt(text))")
        }
        self.scheme = SIPSyntax.lowercased(string(0..<colon))
        self.user = nil
        self.password = nil
        self.host = ""
        self.port = nil
        self.parameters = []
        self.headers = []
        self.opaque = nil
        var remainder = (colon + 1)..<bytes.count
        guard self.isSIP else {
            guard !remainder.isEmpty else { throw SIPParseError(.uri, "nothing after the scheme in \(Self.excerpt(text))") }
            self.opaque = string(remainder)
            return
        }
        if let at = first(UInt8(ascii: "@"), in: remainder) {
            let userinfo = remainder.lowerBound..<at
            if let separator = first(UInt8(ascii: ":"), in: userinfo) {
                self.user = string(userinfo.lowerBound..<separator)
                self.password = string((separator + 1)..<at)
            } else {
                self.user = string(userinfo)
            }
            guard !(self.user ?? "").isEmpty else { throw SIPParseError(.uri, "empty user part in \(Self.excerpt(text))") }
            remainder = (at + 1)..<remainder.upperBound
        }
        var headersRange: Range<Int>?
        if let question = first(UInt8(ascii: "?"), in: remainder) {
            headersRange = (question + 1)..<remainder.upperBound
            remainder = remainder.lowerBound..<question
        }
        var parametersRange: Range<Int>?
        if let semicolon = first(UInt8(ascii: ";"), in: remainder) {
            parametersRange = (semicolon + 1)..<remainder.upperBound
            remainder = remainder.lowerBound..<semicolon
        }
        try self.parseHostPort(bytes[remainder], in: text)
        if let parametersRange {
            for piece in bytes[parametersRange].split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false) {
                guard let parameter = Self.nameValue(piece, allowFlag: true) else {
                    throw SIPParseError(
                        .uri,
                        "malformed parameter '\(Self.excerpt(String(decoding: piece, as: UTF8.self)))' in \(Self.excerpt(text))"
                    )
                }
                self.parameters.append(parameter)
            }
        }
        if let headersRange {
            for piece in bytes[headersRange].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
                guard let header = Self.nameValue(piece, allowFlag: false) else {
                    throw SIPParseError(.uri, "malformed header '\(Self.excerpt(String(decoding: piece, as: UTF8.self)))' in \(Self.excerpt(text))")
                }
                self.headers.append(header)
            }
        }
    }

    private mutating func parseHostPort(_ text: ArraySlice<UInt8>, in whole: String) throws(SIPParseError) {
        var hostText = text
        var portText: ArraySlice<UInt8>?
        if text.first == UInt8(ascii: "[") {
            guard let close = text.firstIndex(of: UInt8(ascii: "]")) else {
                throw SIPParseError(.uri, "unterminated IPv6 reference in \(Self.excerpt(whole))")
            }
            hostText = text[...close]
            let after = text[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else {
                    throw SIPParseError(.uri, "unexpected text after IPv6 reference in \(Self.excerpt(whole))")
                }
                portText = after.dropFirst()
            }
            let inner = hostText.dropFirst().dropLast()
            guard !inner.isEmpty,
                inner.allSatisfy({
                    SIPSyntax.isDigit($0) || ($0 | 0x20 >= UInt8(ascii: "a") && $0 | 0x20 <= UInt8(ascii: "f")) || $0 == UInt8(ascii: ":")
                        || $0 == UInt8(ascii: ".")
                })
            else {
                throw SIPParseError(.uri, "invalid IPv6 reference in \(Self.excerpt(whole))")
            }
        } else {
            if let colon = text.firstIndex(of: UInt8(ascii: ":")) {
                hostText = text[..<colon]
                portText = text[(colon + 1)...]
            }
            guard !hostText.isEmpty,
                hostText.allSatisfy({
                    SIPSyntax.isAlpha($0) || SIPSyntax.isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
                })
            else {
                throw SIPParseError(.uri, "invalid host in \(Self.excerpt(whole))")
            }
        }
        self.host = String(decoding: hostText, as: UTF8.self)
        if let portText {
            guard let port = SIPSyntax.parseUInt32(String(decoding: portText, as: UTF8.self)), port <= 65535 else {
                throw SIPParseError(.uri, "invalid port in \(Self.excerpt(whole))")
            }
            self.port = Int(port)
        }
    }

    private static func nameValue(_ piece: ArraySlice<UInt8>, allowFlag: Bool) -> SIPParameter? {
        if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
            let name = piece[..<equals]
            let value = piece[(equals + 1)...]
            guard !name.isEmpty, !name.contains(UInt8(ascii: "&")), !name.contains(UInt8(ascii: "?")) else { return nil }
            return SIPParameter(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        }
        guard allowFlag, !piece.isEmpty else { return nil }
        return SIPParameter(String(decoding: piece, as: UTF8.self))
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
    package func isEquivalent(to other: SIPURI) -> Bool {
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
