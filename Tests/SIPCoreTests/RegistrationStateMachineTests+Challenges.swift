import AttendantPluginKit
import AttendantPluginTestKit
import SIPCore
import TestSupport
import Testing

/// Challenges: Digest (RFC 7616, RFC 8760), Proxy-Authenticate, and Bearer tokens (RFC 8898).
extension RegistrationStateMachineTests {
    @Test func answersADigestChallengeWithTheTopmostSupportedAlgorithm() throws {
        var driver = try RegistrationDriver(credentials: Self.alice)
        driver.start()
        #expect(driver.lastRequest.authorization == nil)
        driver.respond(401, Self.digestChallenge)
        #expect(driver.sent.count == 2)
        let authorization = try #require(driver.lastRequest.authorization)
        #expect(authorization.parameters["algorithm"] == "SHA-256")
        #expect(authorization.parameters["nc"] == "00000001")
        #expect(authorization.parameters["uri"] == "sip:example.com")
        let cnonce = try #require(authorization.parameters["cnonce"])
        let expected = DigestAuthentication.response(
            algorithm: .sha256,
            username: "alice",
            realm: "example.com",
            password: "secret",
            nonce: "n1",
            clientNonce: cnonce,
            nonceCount: "00000001",
            qop: "auth",
            method: "REGISTER",
            uri: "sip:example.com",
            hashing: InMemoryHashing()
        )
        #expect(authorization.response == expected)
        #expect(driver.lastRequest.cseqNumber == 2)
        try driver.respondOK()
        #expect(driver.machine.phase == .registered)
        // The refresh carries the cached answer with the next nonce count: no extra round trip.
        driver.refresh()
        let again = try #require(driver.lastRequest.authorization)
        #expect(again.parameters["nc"] == "00000002")
        #expect(again.nonce == "n1")
    }

    @Test func aSecondChallengeForFreshCredentialsIsAnAuthenticationFailure() throws {
        var driver = try RegistrationDriver(credentials: Self.alice)
        driver.start()
        driver.respond(401, Self.digestChallenge)
        driver.respond(401, [(.wwwAuthenticate, "Digest realm=\"example.com\", nonce=\"n2\", qop=\"auth\", algorithm=SHA-256")])
        #expect(driver.sent.count == 2)
        #expect(driver.lastFailure?.code == .authentication)
        #expect(driver.lastFailure?.statusCode == 401)
        #expect(driver.lastFailure?.message == "the registrar refused the digest user alice (401 again after answering its challenge)")
        #expect(driver.timers.isEmpty)
    }

    @Test func aStaleNonceIsAnsweredOnceMore() throws {
        var driver = try RegistrationDriver(credentials: Self.alice)
        driver.start()
        driver.respond(401, Self.digestChallenge)
        driver.respond(401, [(.wwwAuthenticate, "Digest realm=\"example.com\", nonce=\"n2\", qop=\"auth\", algorithm=SHA-256, stale=true")])
        #expect(driver.sent.count == 3)
        #expect(driver.lastRequest.authorization?.nonce == "n2")
        // The same stale nonce again is not answered twice.
        driver.respond(401, [(.wwwAuthenticate, "Digest realm=\"example.com\", nonce=\"n2\", qop=\"auth\", algorithm=SHA-256, stale=true")])
        #expect(driver.lastFailure?.code == .authentication)
    }

    @Test func aRefreshWithACachedNonceMayBeChallengedOnce() throws {
        var driver = try RegistrationDriver(credentials: Self.alice)
        driver.start()
        driver.respond(401, Self.digestChallenge)
        try driver.respondOK()
        driver.advance(by: .seconds(540))
        #expect(driver.lastRequest.authorization?.nonce == "n1")
        driver.respond(401, [(.wwwAuthenticate, "Digest realm=\"example.com\", nonce=\"n3\", qop=\"auth\", algorithm=MD5")])
        #expect(driver.lastRequest.authorization?.nonce == "n3")
        #expect(driver.lastRequest.authorization?.parameters["algorithm"] == "MD5")
        try driver.respondOK()
        #expect(driver.machine.phase == .registered)
        #expect(driver.reports.count == 2)
    }

    @Test func answersProxyChallengesWithProxyAuthorization() throws {
        var driver = try RegistrationDriver(credentials: Self.alice)
        driver.start()
        driver.respond(407, [(.proxyAuthenticate, "Digest realm=\"proxy\", nonce=\"p1\"")])
        let proxy = try #require(try driver.lastRequest.headers.proxyAuthorization.first)
        #expect(proxy.realm == "proxy")
        #expect(proxy.parameters["qop"] == nil)
        driver.respond(401, Self.digestChallenge)
        #expect(try driver.lastRequest.headers.proxyAuthorization.count == 1)
        #expect(try driver.lastRequest.headers.authorization.count == 1)
        try driver.respondOK()
        #expect(driver.machine.phase == .registered)
    }

    @Test func bearerTokensAreSentWhenChallengedAndReplacedWhenTheTokenChanges() throws {
        var driver = try RegistrationDriver(credentials: .bearer("token.one"))
        driver.start()
        driver.respond(401, [(.wwwAuthenticate, "Bearer realm=\"example.com\", scope=\"sip\"")])
        #expect(driver.lastRequest.headers[.authorization] == "Bearer token.one")
        try driver.respondOK()
        #expect(driver.machine.phase == .registered)
        driver.credentialsChanged(.bearer("token.two"))
        #expect(driver.sent.count == 3, "a new token re-registers at once")
        #expect(driver.lastRequest.headers[.authorization] == "Bearer token.two")
        #expect(driver.machine.phase == .registered, "no listening gap while the new token is presented")
        try driver.respondOK()
        #expect(driver.timerKinds == [.refresh, .expiry])
    }

    @Test func aRejectedBearerTokenFailsAsAuthenticationWithoutShowingIt() throws {
        var driver = try RegistrationDriver(credentials: .bearer("secret.token"))
        driver.start()
        driver.respond(401, [(.wwwAuthenticate, "Bearer realm=\"example.com\"")])
        driver.respond(401, [(.wwwAuthenticate, "Bearer realm=\"example.com\", error=\"invalid_token\"")])
        let failure = try #require(driver.lastFailure)
        #expect(failure.code == .authentication)
        #expect(failure.message == "the registrar refused the bearer token (401 again after answering its challenge): invalid_token")
        #expect(!failure.description.contains("secret.token"))
        // A renewed token and a new start succeed.
        driver.credentialsChanged(.bearer("fresh.token"))
        #expect(driver.sent.count == 2, "not registered: the supervisor decides when to start again")
        driver.start()
        #expect(driver.lastRequest.headers[.authorization] == "Bearer fresh.token", "the cached challenge is answered at once")
        try driver.respondOK()
        #expect(driver.machine.phase == .registered)
    }

    @Test func aGarbageTokenIsRefusedBeforeItReachesTheWire() throws {
        var driver = try RegistrationDriver(credentials: .bearer("not a\r\ntoken"))
        driver.start()
        driver.respond(401, [(.wwwAuthenticate, "Bearer realm=\"example.com\"")])
        #expect(driver.sent.count == 1)
        let failure = try #require(driver.lastFailure)
        #expect(failure.code == .authentication)
        #expect(failure.message == "the bearer token cannot be sent: the bearer token contains characters a header cannot carry")
        #expect(driver.timers.isEmpty)
    }

    @Test func duringARefreshANewTokenIsSentAfterTheTransaction() throws {
        var driver = try RegistrationDriver(credentials: .bearer("one"))
        driver.start()
        driver.respond(401, [(.wwwAuthenticate, "Bearer realm=\"r\"")])
        try driver.respondOK()
        driver.refresh()
        driver.credentialsChanged(.bearer("two"))
        #expect(driver.sent.count == 3)
        try driver.respondOK()
        #expect(driver.sent.count == 4)
        #expect(driver.lastRequest.headers[.authorization] == "Bearer two")
    }

    @Test(arguments: [
        (RegistrationCredentials.bearer("t"), "Digest realm=\"r\", nonce=\"n\"", "the registrar asks for Digest and the channel has a bearer token"),
        (
            .digest(DigestCredentials(username: "u", password: "p")), "Bearer realm=\"r\"",
            "the registrar asks for Bearer, none of which this channel can answer with a password (Digest MD5 or SHA-256)"
        ),
        (
            .digest(DigestCredentials(username: "u", password: "p")), "Digest realm=\"r\", nonce=\"n\", algorithm=SHA-512-256",
            "the registrar asks for Digest, none of which this channel can answer with a password (Digest MD5 or SHA-256)"
        ),
        (.none, "Digest realm=\"r\", nonce=\"n\"", "the registrar asks for credentials (Digest) and the channel has none"),
    ])
    func challengesTheCredentialsCannotAnswerAreConfigurationFailures(credentials: RegistrationCredentials, challenge: String, message: String) throws
    {
        var driver = try RegistrationDriver(credentials: credentials)
        driver.start()
        driver.respond(401, [(.wwwAuthenticate, challenge)])
        #expect(driver.lastFailure == RegistrationError(.configuration, message, statusCode: 401))
    }

    @Test func aMalformedChallengeIsTransient() throws {
        var driver = try RegistrationDriver(credentials: Self.alice)
        driver.start()
        driver.respond(401, [(.wwwAuthenticate, "Digest realm=\"unterminated")])
        #expect(driver.lastFailure?.code == .transient)
    }
}

extension String {
    /// `n` as eight hex digits, as a Digest nonce count.
    init(nonceCount n: Int) {
        let hex = String(n, radix: 16)
        self = String(repeating: "0", count: 8 - hex.count) + hex
    }
}
