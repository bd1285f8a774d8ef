/// A challenge this user agent cannot answer, or credentials it cannot send.
package struct SIPAuthenticationError: Error, Sendable, Hashable, CustomStringConvertible {
    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { self.message }

    package struct Code: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: String
        package init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { self.rawValue }

        /// The challenge uses a scheme other than Digest and Bearer, or one the credentials do not fit.
        package static let unsupportedScheme = Code("unsupported-scheme")
        /// A Digest algorithm other than MD5, MD5-sess, SHA-256 and SHA-256-sess.
        package static let unsupportedAlgorithm = Code("unsupported-algorithm")
        /// A Digest `qop` other than `auth` and `auth-int`.
        package static let unsupportedQOP = Code("unsupported-qop")
        /// The challenge lacks `realm` or `nonce`.
        package static let malformedChallenge = Code("malformed-challenge")
        /// The bearer token is not a token68 (RFC 7235), so it cannot go into a header as it is.
        package static let invalidToken = Code("invalid-token")
    }
}
