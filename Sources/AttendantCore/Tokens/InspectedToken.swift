package import AttendantPluginAPI

/// A token as the daemon reads it: the value for the channel, when it expires, and from when its
/// lifetime counts.
///
/// Opaque tokens (anything that is not `header.payload.signature`) are allowed from every source; their
/// lifetime is unknown, so they are renewed only on demand: when the server refuses them, when the user
/// runs `attendantctl token renew`, never on a schedule. A JWT without `exp` is treated the same way.
package struct InspectedToken: Sendable, Hashable {
    package var token: ChannelToken
    /// `iat`, when the token says; the renewal schedule measures the lifetime from here.
    package var issuedAt: UnixTime?
    /// Whether it is a JWT whose claims were read.
    package var isJWT: Bool
    /// `grants.identity` or the capability token's `clientName` (not secret; for the log).
    package var identity: String?

    package init(token: ChannelToken, issuedAt: UnixTime? = nil, isJWT: Bool = false, identity: String? = nil) {
        self.token = token
        self.issuedAt = issuedAt
        self.isJWT = isJWT
        self.identity = identity
    }

    /// The longest token accepted; JWTs with many grants are a few kilobytes.
    package static let maximumLength = 16 * 1024
    /// How far in the future `nbf` may be (clock skew between this machine and the issuer).
    package static let notBeforeLeeway: Duration = .seconds(60)

    /// Reads `text` (surrounding whitespace is ignored) as a token from `source`.
    ///
    /// - Throws: ``TokenError``: `.empty`, `.malformed` (too long, spaces or control characters inside,
    ///   a JWT whose parts are not base64url JSON), `.noIncomingCapability`, `.expired`, `.notYetValid`.
    ///   Messages name the source and never contain the text.
    package init(_ text: String, from source: String, now: UnixTime) throws(TokenError) {
        let value = Self.trimmed(text)
        guard !value.isEmpty else { throw TokenError(.empty, "\(source) gave an empty token") }
        guard value.utf8.count <= Self.maximumLength else {
            throw TokenError(
                .malformed,
                "\(source) gave \(value.utf8.count) bytes, more than a token can be (\(Self.maximumLength / 1024) KiB); it must give the token alone"
            )
        }
        if let odd = value.utf8.first(where: { $0 <= 0x20 || $0 >= 0x7F }) {
            let what =
                odd == 0x20 || odd == 0x09
                ? "spaces" : odd == 0x0A || odd == 0x0D ? "several lines" : odd < 0x20 || odd == 0x7F ? "control characters" : "non-ASCII characters"
            throw TokenError(.malformed, "\(source) gave text with \(what), which a token cannot contain; it must give the token alone")
        }
        guard JSONWebToken.hasJWTShape(value) else {
            self.init(token: ChannelToken(value: String(value)))
            return
        }

        let jwt: JSONWebToken
        let expiresAt: Double?
        let notBefore: Double?
        let issuedAt: Double?
        let capability: JSONWebToken.IncomingCapability
        do {
            jwt = try JSONWebToken(parsing: value)
            expiresAt = try jwt.expiresAt()
            notBefore = try jwt.notBefore()
            issuedAt = try jwt.issuedAt()
            capability = try jwt.incomingCapability()
        } catch {
            throw TokenError(.malformed, "the token from \(source) looks like a JWT (three parts separated by dots), but \(error)")
        }
        if case .missing(let why) = capability {
            throw TokenError(
                .noIncomingCapability,
                "the token from \(source) has no incoming capability: \(why), so the channel could not receive calls; have it issued with incoming calls allowed"
            )
        }
        let expiry = expiresAt.map { UnixTime(secondsSince1970: $0) }
        if let expiry, expiry <= now {
            throw TokenError(.expired, "the token from \(source) expired at \(expiry) (\(Self.span(now - expiry)) ago); the source gave an old token")
        }
        if let notBefore, UnixTime(secondsSince1970: notBefore) > now + Self.notBeforeLeeway {
            throw TokenError(
                .notYetValid,
                "the token from \(source) is not valid before \(UnixTime(secondsSince1970: notBefore)); is this machine's clock right?"
            )
        }
        self.init(
            token: ChannelToken(value: String(value), expiresAt: expiry),
            issuedAt: issuedAt.map { UnixTime(secondsSince1970: $0) },
            isJWT: true,
            identity: jwt.identity
        )
    }

    /// `text` without leading and trailing spaces, tabs and line ends (by bytes: "\r\n" is one
    /// `Character`, which a character set would miss).
    static func trimmed(_ text: String) -> Substring {
        let utf8 = text.utf8
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        guard let first = utf8.firstIndex(where: { !isSpace($0) }), let last = utf8.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return Substring(utf8[first...last])
    }

    /// "45 s", "12 min", "3 h 5 min": for messages.
    static func span(_ duration: Duration) -> String {
        let seconds = Int64(max(0, duration.seconds).rounded())
        if seconds < 120 { return "\(seconds) s" }
        let minutes = seconds / 60
        if minutes < 120 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }
}
