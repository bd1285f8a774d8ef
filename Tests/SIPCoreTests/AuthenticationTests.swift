import AttendantPluginAPI
import AttendantPluginTestKit
import Testing

@testable import SIPCore

@Suite struct AuthenticationTests {
    /// The test kit's hashes, which give what the daemon's do (HostHashingTests checks that).
    static let hashing = InMemoryHashing()

    // RFC 7616 section 3.9.1: the same request answered with MD5 and with SHA-256.
    @Test(arguments: [
        (DigestAlgorithm.md5, "8ca523f5e9506fed4657c9700eebdbec"),
        (DigestAlgorithm.sha256, "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
    ])
    func rfc7616Example(algorithm: DigestAlgorithm, expected: String) {
        let response = DigestAuthentication.response(
            algorithm: algorithm,
            username: "Mufasa",
            realm: "http-auth@example.org",
            password: "Circle of Life",
            nonce: "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
            clientNonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ",
            nonceCount: "00000001",
            qop: "auth",
            method: "GET",
            uri: "/dir/index.html",
            hashing: Self.hashing
        )
        #expect(response == expected)
    }

    // RFC 2617 section 3.5.
    @Test func rfc2617Example() {
        let response = DigestAuthentication.response(
            algorithm: .md5,
            username: "Mufasa",
            realm: "testrealm@host.com",
            password: "Circle Of Life",
            nonce: "dcd98b7102dd2f0e8b11d0f600bfb0c093",
            clientNonce: "0a4f113b",
            nonceCount: "00000001",
            qop: "auth",
            method: "GET",
            uri: "/dir/index.html",
            hashing: Self.hashing
        )
        #expect(response == "6629fae49393a05397450978507c4ef1")
    }

    @Test func answersASIPChallengeWithTheExactHeader() throws {
        let challenge = try SIPAuthChallenge(
            parsing:
                "Digest realm=\"example.com\", nonce=\"ea9c8e88df84f1cec4341ae6cbe5a359\", opaque=\"xyz\", qop=\"auth,auth-int\", algorithm=SHA-256"
        )
        let credentials = try DigestAuthentication.credentials(
            answering: challenge,
            method: .register,
            uri: try SIPURI(parsing: "sip:example.com"),
            credentials: DigestCredentials(username: "alice", password: "secret"),
            clientNonce: "0a4f113b0a4f113b",
            nonceCount: 1,
            hashing: Self.hashing
        )
        #expect(
            credentials.description
                == "Digest username=\"alice\", realm=\"example.com\", uri=\"sip:example.com\", algorithm=SHA-256, nonce=\"ea9c8e88df84f1cec4341ae6cbe5a359\", nc=00000001, cnonce=\"0a4f113b0a4f113b\", qop=auth, response=\"8f68a0baef9ecb2cb52b890bf6be4d9501ea3e4883b65fdd4337f72f8f8b3ee7\", opaque=\"xyz\""
        )
        // What a registrar reads back.
        let parsed = try SIPCredentials(parsing: credentials.description)
        #expect(parsed.response == "8f68a0baef9ecb2cb52b890bf6be4d9501ea3e4883b65fdd4337f72f8f8b3ee7")
        #expect(parsed.username == "alice")
    }

    @Test func otherDigestForms() throws {
        let nonce = "ea9c8e88df84f1cec4341ae6cbe5a359"
        let alice = DigestCredentials(username: "alice", password: "secret")
        let md5 = try DigestAuthentication.credentials(
            answering: SIPAuthChallenge(parsing: "Digest realm=\"example.com\", nonce=\"\(nonce)\", qop=\"auth\""),
            method: .register,
            uri: SIPURI(parsing: "sip:example.com"),
            credentials: alice,
            clientNonce: "0a4f113b0a4f113b",
            nonceCount: 2,
            hashing: Self.hashing
        )
        #expect(md5.response == "bd891bf40163a1c0b23d156ebb217aeb")
        #expect(md5.parameters["algorithm"] == "MD5")
        #expect(md5.parameters["nc"] == "00000002")
        let legacy = try DigestAuthentication.credentials(
            answering: SIPAuthChallenge(parsing: "Digest realm=\"example.com\", nonce=\"\(nonce)\""),
            method: .register,
            uri: SIPURI(parsing: "sip:example.com"),
            credentials: alice,
            clientNonce: "unused",
            nonceCount: 1,
            hashing: Self.hashing
        )
        #expect(legacy.response == "a28846728cbebbb34e6b94e47195c5af")
        #expect(!legacy.parameters.contains("qop"))
        #expect(!legacy.parameters.contains("cnonce"))
        let sessionIntegrity = try DigestAuthentication.credentials(
            answering: SIPAuthChallenge(parsing: "Digest realm=\"example.com\", nonce=\"\(nonce)\", qop=\"auth-int\", algorithm=SHA-256-sess"),
            method: .invite,
            uri: SIPURI(parsing: "sip:bob@example.com"),
            body: Array("v=0\r\n".utf8),
            credentials: alice,
            clientNonce: "0a4f113b0a4f113b",
            nonceCount: 1,
            hashing: Self.hashing
        )
        #expect(sessionIntegrity.response == "62c43220c0bd4ccd79806f7752c659ecc9276a8b0f607d075385b89cb0b927b2")
        #expect(sessionIntegrity.parameters["qop"] == "auth-int")
    }

    @Test func refusesChallengesItCannotAnswer() throws {
        let alice = DigestCredentials(username: "alice", password: "secret")
        let uri = try SIPURI(parsing: "sip:example.com")
        let cases: [(String, SIPAuthenticationError.Code)] = [
            ("Digest realm=\"r\", nonce=\"n\", algorithm=SHA-512-256", .unsupportedAlgorithm),
            ("Digest realm=\"r\", nonce=\"n\", qop=\"auth-conf\"", .unsupportedQOP),
            ("Digest realm=\"r\"", .malformedChallenge),
            ("Basic realm=\"r\"", .unsupportedScheme),
        ]
        for (text, code) in cases {
            let challenge = try SIPAuthChallenge(parsing: text)
            #expect {
                _ = try DigestAuthentication.credentials(
                    answering: challenge,
                    method: .register,
                    uri: uri,
                    credentials: alice,
                    clientNonce: "c",
                    nonceCount: 1,
                    hashing: Self.hashing
                )
            } throws: { ($0 as? SIPAuthenticationError)?.code == code }
        }
    }

    @Test func bearerCredentials() throws {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"
        #expect(try SIPCredentials.bearer(validating: jwt).description == "Bearer \(jwt)")
        for bad in ["", "has space", "line\r\nbreak", "a=b", "=abc", "quote\""] {
            #expect(throws: SIPAuthenticationError.self) { try SIPCredentials.bearer(validating: bad) }
        }
        #expect(try SIPCredentials.bearer(validating: "abc==").token == "abc==")
    }

    // Values from Python's hmac and base64 modules, with the secret of Kamailio's auth_ephemeral example.
    @Test func ephemeralCredentialsAsKamailioChecksThem() {
        let sha1 = EphemeralCredentials.make(user: "foo@bar.com", secret: "kamailio_rules", expiry: 1_234_567_890, hashing: Self.hashing)
        #expect(sha1.username == "1234567890:foo@bar.com")
        #expect(sha1.password == "SKRoqQ0atcnJqdEqMBKwYlKaBMM=")
        let sha256 = EphemeralCredentials.make(
            user: "foo@bar.com",
            secret: "kamailio_rules",
            expiry: 1_234_567_890,
            hash: .sha256,
            hashing: Self.hashing
        )
        #expect(sha256.password == "XqW0XAlLp8IgsBjRPv7dKaZok/1LKKB2DU7k32iitl0=")
        #expect(EphemeralCredentials.make(user: "", secret: "s", expiry: 42, hashing: Self.hashing).username == "42")
        #expect(!sha1.description.contains(sha1.password))
    }

    // RFC 4648 section 10.
    @Test func base64TestVectors() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (input, output) in vectors {
            #expect(Base64.encode(Array(input.utf8)) == output)
        }
        #expect(Base64.encode([0xFF, 0xFE, 0xFD]) == "//79")
    }
}

/// The channel's token as REGISTER credentials: what each kind makes of it, and the two ways of having no
/// token told apart (a configuration to fix, or a sign-in to wait for).
@Suite struct SIPCredentialSourceTests {
    static let now = UnixTime(secondsSince1970: 1_234_564_290)
    static let token = ChannelTokenState.available(ChannelToken(value: "kamailio_rules", expiresAt: nil))

    static func credentials(
        _ kind: SIPCredentialSource.Kind,
        _ state: ChannelTokenState = Self.token
    ) throws(ChannelError) -> (RegistrationCredentials, Int64?) {
        let source = SIPCredentialSource(kind: kind, username: "foo@bar.com", ephemeralLifetime: .seconds(3600))
        let made = try source.credentials(for: state, now: Self.now, hashing: AuthenticationTests.hashing, prefix: "sip-voice")
        return (made.credentials, made.expiry)
    }

    @Test func eachKindMakesItsCredentialsFromTheToken() throws {
        #expect(try Self.credentials(.bearer) == (.bearer("kamailio_rules"), nil))
        #expect(try Self.credentials(.digest) == (.digest(DigestCredentials(username: "foo@bar.com", password: "kamailio_rules")), nil))
        // Valid for the lifetime from now: the expiry of Kamailio's example, with its password.
        let (ephemeral, expiry) = try Self.credentials(.ephemeral)
        #expect(expiry == 1_234_567_890)
        #expect(ephemeral == .digest(DigestCredentials(username: "1234567890:foo@bar.com", password: "SKRoqQ0atcnJqdEqMBKwYlKaBMM=")))
        #expect(try Self.credentials(.none, .noSource) == (.none, nil), "no credentials need no token")
    }

    @Test func noTokenSourceIsAConfigurationErrorAndNoValidTokenYetASignInToWaitFor() {
        let missing = #expect(throws: ChannelError.self) { try Self.credentials(.digest, .noSource) }
        #expect(missing?.code == .configuration)
        #expect(missing?.message.contains("set token-command, token-url, token-file or token-credential") == true)
        let expired = #expect(throws: ChannelError.self) { try Self.credentials(.bearer, .unavailable(reason: "the token expired at 12:00")) }
        #expect(expired?.code == .authentication)
        #expect(expired?.message.contains("the token expired at 12:00; the channel listens again as soon as") == true)
    }
}
