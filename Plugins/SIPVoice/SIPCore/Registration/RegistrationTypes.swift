/// Why registration stopped, classed the way the channel supervisor recovers (DESIGN.md section 4).
package struct RegistrationError: Error, Sendable, Hashable, CustomStringConvertible {
    package var code: Code
    package var message: String
    /// The registrar's status code, when a response caused the failure.
    package var statusCode: Int?
    /// The registrar's `Retry-After`, in seconds, when it sent one.
    package var retryAfter: UInt32?

    package init(_ code: Code, _ message: String, statusCode: Int? = nil, retryAfter: UInt32? = nil) {
        self.code = code
        self.message = message
        self.statusCode = statusCode
        self.retryAfter = retryAfter
    }

    package var description: String { self.message }

    package struct Code: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: String
        package init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { self.rawValue }

        /// No answer, a broken connection, 408, 480, 5xx, a malformed response: retry with backoff.
        package static let transient = Code("transient")
        /// The registrar refused the credentials (a second 401/407 for them, or 403): renew the token
        /// once, then ask the user to sign in.
        package static let authentication = Code("authentication")
        /// Retrying cannot help: 404, a redirect, an unsupported extension or challenge, credentials of
        /// the wrong kind, a `Min-Expires` beyond the configured maximum.
        package static let configuration = Code("configuration")
    }
}

/// What the registrar granted.
package struct RegistrationGrant: Sendable, Hashable {
    /// Seconds the binding lasts.
    package var expires: UInt32
    /// When the machine will refresh on its own (``RegistrationConfiguration/refreshFraction`` of
    /// ``expires``).
    package var refreshAfter: Duration
    /// Whether RFC 5626 outbound is in use: asked for, and the registrar's 2xx lists `outbound`.
    package var outbound: Bool
    /// The registrar's `Flow-Timer` (RFC 5626 section 4.4.1): send keep-alives every 80-100 % of it.
    package var flowTimer: UInt32?

    package init(expires: UInt32, refreshAfter: Duration, outbound: Bool, flowTimer: UInt32?) {
        self.expires = expires
        self.refreshAfter = refreshAfter
        self.outbound = outbound
        self.flowTimer = flowTimer
    }
}

/// The secret a REGISTER is authenticated with.
package enum RegistrationCredentials: Sendable, Hashable, CustomStringConvertible {
    /// No credentials: a challenge is a configuration failure.
    case none
    /// A bearer token (JWT) for `Authorization: Bearer` (RFC 8898).
    case bearer(String)
    /// A username and password for Digest (possibly ephemeral ones).
    case digest(DigestCredentials)

    /// Names the kind, never the secret.
    package var description: String {
        switch self {
        case .none: "none"
        case .bearer: "bearer token"
        case .digest(let credentials): "digest user \(credentials.username)"
        }
    }
}

/// How to register.
package struct RegistrationConfiguration: Sendable, Hashable {
    /// Writes the REGISTER requests (addresses, Contact, instance ID, outbound).
    package var builder: SIPRegisterBuilder
    /// The binding lifetime to ask for: the keep-alive cycle, 600 s by default.
    package var expires: UInt32 = 600
    /// Refresh at this fraction of the granted lifetime (baresip's 90 %).
    package var refreshFraction: Double = 0.9
    /// A `423 Interval Too Brief` asking for more than this is a configuration failure.
    package var maximumExpires: UInt32 = 86400
    /// TCP or TLS: no retransmissions (RFC 3261 section 17.1.2.2).
    package var reliableTransport: Bool
    package var timers: SIPTimers = SIPTimers()

    package init(builder: SIPRegisterBuilder, expires: UInt32 = 600) {
        self.builder = builder
        self.expires = expires
        self.reliableTransport = builder.viaTransport != "UDP"
    }
}
