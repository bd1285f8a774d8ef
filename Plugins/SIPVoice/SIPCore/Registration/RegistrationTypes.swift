/// Why registration stopped, classed the way the channel supervisor recovers (DESIGN.md section 4).
public struct RegistrationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: Code
    public var message: String
    /// The registrar's status code, when a response caused the failure.
    public var statusCode: Int?
    /// The registrar's `Retry-After`, in seconds, when it sent one.
    public var retryAfter: UInt32?

    public init(_ code: Code, _ message: String, statusCode: Int? = nil, retryAfter: UInt32? = nil) {
        self.code = code
        self.message = message
        self.statusCode = statusCode
        self.retryAfter = retryAfter
    }

    public var description: String { self.message }

    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { self.rawValue }

        /// No answer, a broken connection, 408, 480, 5xx, a malformed response: retry with backoff.
        public static let transient = Code("transient")
        /// The registrar refused the credentials (a second 401/407 for them, or 403): renew the token
        /// once, then ask the user to sign in.
        public static let authentication = Code("authentication")
        /// Retrying cannot help: 404, a redirect, an unsupported extension or challenge, credentials of
        /// the wrong kind, a `Min-Expires` beyond the configured maximum.
        public static let configuration = Code("configuration")
    }
}

/// What the registrar granted.
public struct RegistrationGrant: Sendable, Hashable {
    /// Seconds the binding lasts.
    public var expires: UInt32
    /// When the machine will refresh on its own (``RegistrationConfiguration/refreshFraction`` of
    /// ``expires``).
    public var refreshAfter: Duration
    /// Whether RFC 5626 outbound is in use: asked for, and the registrar's 2xx lists `outbound`.
    public var outbound: Bool
    /// The registrar's `Flow-Timer` (RFC 5626 section 4.4.1): send keep-alives every 80-100 % of it.
    public var flowTimer: UInt32?

    public init(expires: UInt32, refreshAfter: Duration, outbound: Bool, flowTimer: UInt32?) {
        self.expires = expires
        self.refreshAfter = refreshAfter
        self.outbound = outbound
        self.flowTimer = flowTimer
    }
}

/// The secret a REGISTER is authenticated with.
public enum RegistrationCredentials: Sendable, Hashable, CustomStringConvertible {
    /// No credentials: a challenge is a configuration failure.
    case none
    /// A bearer token (JWT) for `Authorization: Bearer` (RFC 8898).
    case bearer(String)
    /// A username and password for Digest (possibly ephemeral ones).
    case digest(DigestCredentials)

    /// Names the kind, never the secret.
    public var description: String {
        switch self {
        case .none: "none"
        case .bearer: "bearer token"
        case .digest(let credentials): "digest user \(credentials.username)"
        }
    }
}

/// How to register.
public struct RegistrationConfiguration: Sendable, Hashable {
    /// Writes the REGISTER requests (addresses, Contact, instance ID, outbound).
    public var builder: SIPRegisterBuilder
    /// The binding lifetime to ask for: the keep-alive cycle, 600 s by default.
    public var expires: UInt32 = 600
    /// Refresh at this fraction of the granted lifetime (baresip's 90 %).
    public var refreshFraction: Double = 0.9
    /// A `423 Interval Too Brief` asking for more than this is a configuration failure.
    public var maximumExpires: UInt32 = 86400
    /// TCP or TLS: no retransmissions (RFC 3261 section 17.1.2.2).
    public var reliableTransport: Bool
    public var timers: SIPTimers = SIPTimers()

    public init(builder: SIPRegisterBuilder, expires: UInt32 = 600) {
        self.builder = builder
        self.expires = expires
        self.reliableTransport = builder.viaTransport != "UDP"
    }
}
