import Crypto
import Foundation
import Synchronization

/// Authenticated sessions and JWTs: the OAuth code exchange, refresh and revoke of the SDK's `Urls.kt`
/// (`api/v2/webdeployments/token/oauthcodegrantjwtexchange`, `…/token/refresh`, `…/token/revoke`), with
/// the bodies of `AuthJwtRequest.kt` (`{deploymentId, oauth: {code, redirectUri, codeVerifier}}`),
/// `AuthJwt.kt` (`{jwt, refreshToken}`) and `RefreshToken.kt` (`{refreshToken}`); and getJwt's JWTs, which
/// authorise the history API for a guest (`JwtHandler.kt`, `WebMessagingApi.getMessages`).
extension GenesysMessagingServer {
    /// A single-use OAuth code for `subject`, for the code exchange.
    package func makeOAuthCode(subject: String) -> String {
        let code = SimGenesysTime.id()
        self.state.withLock { $0.oauthCodes[code] = subject }
        return code
    }

    /// Signs an HS256 JWT (`sub`, `iat`, `exp`, `jti`, `deploymentId`) and remembers what it stands for.
    func issueJWT(subject: String?, token: String?) -> (jwt: String, expiresAt: Int) {
        let now = self.nowSeconds
        let expiresAt = now + self.settings.jwtLifetimeSeconds
        var claims: [String: GMSJSON] = [
            "iat": .int(now), "exp": .int(expiresAt), "jti": .string(SimGenesysTime.id()), "deploymentId": .string(self.settings.deploymentId),
        ]
        if let subject { claims["sub"] = .string(subject) }
        let signingInput = Base64URL.encode(Array(SimulatorToken.header.utf8)) + "." + Base64URL.encode(GMSJSON.object(claims).encoded)
        let mac = HMAC<SHA256>.authenticationCode(for: Array(signingInput.utf8), using: SymmetricKey(data: self.signingKey))
        let jwt = signingInput + "." + Base64URL.encode(Array(mac))
        self.state.withLock { $0.jwts[jwt] = IssuedJWT(subject: subject, token: token, expiresAt: expiresAt) }
        return (jwt, expiresAt)
    }

    /// The JWT's record if the service issued it and it is neither revoked nor expired.
    func validJWT(_ jwt: String) -> IssuedJWT? {
        guard let issued = self.state.withLock({ $0.jwts[jwt] }), !issued.revoked, self.nowSeconds < issued.expiresAt else { return nil }
        return issued
    }

    /// The user of a valid JWT from the code exchange (not a guest's getJwt JWT).
    func subject(ofJWT jwt: String) -> String? { self.validJWT(jwt)?.subject }

    /// `POST …/token/oauthcodegrantjwtexchange`: 200 `{jwt, refreshToken}`, or 400 for an unknown code or
    /// another deployment (the SDK's Authorize test engine answers respondBadRequest).
    func codeExchangeReply(_ request: HTTPRouteRequest) -> HTTPReply {
        guard request.method == "POST" else { return .error(405, "\(request.method) is not allowed on \(request.path)") }
        self.state.withLock { $0.codeExchanges += 1 }
        guard self.settings.authEnabled else { return Self.apiError(400, "bad.request", "Authentication is not enabled for this deployment") }
        guard let body = GMSJSON.parse(request.body), let code = body["oauth"]?["code"]?.string,
            body["deploymentId"]?.string == self.settings.deploymentId
        else {
            return Self.apiError(400, "bad.request", "the body is {\"deploymentId\": this deployment, \"oauth\": {\"code\", …}}")
        }
        let subject: String? = self.state.withLock { state in state.oauthCodes.removeValue(forKey: code) } ?? self.settings.oauthCodes[code]
        guard let subject else { return Self.apiError(400, "bad.request", "the authorization code is not valid") }
        let refreshToken = SimGenesysTime.id()
        self.state.withLock { $0.refreshTokens[refreshToken] = subject }
        return .encoded(
            GMSJSON.object(["jwt": .string(self.issueJWT(subject: subject, token: nil).jwt), "refreshToken": .string(refreshToken)]).encoded
        )
    }

    /// `POST …/token/refresh` `{refreshToken}`: 200 `{jwt}` (the SDK's RefreshToken engine answers
    /// `AuthJwt(jwt, null)`), 400 for an unknown refresh token.
    func refreshReply(_ request: HTTPRouteRequest) -> HTTPReply {
        guard request.method == "POST" else { return .error(405, "\(request.method) is not allowed on \(request.path)") }
        self.state.withLock { $0.refreshes += 1 }
        guard let refreshToken = GMSJSON.parse(request.body)?["refreshToken"]?.string,
            let subject = self.state.withLock({ $0.refreshTokens[refreshToken] })
        else {
            return Self.apiError(400, "bad.request", "the refresh token is not valid")
        }
        return .encoded(GMSJSON.object(["jwt": .string(self.issueJWT(subject: subject, token: nil).jwt)]).encoded)
    }

    /// `DELETE …/token/revoke` with `Authorization: bearer JWT` (the SDK's Logout engine): the JWT and its
    /// user's refresh tokens stop working, and the user's sockets get LogoutEvent. 401 for a JWT the
    /// service does not accept.
    func revokeReply(_ request: HTTPRouteRequest) -> HTTPReply {
        guard request.method == "DELETE" else { return .error(405, "\(request.method) is not allowed on \(request.path)") }
        guard let jwt = Self.bearer(request), let subject = self.subject(ofJWT: jwt) else {
            return Self.apiError(401, "bad.credentials", "Invalid login credentials.")
        }
        let tokens: [String] = self.state.withLock { state in
            state.revocations += 1
            for (key, value) in state.jwts where value.subject == subject { state.jwts[key]?.revoked = true }
            state.refreshTokens = state.refreshTokens.filter { $0.value != subject }
            return state.sessions.values.filter { $0.subject == subject }.map(\.token)
        }
        for token in tokens {
            for socket in self.connections(of: token) { socket.send(.message("LogoutEvent", [:])) }
        }
        return HTTPReply(status: 200, body: "")
    }

    /// The JWT of an `Authorization: bearer …` header (the SDK writes `bearer` in lower case; the scheme is
    /// case-insensitive, RFC 7235 section 2.1).
    static func bearer(_ request: HTTPRouteRequest) -> String? {
        guard let value = request.headers["authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// A Genesys Cloud API error body `{message, code, status}` (the shape of `PushErrorResponse.kt`).
    static func apiError(_ status: Int, _ code: String, _ message: String) -> HTTPReply {
        GMSJSON.object(["message": .string(message), "code": .string(code), "status": .int(status)]).reply(status: status)
    }

    /// A stable signature for presigned URLs (HMAC of the id with the simulator's key).
    static func signature(_ id: String, _ key: [UInt8]) -> String {
        Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: Array(id.utf8), using: SymmetricKey(data: key))))
    }
}
