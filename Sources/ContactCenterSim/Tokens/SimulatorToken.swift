import Crypto
import Foundation

/// The claims of a simulator access token: Twilio's access-token shape, HS256-signed.
///
/// ```
/// {"iss":"ACsimulator","sub":"ACsimulator","jti":"…","iat":…,"nbf":…,"exp":…,
///  "grants":{"identity":"alice","voice":{"incoming":{"allow":true}}}}
/// ```
struct SimulatorTokenClaims: Codable, Sendable, Hashable {
    struct Grants: Codable, Sendable, Hashable {
        var identity: String
        var voice: Voice?
    }

    struct Voice: Codable, Sendable, Hashable {
        var incoming: Allow?
    }

    struct Allow: Codable, Sendable, Hashable {
        var allow: Bool
    }

    var iss: String
    var sub: String
    var jti: String
    var iat: Int
    var nbf: Int
    var exp: Int
    var grants: Grants

    /// Whether the token lets its holder receive calls.
    var allowsIncoming: Bool { self.grants.voice?.incoming?.allow ?? false }
}

/// Why the registrar refused a token. The text never contains the token.
struct TokenRejection: Error, Sendable, Hashable, CustomStringConvertible {
    var reason: String
    var description: String { "token refused: \(self.reason)" }
}

/// Signs and verifies HS256 JSON Web Tokens (RFC 7519) with base64url without padding.
enum SimulatorToken {
    static let header = #"{"alg":"HS256","typ":"JWT"}"#

    static func sign(_ claims: SimulatorTokenClaims, key: [UInt8]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings, integers and booleans cannot fail.
        let payload = (try? encoder.encode(claims)) ?? Data()
        let signingInput = Base64URL.encode(Array(Self.header.utf8)) + "." + Base64URL.encode(Array(payload))
        let mac = HMAC<SHA256>.authenticationCode(for: Array(signingInput.utf8), using: SymmetricKey(data: key))
        return signingInput + "." + Base64URL.encode(Array(mac))
    }

    /// The claims of a token signed with `key`, valid at `now`.
    static func verify(_ token: String, key: [UInt8], now: Double) throws(TokenRejection) -> SimulatorTokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw TokenRejection(reason: "not a JWT (expected three dot-separated parts)") }
        guard let headerBytes = Base64URL.decode(parts[0]),
            let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
            header["alg"] as? String == "HS256"
        else { throw TokenRejection(reason: "header is not HS256") }
        guard let signature = Base64URL.decode(parts[2]) else { throw TokenRejection(reason: "signature is not base64url") }
        let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signingInput, using: SymmetricKey(data: key)) else {
            throw TokenRejection(reason: "bad signature")
        }
        guard let payload = Base64URL.decode(parts[1]),
            let claims = try? JSONDecoder().decode(SimulatorTokenClaims.self, from: Data(payload))
        else { throw TokenRejection(reason: "claims are not the expected JSON") }
        guard Double(claims.nbf) <= now else { throw TokenRejection(reason: "not valid before \(claims.nbf)") }
        guard now < Double(claims.exp) else { throw TokenRejection(reason: "expired at \(claims.exp)") }
        return claims
    }
}

/// Base64url without padding (RFC 4648 section 5, as JWTs use it).
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }
}
