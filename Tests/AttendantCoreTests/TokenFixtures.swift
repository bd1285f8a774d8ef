import AttendantPluginAPI

/// JWTs minted for tests: real base64url parts, a dummy signature (the daemon never checks signatures).
enum TestJWT {
    /// `header.payload.signature` with the claims given as JSON text.
    static func make(header: String = #"{"alg":"HS256","typ":"JWT"}"#, claims: String, signature: String = "c2lnbmF0dXJl") -> String {
        "\(base64url(header)).\(base64url(claims)).\(signature)"
    }

    /// A token with `iat` and `exp` and an incoming capability.
    static func capability(issuedAt: Double, lifetime: Double = 3600, client: String = "alice", nonce: Int = 0) -> String {
        self.make(
            claims: """
                {"iss":"AC0123","iat":\(Int64(issuedAt)),"exp":\(Int64(issuedAt + lifetime)),"jti":"n\(nonce)",\
                "scope":"scope:client:incoming?clientName=\(client) scope:client:outgoing?appSid=AP42"}
                """
        )
    }

    static func base64url(_ text: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var output = ""
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text.utf8 {
            accumulator = (accumulator << 8) | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                output.append(alphabet[Int((accumulator >> UInt32(bits)) & 63)])
            }
        }
        if bits > 0 { output.append(alphabet[Int((accumulator << UInt32(6 - bits)) & 63)]) }
        return output
    }
}
