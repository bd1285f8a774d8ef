package import AttendantPluginAPI
import AttendantPluginKit

/// An authenticated session's credentials (SDK `auth/AuthHandlerImpl.kt`): the refresh token (kept in the
/// channel's secrets), the JWT (in memory only) and the reconfigurations a refused JWT has cost.
struct GenesysAuth: Sendable {
    var refreshToken: String?
    var jwt: String?
    /// The JWT's `exp` claim, epoch seconds, when it has one.
    var expires: Int?
    /// An exchange or a refresh under way.
    var asking = false
    /// Configurations refused with an HTTP-class error since the last success (SDK `MAX_RECONFIGURE_ATTEMPTS`: 3).
    var refusals = 0
}

// Authenticated sessions: the channel's token is an OAuth authorization code, exchanged once for a JWT and
// a refresh token (`POST …/token/oauthcodegrantjwtexchange`); the JWT configures the socket
// (`configureAuthenticatedSession`) and is refreshed (`POST …/token/refresh`) when it is about to expire
// and when a configuration is refused with it, at most 3 times in a row (SDK `MessagingClientImpl
// .handleConfigureSessionErrorResponse`, `MAX_RECONFIGURE_ATTEMPTS`).
extension GenesysChatSession {
    /// Where the refresh token is kept in the channel's secrets.
    package static let refreshTokenSecret = "refresh-token"
    static let maximumReconfigureAttempts = 3
    /// A JWT is refreshed when it expires within this long.
    static let jwtMargin = 60

    var isAuthenticated: Bool { self.auth != nil }

    /// Opens the socket, once an authenticated session has a JWT that outlives the next minute.
    mutating func connect(now: UnixTime) -> [Action] {
        guard var auth = self.auth else { return self.machineStep(now: now) { $0.start() } }
        if let jwt = auth.jwt, (auth.expires ?? Int.max) - Self.jwtMargin > Int(now.secondsSince1970) {
            self.machine.authenticatedJWT = jwt
            return self.machineStep(now: now) { $0.start() }
        }
        guard !auth.asking else { return [] }
        auth.asking = true
        self.auth = auth
        if let refreshToken = auth.refreshToken { return [.work(.refreshJWT(refreshToken))] }
        return [.work(.exchangeCode)]
    }

    /// The code exchange or the refresh answered: the JWT configures the socket; a refresh token that
    /// came is kept. A refused refresh falls back on the code; a refused code is the sign-in's to renew.
    package mutating func authAnswered(_ outcome: Result<GenesysAuthBodies.AuthJwt, ChannelError>, refreshed: Bool, now: UnixTime) -> [Action] {
        guard var auth = self.auth else { return [] }
        auth.asking = false
        switch outcome {
        case .success(let answer):
            auth.jwt = answer.jwt
            auth.expires = Self.expiry(ofJWT: answer.jwt)
            var actions: [Action] = [
                .log(.info, "\(self.prefix): \(refreshed ? "refreshed the JWT" : "exchanged the OAuth code for a JWT") at \(self.server)")
            ]
            if let refreshToken = answer.refreshToken, refreshToken != auth.refreshToken {
                auth.refreshToken = refreshToken
                actions.append(Self.keepRefreshToken(refreshToken))
            }
            self.auth = auth
            guard self.listening, !self.asleep else { return actions }
            return actions + self.connect(now: now)
        case .failure(let error) where refreshed:
            // The refresh token is no longer good: forget it, and exchange the sign-in's code instead.
            auth.refreshToken = nil
            auth.jwt = nil
            self.auth = auth
            let log = Action.log(.notice, "\(self.prefix): the JWT's refresh failed (\(error.message)); exchanging the OAuth code again")
            return [log, Self.keepRefreshToken(nil)] + (self.listening && !self.asleep ? self.connect(now: now) : [])
        case .failure(let error):
            self.auth = auth
            self.lastError = error.message
            return [.log(.warning, error.message)] + self.failListen(error)
        }
    }

    /// A configuration refused with an HTTP-class code: an authenticated session refreshes its JWT and
    /// tries again, at most 3 times in a row; true if it does.
    mutating func retryWithFreshJWT(_ failure: GenesysSessionFailure, now: UnixTime) -> [Action]? {
        guard var auth = self.auth, case .configurationRefused(let code) = failure, code.isHTTPClass,
            auth.refusals < Self.maximumReconfigureAttempts
        else { return nil }
        auth.refusals += 1
        auth.jwt = nil
        self.auth = auth
        self.machine.authenticatedJWT = nil
        let log = Action.log(
            .notice,
            "\(self.prefix): \(self.server) refused the session (\(code)); refreshing the JWT (attempt \(auth.refusals) of 3)"
        )
        return [log] + self.connect(now: now)
    }

    static func keepRefreshToken(_ value: String?) -> Action {
        .write(
            StoreWrite(
                .secrets,
                key: Self.refreshTokenSecret,
                value: value,
                what: "the web messaging refresh token",
                ifLost: "the next start exchanges a new OAuth code"
            )
        )
    }

    /// The `exp` claim of a JWT (epoch seconds), read without checking its signature: only to know when
    /// to refresh it.
    static func expiry(ofJWT jwt: String) -> Int? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Self.base64URL(parts[1]), let claims = try? JSONValue.parse(payload) else { return nil }
        if case .number(let exp)? = claims["exp"] { return Int(exp) }
        return nil
    }

    static func base64URL(_ text: Substring) -> [UInt8]? {
        var bits = 0
        var count = 0
        var bytes: [UInt8] = []
        for character in text.utf8 {
            let value: Int
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = Int(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = Int(character - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int(character - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "-"), UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "_"), UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="): continue
            default: return nil
            }
            bits = bits << 6 | value
            count += 6
            if count >= 8 {
                count -= 8
                bytes.append(UInt8(truncatingIfNeeded: bits >> count))
                bits &= (1 << count) - 1
            }
        }
        return bytes
    }
}
