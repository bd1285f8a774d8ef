import SIPCore
import Testing

@Suite struct BuilderTests {
    static func builder(outbound: Bool) throws -> SIPRegisterBuilder {
        var builder = SIPRegisterBuilder(
            registrar: try SIPURI(parsing: "sip:example.com"),
            addressOfRecord: try SIPURI(parsing: "sip:alice@example.com"),
            contact: try SIPURI(parsing: "sip:alice@192.0.2.10:5060;transport=tcp"),
            viaTransport: "tcp",
            viaHost: "192.0.2.10",
            viaPort: 5060
        )
        builder.instanceID = "urn:uuid:00000000-0000-1000-8000-000A95A0E128"
        builder.outbound = outbound
        return builder
    }

    @Test func registerWithOutboundExactBytes() throws {
        let request = try Self.builder(outbound: true).request(
            callID: "1j9FpLxk3uxtm8tn",
            fromTag: "a73kszlfl",
            sequence: 1,
            branch: "z9hG4bKnashds7",
            expires: 600
        )
        #expect(
            request.serialized().text
                == [
                    "REGISTER sip:example.com SIP/2.0",
                    "Via: SIP/2.0/TCP 192.0.2.10:5060;branch=z9hG4bKnashds7;rport",
                    "Max-Forwards: 70",
                    "From: <sip:alice@example.com>;tag=a73kszlfl",
                    "To: <sip:alice@example.com>",
                    "Call-ID: 1j9FpLxk3uxtm8tn",
                    "CSeq: 1 REGISTER",
                    "Contact: <sip:alice@192.0.2.10:5060;transport=tcp>;+sip.instance=\"<urn:uuid:00000000-0000-1000-8000-000A95A0E128>\";reg-id=1",
                    "Expires: 600",
                    "Supported: outbound, path",
                    "User-Agent: Attendant",
                    "Content-Length: 0",
                    "", "",
                ].joined(separator: "\r\n")
        )
        // The registrar reads back what we meant.
        let parsed = try #require(try SIPMessage(parsing: request.serialized()).request)
        let contact = try #require(try parsed.headers.contacts.first)
        #expect(contact.instanceID == "urn:uuid:00000000-0000-1000-8000-000A95A0E128")
        #expect(contact.registrationID == 1)
        #expect(try parsed.headers.expires == 600)
    }

    @Test func unregisterWithCredentialsAndNoOutbound() throws {
        var builder = try Self.builder(outbound: false)
        builder.userAgent = nil
        builder.displayName = "Alice"
        builder.routes = [try SIPURI(parsing: "sip:proxy.example.com;lr")]
        let request = builder.request(
            callID: "c",
            fromTag: "t",
            sequence: 7,
            branch: "z9hG4bKb",
            expires: 0,
            credentials: [(.authorization, .bearer("tok.en"))]
        )
        #expect(
            request.serialized().text
                == [
                    "REGISTER sip:example.com SIP/2.0",
                    "Via: SIP/2.0/TCP 192.0.2.10:5060;branch=z9hG4bKb;rport",
                    "Max-Forwards: 70",
                    "From: \"Alice\" <sip:alice@example.com>;tag=t",
                    "To: \"Alice\" <sip:alice@example.com>",
                    "Call-ID: c",
                    "CSeq: 7 REGISTER",
                    "Route: <sip:proxy.example.com;lr>",
                    "Contact: <sip:alice@192.0.2.10:5060;transport=tcp>;+sip.instance=\"<urn:uuid:00000000-0000-1000-8000-000A95A0E128>\"",
                    "Expires: 0",
                    "Authorization: Bearer tok.en",
                    "Content-Length: 0",
                    "", "",
                ].joined(separator: "\r\n")
        )
    }

    @Test func responsesToAnInvite() throws {
        let invite = try #require(try SIPMessage(parsing: Fixtures.invite).request)
        let common = [
            "Via: SIP/2.0/TCP 192.0.2.1:5060;branch=z9hG4bK776asdhds;rport=5060;received=192.0.2.1",
            "Via: SIP/2.0/UDP 198.51.100.7:5080;branch=z9hG4bKnashds8",
            "From: \"Bob \\\"The Builder\\\"\" <sip:bob@example.com>;tag=1928301774",
        ]
        let callAndSequence = ["Call-ID: a84b4c76e66710@pc33.example.com", "CSeq: 314159 INVITE"]
        func expectBytes(_ response: SIPResponse, _ lines: [String]) {
            #expect(response.serialized().text == (lines + ["Content-Length: 0", "", ""]).joined(separator: "\r\n"))
        }
        expectBytes(
            SIPResponse.answering(invite, statusCode: 100),
            ["SIP/2.0 100 Trying"] + common + ["To: Alice <sip:alice@example.com>"] + callAndSequence
        )
        let me = SIPNameAddress(uri: try SIPURI(parsing: "sip:alice@192.0.2.10:5060;transport=tcp"))
        expectBytes(
            SIPResponse.answering(invite, statusCode: 180, toTag: "x1", contact: me),
            ["SIP/2.0 180 Ringing"] + common + ["To: Alice <sip:alice@example.com>;tag=x1"] + callAndSequence + [
                "Contact: <sip:alice@192.0.2.10:5060;transport=tcp>"
            ]
        )
        let softphone = SIPNameAddress(uri: try SIPURI(parsing: "sip:alice@198.51.100.20:5062"))
        expectBytes(
            SIPResponse.answering(invite, statusCode: 302, toTag: "x1", contact: softphone),
            ["SIP/2.0 302 Moved Temporarily"] + common + ["To: Alice <sip:alice@example.com>;tag=x1"] + callAndSequence + [
                "Contact: <sip:alice@198.51.100.20:5062>"
            ]
        )
        for (code, reason) in [(480, "Temporarily Unavailable"), (486, "Busy Here"), (603, "Decline"), (487, "Request Terminated")] {
            expectBytes(
                SIPResponse.answering(invite, statusCode: code, toTag: "x1"),
                ["SIP/2.0 \(code) \(reason)"] + common + ["To: Alice <sip:alice@example.com>;tag=x1"] + callAndSequence
            )
        }
        let cancel = try #require(try SIPMessage(parsing: Fixtures.cancel).request)
        expectBytes(
            SIPResponse.answering(cancel, statusCode: 200, toTag: "x1"),
            [
                "SIP/2.0 200 OK", "Via: SIP/2.0/TCP 192.0.2.1:5060;branch=z9hG4bK776asdhds;rport=5060;received=192.0.2.1", common[2],
                "To: Alice <sip:alice@example.com>;tag=x1", "Call-ID: a84b4c76e66710@pc33.example.com", "CSeq: 314159 CANCEL",
            ]
        )
    }

    @Test func anExistingToTagIsKept() throws {
        var invite = try #require(try SIPMessage(parsing: Fixtures.invite).request)
        invite.headers.set(.to, "<sip:alice@example.com>;tag=already")
        let response = SIPResponse.answering(invite, statusCode: 200, toTag: "other")
        #expect(response.headers[.to] == "<sip:alice@example.com>;tag=already")
    }

    @Test func identifiersAreRandomFromTheInjectedGenerator() {
        var first = SIPIdentifiers(generator: SeededGenerator(seed: 1))
        var second = SIPIdentifiers(generator: SeededGenerator(seed: 1))
        let branch = first.branch()
        #expect(branch == second.branch())
        #expect(branch.hasPrefix("z9hG4bK"))
        #expect(branch.count == 27)
        #expect(first.tag().count == 12)
        #expect(first.callID(host: "192.0.2.10").hasSuffix("@192.0.2.10"))
        #expect(first.clientNonce().count == 32)
        let instance = first.instanceID()
        #expect(instance.hasPrefix("urn:uuid:"))
        let uuid = Array(instance.dropFirst(9))
        #expect(uuid.count == 36)
        #expect(uuid[14] == "4")
        #expect("89ab".contains(uuid[19]))
        var system = SIPIdentifiers()
        #expect(Set((0..<100).map { _ in system.tag() }).count == 100)
    }
}

@Suite struct SIPLocalAddressTests {
    @Test func aContactAndViaNameTheLocalAddressWithIPv6InBracketsAndTCPAsAParameter() throws {
        let aor = try SIPURI(parsing: "sip:alice@example.com")
        let udp = SIPLocalAddress(ip: "192.0.2.10", port: 5060, transport: "UDP")
        #expect(udp.contact(user: "alice").description == "sip:alice@192.0.2.10:5060")
        let tcp = SIPLocalAddress(ip: "2001:db8::1", port: 5070, transport: "tcp")
        #expect(tcp.contact(user: "alice").description == "sip:alice@[2001:db8::1]:5070;transport=tcp")
        let builder = SIPRegisterBuilder(registrar: try SIPURI(parsing: "sip:example.com"), addressOfRecord: aor, local: tcp)
        let request = builder.request(callID: "c", fromTag: "t", sequence: 1, branch: "z9hG4bK1", expires: 600)
        let text = request.serialized().text
        #expect(text.contains("Via: SIP/2.0/TCP [2001:db8::1]:5070;branch=z9hG4bK1;rport\r\n"))
        #expect(text.contains("Contact: <sip:alice@[2001:db8::1]:5070;transport=tcp>\r\n"))
    }
}
