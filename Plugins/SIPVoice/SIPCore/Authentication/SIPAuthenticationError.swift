/// A challenge this user agent cannot answer, or credentials it cannot send.
public struct SIPAuthenticationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { self.message }

    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { self.rawValue }

        /// The challenge uses a scheme other than Digest and Bearer, or one the credentials do not fit.
        public static let unsupportedScheme = Code("unsupported-scheme")
        /// A Digest algorithm other than MD5, MD5-sess, SHA-256 and SHA-256-sess.
        public static let unsupportedAlgorithm = Code("unsupported-algorithm")
        /// A Digest `qop` other than `auth` and `auth-int`.
        public static let unsupportedQOP = Code("unsupported-qop")
        /// The challenge lacks `realm` or `nonce`.
        public static let malformedChallenge = Code("malformed-challenge")
        /// The bearer token is not a token68 (RFC 7235), so it cannot go into a header as it is.
        public static let invalidToken = Code("invalid-token")
    }
}
