import SIPCore
import Testing

@Suite struct SIPMessageParserTests {
    @Test func parsesAnInviteWithCompactHeadersAndABody() throws {
        let message = try SIPMessage(parsing: Fixtures.invite)
        let request = try #require(message.request)
        #expect(request.method == .invite)
        #expect(request.uri.user == "alice")
        #expect(request.uri.host == "192.0.2.10")
        #expect(request.uri.port == 5060)
        #expect(request.uri.transport == "tcp")
        #expect(try request.headers.callID == "a84b4c76e66710@pc33.example.com")
        #expect(try request.headers.cseq == SIPCSeq(314159, .invite))
        let from = try request.headers.from
        #expect(from.displayName == "Bob \"The Builder\"")
        #expect(from.uri.description == "sip:bob@example.com")
        #expect(from.tag == "1928301774")
        let to = try request.headers.to
        #expect(to.displayName == "Alice")
        #expect(to.tag == nil)
        let vias = try request.headers.vias
        #expect(vias.count == 2)
        #expect(vias[0].transport == "TCP")
        #expect(vias[0].branch == "z9hG4bK776asdhds")
        #expect(vias[0].rport == 5060)
        #expect(vias[0].received == "192.0.2.1")
        #expect(vias[1].transport == "UDP")
        #expect(vias[1].port == 5080)
        #expect(try request.headers.contacts.map(\.uri.description) == ["sip:bob@198.51.100.7:5080"])
        #expect(try request.headers.maxForwards == 69)
        #expect(try request.headers.supported == ["replaces", "100rel"])
        #expect(request.headers[.contentType] == "application/sdp")
        #expect(request.body.text == Fixtures.sdp)
        #expect(try request.headers.recordRoutes.first?.uri.parameters.contains("lr") == true)
    }

    @Test func headerNamesAreCaseInsensitiveAndCompactFormsExpand() throws {
        let message = try SIPMessage(
            parsing: Fixtures.message([
                "OPTIONS sip:example.com SIP/2.0",
                "VIA: SIP/2.0/UDP host.example.com;branch=z9hG4bK1",
                "v: SIP/2.0/UDP other.example.com;branch=z9hG4bK2",
                "call-id: abc",
                "CSEQ: 7 OPTIONS",
                "f: <sip:a@example.com>;tag=x",
                "T: <sip:b@example.com>",
                "k: outbound",
                "e: gzip",
                "l: 0",
            ])
        )
        let headers = message.headers
        #expect(headers.values(.via).count == 2)
        #expect(headers["Call-ID"] == "abc")
        #expect(headers["i"] == "abc")
        #expect(headers.map(\.name.canonical) == ["Via", "Via", "Call-ID", "CSeq", "From", "To", "Supported", "Content-Encoding", "Content-Length"])
        #expect(headers.announces("OUTBOUND"))
    }

    @Test func multipleValuesSplitOnlyOutsideQuotesAndBrackets() throws {
        let message = try SIPMessage(
            parsing: Fixtures.message([
                "SIP/2.0 200 OK",
                "Via: SIP/2.0/UDP a.example.com;branch=z9hG4bK1, SIP/2.0/UDP b.example.com;branch=z9hG4bK2",
                "Contact: \"Doe, John\" <sip:john@example.com;x=1,2>;expires=60, sip:jane@example.com;expires=30",
                "Contact: <sip:third@example.com>",
                "Content-Length: 0",
            ])
        )
        let contacts = try message.headers.contacts
        #expect(contacts.map(\.displayName) == ["Doe, John", nil, nil])
        #expect(contacts.map(\.expires) == [60, 30, nil])
        // In an addr-spec the parameters belong to the header, not to the URI.
        #expect(contacts[1].uri.parameters.isEmpty)
        #expect(contacts[0].uri.parameters["x"] == "1,2")
        #expect(try message.headers.vias.map(\.host) == ["a.example.com", "b.example.com"])
    }

    @Test func foldedHeadersAreJoined() throws {
        let message = try SIPMessage(
            parsing: Fixtures.message([
                "SIP/2.0 180 Ringing",
                "Subject: I know you're there,",
                "   pick up the phone",
                "\tand talk to me!",
                "Content-Length: 0",
            ])
        )
        #expect(message.headers["Subject"] == "I know you're there, pick up the phone and talk to me!")
        #expect(message.response?.reasonPhrase == "Ringing")
    }

    @Test func parsesResponsesAndChallenges() throws {
        let response = try #require(try SIPMessage(parsing: Fixtures.registerChallenge).response)
        #expect(response.statusCode == 401)
        let challenges = try response.headers.wwwAuthenticate
        #expect(challenges.count == 2)
        #expect(challenges[0].isDigest)
        #expect(challenges[0].realm == "example.com")
        #expect(challenges[0].nonce == "ea9c8e88df84f1cec4341ae6cbe5a359")
        #expect(challenges[0].opaque == "")
        #expect(challenges[0].qopOptions == ["auth", "auth-int"])
        #expect(challenges[0].algorithm == "SHA-256")
        #expect(challenges[0].isStale == false)
        #expect(challenges[1].algorithm == "MD5")
    }

    @Test func parsesRegistrationResponseExtras() throws {
        let response = try #require(try SIPMessage(parsing: Fixtures.registerOK).response)
        let contacts = try response.headers.contacts
        #expect(contacts[0].instanceID == "urn:uuid:00000000-0000-1000-8000-000A95A0E128")
        #expect(contacts[0].registrationID == 1)
        #expect(contacts[0].expires == 300)
        #expect(try response.headers.flowTimer == 120)
        #expect(try response.headers.require == ["outbound"])
        #expect(try response.headers.supported == ["outbound", "path"])
        #expect(response.headers.announces("outbound"))
    }

    @Test func parsesBearerChallengesAndCredentials() throws {
        let challenge = try SIPAuthChallenge(
            parsing: "Bearer realm=\"atlanta.com\", scope=\"abc\", authz_server=\"https://as.example.com/token\", error=\"invalid_token\""
        )
        #expect(challenge.isBearer)
        #expect(challenge.realm == "atlanta.com")
        #expect(challenge.scope == "abc")
        #expect(challenge.authorizationServer == "https://as.example.com/token")
        #expect(challenge.error == "invalid_token")
        let credentials = try SIPCredentials(parsing: "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl")
        #expect(credentials.isScheme("bearer"))
        #expect(credentials.token == "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl")
        #expect(credentials.description == "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl")
        let digest = try SIPCredentials(parsing: "Digest username=\"alice\", realm=\"example.com\", nc=00000001, qop=auth")
        #expect(digest.token == nil)
        #expect(digest.username == "alice")
        #expect(digest.parameters["nc"] == "00000001")
    }

    @Test func datagramBodyFollowsContentLengthAndExtraBytesAreDiscarded() throws {
        let bytes = Fixtures.message(["MESSAGE sip:a@example.com SIP/2.0", "Content-Length: 5"], body: "helloEXTRA")
        #expect(try SIPMessage(parsing: bytes).body.text == "hello")
        let withoutLength = Fixtures.message(["MESSAGE sip:a@example.com SIP/2.0"], body: "whole datagram")
        #expect(try SIPMessage(parsing: withoutLength).body.text == "whole datagram")
        let leadingCRLF = Array("\r\n\r\n".utf8) + Fixtures.cancel
        #expect(try SIPMessage(parsing: leadingCRLF).request?.method == .cancel)
    }

    @Test func roundTripsThroughTheSerializer() throws {
        for bytes in Fixtures.all {
            let message = try SIPMessage(parsing: bytes)
            let again = try SIPMessage(parsing: message.serialized())
            #expect(again == message)
            #expect(again.serialized() == message.serialized())
        }
    }

    @Test func serializesWithCanonicalNamesAndAFreshContentLength() throws {
        var request = SIPRequest(method: .message, uri: try SIPURI(parsing: "sip:bob@example.com"))
        request.headers.add("i", "abc")
        request.headers.add(.contentLength, "999")
        request.headers.add("X-Injected", "a\r\nEvil: yes")
        request.body = Array("hi".utf8)
        #expect(
            request.serialized().text
                == "MESSAGE sip:bob@example.com SIP/2.0\r\nCall-ID: abc\r\nX-Injected: a Evil: yes\r\nContent-Length: 2\r\n\r\nhi"
        )
    }

    @Test(arguments: [
        ("", SIPParseError.Code.truncated),
        ("\r\n\r\n", .truncated),
        ("INVITE sip:a@b SIP/2.0\r\nVia: x\r\n", .truncated),
        ("INVITE sip:a@b\r\n\r\n", .startLine),
        ("INVITE sip:a@b SIP/3.0\r\n\r\n", .startLine),
        ("INVITE <sip:a@b> SIP/2.0\r\n\r\n", .startLine),
        ("INV(TE sip:a@b SIP/2.0\r\n\r\n", .startLine),
        ("SIP/2.0 99 Low\r\n\r\n", .startLine),
        ("SIP/2.0 700 High\r\n\r\n", .startLine),
        ("SIP/2.0 2000 OK\r\n\r\n", .startLine),
        ("HTTP/1.1 200 OK\r\n\r\n", .startLine),
        ("SIP/2.0 200 OK\r\nNoColon\r\n\r\n", .headerSyntax),
        ("SIP/2.0 200 OK\r\n: empty name\r\n\r\n", .headerSyntax),
        ("SIP/2.0 200 OK\r\n folded first\r\n\r\n", .headerSyntax),
        ("SIP/2.0 200 OK\r\nA: b\nC: d\r\n\r\n", .headerSyntax),
        ("SIP/2.0 200 OK\r\nA: b\rC: d\r\n\r\n", .headerSyntax),
        ("SIP/2.0 200 OK\r\nA: b\u{0}c\r\n\r\n", .encoding),
        ("SIP/2.0 200 OK\r\nContent-Length: ten\r\n\r\n", .contentLength),
        ("SIP/2.0 200 OK\r\nContent-Length: 3\r\nl: 4\r\n\r\nabcd", .contentLength),
        ("SIP/2.0 200 OK\r\nContent-Length: 10\r\n\r\nshort", .contentLength),
        ("SIP/2.0 200 OK\r\nContent-Length: 99999999999\r\n\r\n", .contentLength),
    ])
    func rejectsMalformedMessagesWithTypedErrors(input: String, code: SIPParseError.Code) {
        expectParseError(code) { _ = try SIPMessage(parsing: input) }
    }

    @Test func rejectsInvalidUTF8() throws {
        var bytes = Array("SIP/2.0 200 OK\r\nSubject: ".utf8)
        bytes += [0xC3, 0x28]
        bytes += Array("\r\n\r\n".utf8)
        #expect(throws: SIPParseError.self) { try SIPMessage(parsing: bytes) }
        let valid = Array("SIP/2.0 200 OK\r\nSubject: Grüße\r\n\r\n".utf8)
        #expect(try SIPMessage(parsing: valid).headers["Subject"] == "Grüße")
    }

    @Test func errorsSayWhatAndWhere() throws {
        let error = try #require(throws: SIPParseError.self) {
            try SIPMessage(parsing: "SIP/2.0 200 OK\r\nVia: x\r\nBroken header\r\n\r\n")
        }
        #expect(error.code == .headerSyntax)
        #expect(error.location.line == 3)
        #expect(error.location.offset == 24)
        #expect(error.description == "SIP header-syntax (line 3, byte 24): expected ':' after the header name")
        let message = try SIPMessage(parsing: "SIP/2.0 200 OK\r\nCSeq: one REGISTER\r\n\r\n")
        let typed = try #require(throws: SIPParseError.self) { try message.headers.cseq }
        #expect(typed.location.header == "CSeq")
        #expect(typed.code == .headerValue)
    }

    @Test func enforcesLimits() {
        var limits = SIPParserLimits()
        limits.maxLineLength = 64
        limits.maxHeaderCount = 3
        limits.maxHeadSize = 256
        limits.maxBodySize = 8
        let long = "SIP/2.0 200 OK\r\nSubject: " + String(repeating: "a", count: 100) + "\r\n\r\n"
        expectParseError(.lineTooLong) { _ = try SIPMessage(parsing: long, limits: limits) }
        let folded = "SIP/2.0 200 OK\r\nSubject: " + String(repeating: "a\r\n ", count: 40) + "\r\n\r\n"
        expectParseError(.lineTooLong) { _ = try SIPMessage(parsing: folded, limits: limits) }
        let many = "SIP/2.0 200 OK\r\n" + String(repeating: "A: b\r\n", count: 4) + "\r\n"
        expectParseError(.tooManyHeaders) { _ = try SIPMessage(parsing: many, limits: limits) }
        let big = "SIP/2.0 200 OK\r\n" + String(repeating: "A: 0123456789\r\n", count: 20) + "\r\n"
        expectParseError(.headTooLarge) { _ = try SIPMessage(parsing: big, limits: limits) }
        let body = "SIP/2.0 200 OK\r\nContent-Length: 9\r\n\r\n123456789"
        expectParseError(.bodyTooLarge) { _ = try SIPMessage(parsing: body, limits: limits) }
        let unbounded = "SIP/2.0 200 OK\r\n\r\n123456789"
        expectParseError(.bodyTooLarge) { _ = try SIPMessage(parsing: unbounded, limits: limits) }
    }
}
