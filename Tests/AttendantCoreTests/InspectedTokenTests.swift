import AttendantPluginAPI
import AttendantPluginKit
import Testing

@testable import AttendantCore

/// Reading tokens without their key: JWT times, Twilio capabilities, opaque tokens, and every way a
/// token can be garbage, each with its message (which never contains the token).
@Suite struct InspectedTokenTests {
    let now = UnixTime(secondsSince1970: 1_800_000_000)
    let source = "token command /usr/local/bin/get-token"

    func inspect(_ text: String) throws(TokenError) -> InspectedToken {
        try InspectedToken(text, from: self.source, now: self.now)
    }

    func failure(_ text: String) -> TokenError? {
        do {
            _ = try self.inspect(text)
            return nil
        } catch {
            let token = InspectedToken.trimmed(text)
            if !token.isEmpty { #expect(!error.message.contains(token), "the message shows the token") }
            return error
        }
    }

    @Test func capabilityTokenWithIncomingScope() throws {
        let jwt = TestJWT.capability(issuedAt: 1_799_999_000, lifetime: 3600)
        let inspected = try self.inspect(jwt + "\n")
        #expect(inspected.token.value == jwt, "surrounding whitespace is dropped")
        #expect(inspected.token.expiresAt == UnixTime(secondsSince1970: 1_800_002_600))
        #expect(inspected.issuedAt == UnixTime(secondsSince1970: 1_799_999_000))
        #expect(inspected.isJWT)
        #expect(inspected.identity == "alice")
    }

    @Test func accessTokenWithVoiceIncomingGrant() throws {
        let jwt = TestJWT.make(
            header: #"{"alg":"HS256","typ":"JWT","cty":"twilio-fpa;v=1"}"#,
            claims:
                #"{"jti":"SK1","iss":"SK1","sub":"AC1","exp":1800003600.5,"nbf":1799999990,"grants":{"identity":"bob","voice":{"incoming":{"allow":true},"outgoing":{"application_sid":"AP1"}}}}"#
        )
        let inspected = try self.inspect(jwt)
        #expect(inspected.token.expiresAt == UnixTime(secondsSince1970: 1_800_003_600.5))
        #expect(inspected.issuedAt == nil)
        #expect(inspected.identity == "bob")
    }

    @Test func tokensWithoutIncomingCapabilityAreRefusedSayingSo() {
        let outgoingOnly = TestJWT.make(
            claims: #"{"exp":1800003600,"scope":"scope:client:outgoing?appSid=AP1&clientName=alice scope:stream:subscribe?path=/x"}"#
        )
        #expect(
            self.failure(outgoingOnly)
                == TokenError(
                    .noIncomingCapability,
                    "the token from token command /usr/local/bin/get-token has no incoming capability: its scope has no scope:client:incoming (only scope:client:outgoing, scope:stream:subscribe), so the channel could not receive calls; have it issued with incoming calls allowed"
                )
        )
        let emptyScope = TestJWT.make(claims: #"{"exp":1800003600,"scope":""}"#)
        #expect(self.failure(emptyScope)?.message.contains("has no incoming capability: its scope is empty") == true)
        let refused = TestJWT.make(claims: #"{"exp":1800003600,"grants":{"identity":"bob","voice":{"incoming":{"allow":false}}}}"#)
        #expect(
            self.failure(refused)?.message
                == "the token from token command /usr/local/bin/get-token has no incoming capability: its voice grant does not allow incoming calls (grants.voice.incoming.allow is false), so the channel could not receive calls; have it issued with incoming calls allowed"
        )
        let absent = TestJWT.make(claims: #"{"exp":1800003600,"grants":{"identity":"bob","voice":{"outgoing":{"application_sid":"AP1"}}}}"#)
        #expect(self.failure(absent)?.message.contains("(it has no grants.voice.incoming.allow)") == true)
        #expect(self.failure(absent)?.code == .noIncomingCapability)
        #expect(self.failure(absent)?.channelErrorCode == .configuration, "retrying cannot help: the supervisor stops")
    }

    @Test func tokensThatSayNothingAboutCallsAreAccepted() throws {
        // A chat access token: grants without a voice grant.
        let chat = TestJWT.make(claims: #"{"exp":1800003600,"grants":{"identity":"carol","chat":{"service_sid":"IS1"}}}"#)
        #expect(try self.inspect(chat).token.expiresAt == UnixTime(secondsSince1970: 1_800_003_600))
        let plain = TestJWT.make(claims: #"{"sub":"user","exp":1800000500}"#)
        #expect(try self.inspect(plain).identity == nil)
    }

    @Test func opaqueTokensHaveAnUnknownLifetime() throws {
        for opaque in ["d41d8cd98f00b204e9800998ecf8427e", "ya29.a0AfH6SMBx", "a.b.c.d.e"] {
            let inspected = try self.inspect(opaque)
            #expect(inspected.token == ChannelToken(value: opaque), "\(opaque)")
            #expect(!inspected.isJWT)
        }
        let noExpiry = try self.inspect(TestJWT.make(claims: #"{"sub":"x"}"#))
        #expect(noExpiry.isJWT && noExpiry.token.expiresAt == nil)
    }

    @Test func garbageThatLooksLikeAJWTIsATypedError() {
        let prefix = "the token from token command /usr/local/bin/get-token looks like a JWT (three parts separated by dots), but "
        let header = TestJWT.base64url(#"{"alg":"HS256"}"#)
        let cases: [(String, String)] = [
            ("\(header).!!!.sig", "its payload is not base64url"),
            ("\(header).\(TestJWT.base64url("not json")).sig", "its payload is not JSON (unexpected character at byte 0)"),
            ("\(header).\(TestJWT.base64url("[1,2]")).sig", "its payload is an array, not a JSON object"),
            ("\(header).\(TestJWT.base64url(#"{"exp":"tomorrow"}"#)).sig", "its \"exp\" claim is a string, not a time in seconds"),
            ("\(header).\(TestJWT.base64url(#"{"iat":1e300}"#)).sig", "its \"iat\" claim is a number, not a time in seconds"),
            ("\(header).\(TestJWT.base64url(#"{"scope":["scope:client:incoming"]}"#)).sig", "its \"scope\" claim is an array, not a string"),
            (
                "\(header).\(TestJWT.base64url(#"{"grants":{"voice":{"incoming":{"allow":"yes"}}}}"#)).sig",
                "its grants.voice.incoming.allow is a string, not true or false"
            ),
            ("\(header).\(TestJWT.base64url(#"{"a":1,"a":2}"#)).sig", "its payload is not JSON (duplicate member name at byte 7)"),
            (".\(TestJWT.base64url("{}")).sig", "its header is empty"),
            ("\(TestJWT.base64url(#"{"typ":"JWT"}"#)).\(TestJWT.base64url("{}")).sig", "its header has no \"alg\" string"),
            ("\(header).\(TestJWT.base64url("{}")).si+g", "its signature is not base64url"),
            ("\(header).e3=0.sig", "its payload is not base64url"),
        ]
        for (token, problem) in cases {
            let error = self.failure(token)
            #expect(error?.code == .malformed, "\(token)")
            #expect(error?.message == prefix + problem, "\(token)")
        }
    }

    @Test func textThatIsNoTokenIsRefused() {
        #expect(self.failure("  \n") == TokenError(.empty, "token command /usr/local/bin/get-token gave an empty token"))
        #expect(
            self.failure("Error: you are not signed in")
                == TokenError(
                    .malformed,
                    "token command /usr/local/bin/get-token gave text with spaces, which a token cannot contain; it must give the token alone"
                )
        )
        #expect(self.failure("abc\ndef")?.message.contains("gave text with several lines") == true)
        #expect(self.failure("abc\u{07}def")?.message.contains("gave text with control characters") == true)
        #expect(self.failure("tökén")?.message.contains("gave text with non-ASCII characters") == true)
        #expect(
            self.failure(String(repeating: "a", count: 20_000))?.message
                == "token command /usr/local/bin/get-token gave 20000 bytes, more than a token can be (16 KiB); it must give the token alone"
        )
    }

    @Test func expiredAndNotYetValidTokens() {
        let expired = TestJWT.make(claims: #"{"exp":1799999820}"#)
        #expect(
            self.failure(expired)
                == TokenError(
                    .expired,
                    "the token from token command /usr/local/bin/get-token expired at 2027-01-15T07:57:00Z (3 min ago); the source gave an old token"
                )
        )
        let early = TestJWT.make(claims: #"{"exp":1800090000,"nbf":1800003600}"#)
        #expect(
            self.failure(early)
                == TokenError(
                    .notYetValid,
                    "the token from token command /usr/local/bin/get-token is not valid before 2027-01-15T09:00:00Z; is this machine's clock right?"
                )
        )
        let skewed = TestJWT.make(claims: #"{"exp":1800090000,"nbf":1800000030}"#)
        #expect(self.failure(skewed) == nil, "30 s of clock skew is fine")
    }

    @Test func jsonParserReadsWhatRFC8259Allows() throws {
        let text = #" {"s":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00","n":[0,-1.5e3,2E+2,0.25],"t":true,"f":false,"z":null,"o":{}} "#
        let value = try JSONValue.parse(Array(text.utf8))
        #expect(value["s"] == .string("a\"b\\c/d\u{08}\u{0C}\n\r\té😀"))
        #expect(value["n"] == .array([.number(0), .number(-1500), .number(200), .number(0.25)]))
        #expect(value["t"] == .bool(true) && value["f"] == .bool(false) && value["z"] == .null && value["o"] == .object([:]))
        for bad in ["", "{", "[1,]", "{\"a\"}", "01", "1.", "-", "\"\\x\"", "\"\\ud800\"", "\"a\nb\"", "tru", "[1] 2", "{\"a\":1,}"] {
            #expect(throws: JSONValue.ParseError.self, "\(bad)") { try JSONValue.parse(Array(bad.utf8)) }
        }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONValue.ParseError(problem: "nested too deeply", offset: 64)) { try JSONValue.parse(Array(deep.utf8)) }
        let invalidUTF8: [UInt8] = [0x22, 0xC3, 0x28, 0x22]
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(invalidUTF8) }
    }
}
