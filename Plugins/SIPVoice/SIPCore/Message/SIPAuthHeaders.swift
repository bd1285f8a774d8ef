/// One challenge from a `WWW-Authenticate` or `Proxy-Authenticate` header: a scheme (`Digest`, `Bearer`)
/// and its parameters (`realm`, `nonce`, `algorithm`, `qop`, `opaque`, `stale`; `scope`, `authz_server`,
/// `error`).
package struct SIPAuthChallenge: Sendable, Hashable, CustomStringConvertible {
    /// The scheme as written; compare with ``isScheme(_:)``.
    package var scheme: String
    package var parameters: SIPParameters

    package init(scheme: String, parameters: SIPParameters) {
        self.scheme = scheme
        self.parameters = parameters
    }

    package func isScheme(_ name: String) -> Bool { SIPSyntax.equalsIgnoringCase(self.scheme, name) }

    package var isDigest: Bool { self.isScheme("Digest") }
    package var isBearer: Bool { self.isScheme("Bearer") }

    package var realm: String? { self.parameters["realm"] }
    package var nonce: String? { self.parameters["nonce"] }
    package var opaque: String? { self.parameters["opaque"] }
    /// The `algorithm` parameter as written; Digest's default when absent is MD5.
    package var algorithm: String? { self.parameters["algorithm"] }
    /// `stale=true`: the nonce expired but the credentials were right (RFC 7616 section 3.3).
    package var isStale: Bool { self.parameters["stale"].map { SIPSyntax.equalsIgnoringCase($0, "true") } ?? false }
    /// The `qop` options offered (`auth`, `auth-int`), from the comma-separated quoted list.
    package var qopOptions: [String] {
        guard let qop = self.parameters["qop"] else { return [] }
        return qop.split(separator: ",").map { SIPSyntax.lowercased(SIPSyntax.trimmed($0)) }.filter { !$0.isEmpty }
    }

    /// RFC 8898's `scope` parameter of a Bearer challenge.
    package var scope: String? { self.parameters["scope"] }
    /// RFC 8898's `authz_server` parameter: where to get a token.
    package var authorizationServer: String? { self.parameters["authz_server"] }
    /// RFC 6750's `error` parameter (`invalid_token`, …).
    package var error: String? { self.parameters["error"] }
    /// RFC 6750's `error_description`: the server's words on why the token was refused.
    package var errorDescription: String? { self.parameters["error_description"] }

    package var description: String {
        self.parameters.isEmpty ? self.scheme : "\(self.scheme) " + self.parameters.map(\.serialized).joined(separator: ", ")
    }

    package init(parsing text: some StringProtocol) throws(SIPParseError) {
        var scanner = SIPScanner(text)
        scanner.skipWhitespace()
        guard let scheme = scanner.readToken() else {
            throw SIPParseError(.headerValue, "expected an authentication scheme")
        }
        self.scheme = scheme
        self.parameters = try SIPParameters.parseCommaSeparated(&scanner)
    }
}

/// The value of an `Authorization` or `Proxy-Authorization` header: `Bearer <token>` (RFC 8898, a
/// token68) or `Digest username="…", …` (parameters).
package struct SIPCredentials: Sendable, Hashable, CustomStringConvertible {
    package var scheme: String
    /// The token of `Bearer <token>`; nil for parameter-style credentials.
    package var token: String?
    package var parameters: SIPParameters

    package init(scheme: String, token: String? = nil, parameters: SIPParameters = []) {
        self.scheme = scheme
        self.token = token
        self.parameters = parameters
    }

    /// `Authorization: Bearer <token>` (RFC 8898 section 2.2).
    package static func bearer(_ token: String) -> SIPCredentials {
        SIPCredentials(scheme: "Bearer", token: token)
    }

    package func isScheme(_ name: String) -> Bool { SIPSyntax.equalsIgnoringCase(self.scheme, name) }

    package var username: String? { self.parameters["username"] }
    package var realm: String? { self.parameters["realm"] }
    package var nonce: String? { self.parameters["nonce"] }
    package var response: String? { self.parameters["response"] }

    /// The header value. A Bearer token is written as it is: it must be a token68, which
    /// ``BearerToken`` checks before it gets here.
    package var description: String {
        if let token { return "\(self.scheme) \(token)" }
        return "\(self.scheme) " + self.parameters.map(\.serialized).joined(separator: ", ")
    }

    package init(parsing text: some StringProtocol) throws(SIPParseError) {
        var scanner = SIPScanner(text)
        scanner.skipWhitespace()
        guard let scheme = scanner.readToken() else {
            throw SIPParseError(.headerValue, "expected an authentication scheme")
        }
        self.scheme = scheme
        scanner.skipWhitespace()
        let rest = Array(scanner.bytes[scanner.index...])
        if Self.isToken68(rest) {
            self.token = String(decoding: rest, as: UTF8.self)
            self.parameters = []
        } else {
            self.token = nil
            self.parameters = try SIPParameters.parseCommaSeparated(&scanner)
        }
    }

    /// `token68` (RFC 7235 section 2.1): letters, digits, `-._~+/`, then optional `=` padding.
    static func isToken68(_ bytes: some Collection<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        var padding = false
        for byte in bytes {
            if byte == UInt8(ascii: "=") {
                padding = true
                continue
            }
            guard !padding else { return false }
            guard
                SIPSyntax.isAlpha(byte) || SIPSyntax.isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
            else { return false }
        }
        return bytes.first != UInt8(ascii: "=")
    }
}
