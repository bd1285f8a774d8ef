package import AttendantPluginAPI

/// A Digest algorithm (RFC 7616 section 3.2, RFC 8760 for SIP).
package struct DigestAlgorithm: Sendable, Hashable, CustomStringConvertible {
    /// The name as the `algorithm` parameter writes it.
    package let name: String
    let hash: Hash
    /// `-sess`: HA1 also covers the nonce and cnonce.
    package let isSession: Bool

    enum Hash: Sendable, Hashable { case md5, sha256 }

    package static let md5 = DigestAlgorithm(name: "MD5", hash: .md5, isSession: false)
    package static let md5Session = DigestAlgorithm(name: "MD5-sess", hash: .md5, isSession: true)
    package static let sha256 = DigestAlgorithm(name: "SHA-256", hash: .sha256, isSession: false)
    package static let sha256Session = DigestAlgorithm(name: "SHA-256-sess", hash: .sha256, isSession: true)

    package var description: String { self.name }

    /// The algorithm a challenge's `algorithm` parameter names; nil (absent) means MD5. Returns nil for
    /// algorithms not supported here (SHA-512-256 among them).
    package init?(parameter: String?) {
        guard let parameter else {
            self = .md5
            return
        }
        switch SIPSyntax.lowercased(parameter) {
        case "md5": self = .md5
        case "md5-sess": self = .md5Session
        case "sha-256": self = .sha256
        case "sha-256-sess": self = .sha256Session
        default: return nil
        }
    }

    private init(name: String, hash: Hash, isSession: Bool) {
        self.name = name
        self.hash = hash
        self.isSession = isSession
    }

    /// Lowercase hex of the hash of `bytes`, computed by `hashing` (the host's: SIPCore links no
    /// cryptography of its own).
    package func hexDigest(_ bytes: some Sequence<UInt8>, using hashing: any ChannelHashing) -> String {
        let algorithm: HashAlgorithm =
            switch self.hash {
            case .md5: .md5
            case .sha256: .sha256
            }
        return Hex.encode(hashing.hash(algorithm, Array(bytes)))
    }

    package func hexDigest(_ text: String, using hashing: any ChannelHashing) -> String { self.hexDigest(text.utf8, using: hashing) }
}

/// A username and password for Digest, such as ``EphemeralCredentials`` makes.
package struct DigestCredentials: Sendable, Hashable, CustomStringConvertible {
    package var username: String
    package var password: String

    package init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// Never shows the password.
    package var description: String { "DigestCredentials(username: \(self.username), password: ***)" }
}

/// Digest computations of RFC 7616 (with RFC 2617's qop-less form), for SIP requests.
package enum DigestAuthentication {
    /// The `response` value: `KD(HA1, nonce:nc:cnonce:qop:HA2)`, or `KD(HA1, nonce:HA2)` without qop.
    package static func response(
        algorithm: DigestAlgorithm,
        username: String,
        realm: String,
        password: String,
        nonce: String,
        clientNonce: String,
        nonceCount: String,
        qop: String?,
        method: String,
        uri: String,
        body: [UInt8] = [],
        hashing: any ChannelHashing
    ) -> String {
        func hex(_ text: String) -> String { algorithm.hexDigest(text, using: hashing) }
        var ha1 = hex("\(username):\(realm):\(password)")
        if algorithm.isSession { ha1 = hex("\(ha1):\(nonce):\(clientNonce)") }
        let ha2 =
            qop == "auth-int"
            ? hex("\(method):\(uri):\(algorithm.hexDigest(body, using: hashing))")
            : hex("\(method):\(uri)")
        guard let qop else { return hex("\(ha1):\(nonce):\(ha2)") }
        return hex("\(ha1):\(nonce):\(nonceCount):\(clientNonce):\(qop):\(ha2)")
    }

    /// The Authorization (or Proxy-Authorization) value answering `challenge` for `request`. Uses qop
    /// `auth` when offered, else `auth-int`, else the qop-less form; echoes `opaque` and `algorithm`.
    package static func credentials(
        answering challenge: SIPAuthChallenge,
        method: SIPMethod,
        uri: SIPURI,
        body: [UInt8] = [],
        credentials: DigestCredentials,
        clientNonce: String,
        nonceCount: UInt32,
        hashing: any ChannelHashing
    ) throws(SIPAuthenticationError) -> SIPCredentials {
        guard challenge.isDigest else {
            throw SIPAuthenticationError(.unsupportedScheme, "a \(challenge.scheme) challenge cannot be answered with Digest")
        }
        guard let algorithm = DigestAlgorithm(parameter: challenge.algorithm) else {
            throw SIPAuthenticationError(
                .unsupportedAlgorithm,
                "Digest algorithm \(challenge.algorithm ?? "") is not supported (MD5, MD5-sess, SHA-256, SHA-256-sess are)"
            )
        }
        guard let realm = challenge.realm, let nonce = challenge.nonce else {
            throw SIPAuthenticationError(.malformedChallenge, "Digest challenge without realm or nonce")
        }
        let offered = challenge.qopOptions
        let qop: String?
        if offered.isEmpty {
            qop = nil
        } else if offered.contains("auth") {
            qop = "auth"
        } else if offered.contains("auth-int") {
            qop = "auth-int"
        } else {
            throw SIPAuthenticationError(.unsupportedQOP, "Digest qop \(offered.joined(separator: ",")) is not supported (auth, auth-int are)")
        }
        let nc = Hex.encode(nonceCount, digits: 8)
        let uriText = uri.description
        let response = Self.response(
            algorithm: algorithm,
            username: credentials.username,
            realm: realm,
            password: credentials.password,
            nonce: nonce,
            clientNonce: clientNonce,
            nonceCount: nc,
            qop: qop,
            method: method.rawValue,
            uri: uriText,
            body: body,
            hashing: hashing
        )
        var parameters = SIPParameters()
        parameters.append(SIPParameter("username", credentials.username, quoted: true))
        parameters.append(SIPParameter("realm", realm, quoted: true))
        parameters.append(SIPParameter("uri", uriText, quoted: true))
        parameters.append(SIPParameter("algorithm", challenge.algorithm ?? algorithm.name))
        parameters.append(SIPParameter("nonce", nonce, quoted: true))
        if let qop {
            parameters.append(SIPParameter("nc", nc))
            parameters.append(SIPParameter("cnonce", clientNonce, quoted: true))
            parameters.append(SIPParameter("qop", qop))
        }
        parameters.append(SIPParameter("response", response, quoted: true))
        if let opaque = challenge.opaque { parameters.append(SIPParameter("opaque", opaque, quoted: true)) }
        return SIPCredentials(scheme: "Digest", parameters: parameters)
    }
}

extension SIPCredentials {
    /// `Bearer <token>` (RFC 8898), refusing a token that is not a token68 (it would break the header).
    package static func bearer(validating token: String) throws(SIPAuthenticationError) -> SIPCredentials {
        guard SIPCredentials.isToken68(token.utf8) else {
            throw SIPAuthenticationError(.invalidToken, "the bearer token contains characters a header cannot carry")
        }
        return .bearer(token)
    }
}

enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        for byte in bytes {
            text.append(Self.digits[Int(byte >> 4)])
            text.append(Self.digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func encode(_ value: UInt32, digits: Int) -> String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - hex.count)) + hex
    }
}
