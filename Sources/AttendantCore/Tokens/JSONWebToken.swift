#if canImport(AttendantPluginKit)
// The fuzz target (`Fuzz/JWT`) compiles this file together with the kit's JSONValue.swift, without the module.
import AttendantPluginKit
#endif

/// A JSON Web Token (RFC 7519) in the JWS compact form `header.payload.signature`, read without its
/// signing key: the daemon only needs to know when a token expires and what it allows, and the server
/// checks the signature anyway.
///
/// Besides the registered time claims (`exp`, `nbf`, `iat`) it reads Twilio's two kinds of voice token:
/// capability tokens, whose `scope` claim is a space-separated list of URIs such as
/// `scope:client:incoming?clientName=alice scope:client:outgoing?appSid=AP…`, and access tokens, whose
/// `grants` claim holds `identity` and a `voice` grant with `incoming.allow`.
///
/// Depends on nothing but ``JSONValue`` and ``Base64URL``, so the fuzz target (`Fuzz/`) compiles it alone.
struct JSONWebToken: Sendable, Hashable {
    var header: [String: JSONValue]
    var claims: [String: JSONValue]

    /// What is wrong with a token that looks like a JWT: "its payload is not base64url", …
    struct Problem: Error, Hashable, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// True when `text` has the shape of a JWS compact serialization: exactly three dot-separated parts.
    /// (An encrypted JWE has five and cannot be read without its key: it counts as opaque.)
    static func hasJWTShape(_ text: some StringProtocol) -> Bool {
        text.utf8.count { $0 == UInt8(ascii: ".") } == 2
    }

    /// Decodes the header and the claims; the signature is only checked to be base64url.
    init(parsing text: some StringProtocol) throws(Problem) {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw Problem("it does not have three parts separated by dots") }
        self.header = try Self.object(parts[0], "header")
        self.claims = try Self.object(parts[1], "payload")
        guard Base64URL.decode(parts[2]) != nil else { throw Problem("its signature is not base64url") }
        guard case .string = self.header["alg"] else { throw Problem("its header has no \"alg\" string") }
    }

    private static func object(_ part: some Collection<UInt8>, _ name: String) throws(Problem) -> [String: JSONValue] {
        guard !part.isEmpty else { throw Problem("its \(name) is empty") }
        guard let bytes = Base64URL.decode(part) else { throw Problem("its \(name) is not base64url") }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw Problem("its \(name) is not JSON (\(error))")
        }
        guard case .object(let members) = value else { throw Problem("its \(name) is \(value.typeDescription), not a JSON object") }
        return members
    }

    // MARK: Registered claims

    /// `exp`: seconds since 1970 after which the token is no good.
    func expiresAt() throws(Problem) -> Double? { try self.numericDate("exp") }
    /// `nbf`: seconds since 1970 before which the token is no good.
    func notBefore() throws(Problem) -> Double? { try self.numericDate("nbf") }
    /// `iat`: seconds since 1970 when the token was issued.
    func issuedAt() throws(Problem) -> Double? { try self.numericDate("iat") }

    private func numericDate(_ claim: String) throws(Problem) -> Double? {
        guard let value = self.claims[claim] else { return nil }
        guard case .number(let seconds) = value, seconds.isFinite, abs(seconds) < 1e13 else {
            throw Problem("its \"\(claim)\" claim is \(value.typeDescription), not a time in seconds")
        }
        return seconds
    }

    // MARK: Twilio capabilities

    /// Whether the token lets its holder receive calls, as far as it says.
    enum IncomingCapability: Hashable {
        /// The token says nothing about calls (neither a `scope` nor a voice grant).
        case unstated
        /// Incoming calls are allowed.
        case allowed
        /// The token is for calls but not incoming ones; why, for the message.
        case missing(String)
    }

    /// The incoming capability of a Twilio capability token (`scope`) or access token (`grants.voice`).
    /// Both are checked when both are present; either one refusing is enough to refuse.
    func incomingCapability() throws(Problem) -> IncomingCapability {
        var answer = IncomingCapability.unstated
        if let scope = self.claims["scope"] {
            guard case .string(let text) = scope else { throw Problem("its \"scope\" claim is \(scope.typeDescription), not a string") }
            let names = text.split(separator: " ").map { $0.prefix { $0 != "?" } }
            if names.contains("scope:client:incoming") {
                answer = .allowed
            } else if names.isEmpty {
                return .missing("its scope is empty")
            } else {
                let listed = Set(names).sorted().joined(separator: ", ")
                return .missing("its scope has no scope:client:incoming (only \(listed))")
            }
        }
        if let grants = self.claims["grants"] {
            guard case .object = grants else { throw Problem("its \"grants\" claim is \(grants.typeDescription), not an object") }
            if let voice = grants["voice"] {
                guard case .object = voice else { throw Problem("its voice grant is \(voice.typeDescription), not an object") }
                switch voice["incoming"]?["allow"] {
                case .bool(true)?: answer = .allowed
                case .bool(false)?: return .missing("its voice grant does not allow incoming calls (grants.voice.incoming.allow is false)")
                case nil: return .missing("its voice grant does not allow incoming calls (it has no grants.voice.incoming.allow)")
                case let other?: throw Problem("its grants.voice.incoming.allow is \(other.typeDescription), not true or false")
                }
            }
        }
        return answer
    }

    /// `grants.identity` of an access token, or the `clientName` of a capability token's incoming scope.
    var identity: String? {
        if case .string(let identity)? = self.claims["grants"]?["identity"] { return identity }
        if case .string(let scope)? = self.claims["scope"] {
            for uri in scope.split(separator: " ") where uri.hasPrefix("scope:client:incoming?") {
                for parameter in uri.drop(while: { $0 != "?" }).dropFirst().split(separator: "&") where parameter.hasPrefix("clientName=") {
                    return String(parameter.dropFirst("clientName=".count))
                }
            }
        }
        return nil
    }
}

/// Base64 with the URL-safe alphabet (RFC 4648 §5), as JWTs use it: no padding, though padding is
/// accepted.
enum Base64URL {
    /// The decoded bytes, or nil when `text` is not base64url.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var body = Array(text)
        if body.count % 4 == 0 {
            var padding = 0
            while padding < 2, body.last == UInt8(ascii: "=") {
                body.removeLast()
                padding += 1
            }
        }
        guard body.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(body.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in body {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            default: return nil
            }
            accumulator = (accumulator << 6) | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return output
    }

    /// Encodes without padding (tests and the fuzz target's seeds).
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var output: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = (accumulator << 8) | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                output.append(alphabet[Int((accumulator >> UInt32(bits)) & 63)])
            }
        }
        if bits > 0 { output.append(alphabet[Int((accumulator << UInt32(6 - bits)) & 63)]) }
        return String(decoding: output, as: UTF8.self)
    }
}
