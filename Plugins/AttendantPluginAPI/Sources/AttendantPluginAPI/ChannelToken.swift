// MARK: - Host API: tokens and time

/// A capability or access token the host holds for a channel.
///
/// Its ``value`` is secret: ``description`` never shows it, and channels must not log it.
public struct ChannelToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The token itself (a JWT, an opaque bearer token, a password).
    public var value: String
    /// When the token stops being valid, if known.
    public var expiresAt: UnixTime?

    public init(value: String, expiresAt: UnixTime? = nil) {
        self.value = value
        self.expiresAt = expiresAt
    }

    public var description: String {
        if let expiresAt { "token (redacted, expires \(expiresAt))" } else { "token (redacted)" }
    }

    public var debugDescription: String { self.description }
}

/// What the host knows about a channel's token (since API 1.3); see ``ChannelHost/tokenState()``.
///
/// New cases may come in later minor versions, so a `switch` needs `@unknown default`.
public enum ChannelTokenState: Sendable, Hashable, CustomStringConvertible {
    /// A valid token.
    case available(ChannelToken)
    /// The channel's configuration names no token source.
    case noSource
    /// A token source is configured but has no valid token now: the token expired, the source failed or
    /// has not answered yet. `reason` says which, for the user, and never contains token material.
    case unavailable(reason: String)

    /// The valid token, if there is one.
    public var token: ChannelToken? {
        if case .available(let token) = self { token } else { nil }
    }

    public var description: String {
        switch self {
        case .available(let token): token.description
        case .noSource: "no token source"
        case .unavailable(let reason): "no valid token: \(reason)"
        }
    }
}

/// A point in wall-clock time: seconds since 1970-01-01T00:00:00Z.
public struct UnixTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var secondsSince1970: Double

    public init(secondsSince1970: Double) {
        self.secondsSince1970 = secondsSince1970
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.secondsSince1970 < rhs.secondsSince1970 }

    public static func + (lhs: Self, rhs: Duration) -> Self {
        UnixTime(secondsSince1970: lhs.secondsSince1970 + rhs.seconds)
    }

    public static func - (lhs: Self, rhs: Self) -> Duration {
        .milliseconds(Int64(((lhs.secondsSince1970 - rhs.secondsSince1970) * 1000).rounded()))
    }

    /// ISO 8601 in UTC, such as `2026-11-22T09:30:00Z`.
    public var description: String {
        let whole = Int64(self.secondsSince1970.rounded(.down))
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let secondOfDay = whole - days * 86_400
        let (year, month, day) = Self.civilDate(daysSince1970: days)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }

    /// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian calendar).
    private static func civilDate(daysSince1970 z: Int64) -> (Int64, Int64, Int64) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    public var seconds: Double {
        let (seconds, attoseconds) = self.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
