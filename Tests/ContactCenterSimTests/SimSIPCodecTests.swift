import SIPCore
import TestSupport
import Testing

@testable import ContactCenterSim

/// The simulator's own SIP codec (Sources/ContactCenterSim/SIP), on messages from RFC 3261 and against the
/// plugin's codec (`SIPCore`): the two are written independently and must agree on the wire.
@Suite(.cpuBound) struct SimSIPCodecTests {
    static func bytes(_ lines: [String], body: String = "") -> [UInt8] {
        Array((lines.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)
    }

    /// RFC 3261 section 24.1: Bob's REGISTER.
    static let register = Self.bytes([
        "REGISTER sip:registrar.biloxi.com SIP/2.0",
        "Via: SIP/2.0/UDP bobspc.biloxi.com:5060;branch=z9hG4bKnashds7",
        "Max-Forwards: 70",
        "To: Bob <sip:bob@biloxi.com>",
        "From: Bob <sip:bob@biloxi.com>;tag=456248",
        "Call-ID: 843817637684230@998sdasdh09",
        "CSeq: 1826 REGISTER",
        "Contact: <sip:bob@192.0.2.4>",
        "Expires: 7200",
        "Content-Length: 0",
    ])

    @Test func registerFromRFC3261() throws {
        let message = try SimSIPParser.parse(datagram: Self.register)
        #expect(message.method == "REGISTER")
        #expect(message.requestURI == "sip:registrar.biloxi.com")
        #expect(try message.topVia().branch == "z9hG4bKnashds7")
        #expect(try message.topVia().sentBy == "bobspc.biloxi.com:5060")
        #expect(try message.address("To").uri.user == "bob")
        #expect(try message.address("To").displayName == "Bob")
        #expect(try message.address("From").tag == "456248")
        #expect(try message.callID() == "843817637684230@998sdasdh09")
        #expect(try message.cseq() == SimSIPCSeq(1826, "REGISTER"))
        #expect(try message.contacts().map(\.uri.host) == ["192.0.2.4"])
        #expect(try message.expires() == 7200)
        #expect(message.body.isEmpty)
    }

    /// RFC 3261 section 24.2, F6: a 200 with three Via fields, a body after Content-Length.
    @Test func responseWithSeveralViasAndABody() throws {
        let sdp = "v=0\r\no=bob 2890844527 2890844527 IN IP4 192.0.2.4\r\n"
        let bytes = Self.bytes(
            [
                "SIP/2.0 200 OK",
                "Via: SIP/2.0/UDP server10.biloxi.com;branch=z9hG4bKnashds8;received=192.0.2.3",
                "Via: SIP/2.0/UDP bigbox3.site3.atlanta.com;branch=z9hG4bK77ef4c2312983.1;received=192.0.2.2",
                "Via: SIP/2.0/UDP pc33.atlanta.com;branch=z9hG4bK776asdhds ;received=192.0.2.1",
                "To: Bob <sip:bob@biloxi.com>;tag=a6c85cf",
                "From: Alice <sip:alice@atlanta.com>;tag=1928301774",
                "Call-ID: a84b4c76e66710@pc33.atlanta.com",
                "CSeq: 314159 INVITE",
                "Contact: <sip:bob@192.0.2.4>",
                "Content-Type: application/sdp",
                "Content-Length: \(sdp.utf8.count)",
            ],
            body: sdp + "trailing bytes of a datagram are ignored"
        )
        let message = try SimSIPParser.parse(datagram: bytes)
        #expect(message.statusCode == 200)
        #expect(message.reasonPhrase == "OK")
        #expect(message.values("Via").count == 3)
        #expect(try message.topVia().parameters["received"] == "192.0.2.3")
        #expect(try SimSIPVia(parsing: message.values("Via")[2]).branch == "z9hG4bK776asdhds")
        #expect(message.body == Array(sdp.utf8))
    }

    @Test func compactFormsFoldingAndCombinedFields() throws {
        let bytes = Self.bytes([
            "\r\nINVITE sip:bob@biloxi.com SIP/2.0",  // CRLFs before the start line are skipped (section 7.5)
            "v: SIP/2.0/TCP pc33.atlanta.com;branch=z9hG4bK-1, SIP/2.0/UDP proxy.example;branch=z9hG4bK-2",
            "f: \"Alice, \\\"A\\\"\" <sip:alice@atlanta.com>",
            "  ;tag=88",
            "t: <sip:bob@biloxi.com>",
            "i: abc@atlanta.com",
            "CSEQ:   7   INVITE",
            "m: <sip:alice@pc33.atlanta.com;transport=tcp>;expires=60, sip:alice@192.0.2.9;reg-id=1",
            "k: outbound, path",
            "l: 0",
        ])
        let message = try SimSIPParser.parse(datagram: bytes)
        #expect(message.fields.map(\.name).prefix(6) == ["Via", "From", "To", "Call-ID", "CSeq", "Contact"])
        #expect(message.values("v").count == 2, "two Via values in one field")
        #expect(try message.topVia().transport == "TCP")
        let from = try message.address("From")
        #expect(from.displayName == "Alice, \"A\"")
        #expect(from.tag == "88", "the folded line continues the From field")
        #expect(try message.callID() == "abc@atlanta.com")
        #expect(try message.cseq() == SimSIPCSeq(7, "INVITE"))
        let contacts = try message.contacts()
        #expect(contacts.count == 2)
        #expect(contacts[0].uri.parameters["transport"] == "tcp")
        #expect(contacts[0].expires == 60)
        #expect(contacts[1].registrationID == 1, "without angle brackets, ;reg-id belongs to the header")
        #expect(message.announces("outbound"))
    }

    @Test func malformedMessagesAreRefused() {
        #expect(throws: SimSIPParseError.self) { try SimSIPParser.parse(datagram: Array("SIP/2.0 two hundred OK\r\n\r\n".utf8)) }
        #expect(throws: SimSIPParseError.self) { try SimSIPParser.parse(datagram: Array("REGISTER sip:x SIP/2.0\r\nno colon\r\n\r\n".utf8)) }
        #expect(throws: SimSIPParseError.self) { try SimSIPParser.parse(datagram: Array("REGISTER sip:x SIP/2.0\r\nl: 10\r\n\r\nshort".utf8)) }
        #expect(throws: SimSIPParseError.self) { try SimSIPParser.parse(datagram: Array("OPTIONS sip:x SIP/2.0\r\n\r".utf8)) }
        #expect(throws: SimSIPParseError.self) { try SimSIPAddress(parsing: "Bob <sip:bob@biloxi.com") }
        #expect(throws: SimSIPParseError.self) { try SimSIPURI(parsing: "http://biloxi.com") }
    }

    @Test func uris() throws {
        let uri = try SimSIPURI(parsing: "sips:alice:secret@[2001:db8::1]:5061;transport=tcp;lr?subject=hi")
        #expect(uri.scheme == "sips")
        #expect(uri.user == "alice")
        #expect(uri.password == "secret")
        #expect(uri.host == "[2001:db8::1]")
        #expect(uri.port == 5061)
        #expect(uri.parameters.contains("lr"))
        #expect(uri.description == "sips:alice:secret@[2001:db8::1]:5061;transport=tcp;lr?subject=hi")
        #expect(try SimSIPURI(parsing: "sip:bob@BILOXI.com;Transport=TCP").isEquivalent(to: SimSIPURI(parsing: "sip:bob@biloxi.com;transport=tcp")))
        #expect(try !SimSIPURI(parsing: "sip:bob@biloxi.com:5060").isEquivalent(to: SimSIPURI(parsing: "sip:bob@biloxi.com")))
    }

    // MARK: Framing

    @Test func streamFramingAcrossEveryReadBoundary() throws {
        let stream = [13, 10, 13, 10] + Self.register + Self.register
        for split in 0...stream.count {
            var reader = SimSIPStreamReader()
            let items = try reader.read(stream[..<split]) + reader.read(stream[split...])
            #expect(items.count == 3, "split at \(split)")
            #expect(items.first == .ping)
        }
        // One byte at a time.
        var reader = SimSIPStreamReader()
        var items: [SimSIPStreamReader.Item] = []
        for byte in Self.register + [13, 10, 13, 10] { items += try reader.read([byte]) }
        #expect(items.count == 2)
        guard case .message(let message) = items.first else {
            Issue.record("no message")
            return
        }
        #expect(message.method == "REGISTER")
        #expect(items.last == .ping)
    }

    @Test func streamBodiesAndLostFraming() throws {
        var reader = SimSIPStreamReader()
        let head = Self.bytes(["MESSAGE sip:bob@biloxi.com SIP/2.0", "Via: SIP/2.0/TCP a;branch=z9hG4bK1", "Content-Length: 5"])
        #expect(try reader.read(head + Array("hel".utf8)).isEmpty, "waits for the body")
        let items = try reader.read(Array("loSIP/2.0 1".utf8))
        guard case .message(let message)? = items.first, items.count == 1 else {
            Issue.record("got \(items)")
            return
        }
        #expect(message.body == Array("hello".utf8))

        var noLength = SimSIPStreamReader()
        #expect(throws: SimSIPParseError.self) { try noLength.read(Self.bytes(["OPTIONS sip:x SIP/2.0", "Via: SIP/2.0/TCP a"])) }
    }

    // MARK: Against the plugin's codec

    @Test func theSimulatorsResponsesReadTheSameInSIPCore() throws {
        let request = try SimSIPParser.parse(datagram: Self.register)
        var contact = try SimSIPAddress(parsing: "<sip:bob@192.0.2.4>;+sip.instance=\"<urn:uuid:00000000-0000-1000-8000-000A95A0E128>\";reg-id=1")
        contact.parameters.set("expires", "600")
        let response = SimSIPMessage.answering(
            request,
            200,
            toTag: "t1",
            extra: [
                SimSIPField("Contact", contact.description), SimSIPField("WWW-Authenticate", "Bearer realm=\"biloxi.com\", error=\"invalid_token\""),
            ]
        )
        let parsed = try response.parsedBySIPCore()
        #expect(parsed.statusCode == 200)
        #expect(try parsed.headers.to.tag == "t1")
        #expect(try parsed.headers.cseq == SIPCSeq(1826, .register))
        #expect(try parsed.headers.topVia.branch == "z9hG4bKnashds7")
        let parsedContact = try #require(try parsed.headers.contacts.first)
        #expect(parsedContact.expires == 600)
        #expect(parsedContact.instanceID == "urn:uuid:00000000-0000-1000-8000-000A95A0E128")
        #expect(parsedContact.registrationID == 1)
        #expect(try parsed.headers.wwwAuthenticate.first?.error == "invalid_token")
    }

    @Test func requestsSIPCoreWritesReadTheSameHere() throws {
        var headers = SIPHeaders()
        headers.add(.via, "SIP/2.0/TCP 192.0.2.4:5060;branch=z9hG4bK-x;rport")
        headers.add(.from, "\"Bob B\" <sip:bob@biloxi.com>;tag=1")
        headers.add(.to, "<sip:bob@biloxi.com>")
        headers.add(.callID, "c1")
        headers.add(.cseq, "2 REGISTER")
        headers.add(.contact, "<sip:bob@192.0.2.4;transport=tcp>;expires=300")
        headers.add(.authorization, "Bearer eyJhbGciOi.eyJzdWIi.c2ln")
        let sent = SIPRequest(method: .register, uri: try SIPURI(parsing: "sip:biloxi.com"), headers: headers, body: Array("x".utf8))
        var reader = SimSIPStreamReader()
        guard case .message(let message)? = try reader.read(sent.serialized()).first else {
            Issue.record("no message")
            return
        }
        #expect(message.requestURI == "sip:biloxi.com")
        #expect(try message.address("From").displayName == "Bob B")
        #expect(try message.contacts().first?.expires == 300)
        #expect(message.credentials.first?.bearerToken == "eyJhbGciOi.eyJzdWIi.c2ln")
        #expect(message.body == Array("x".utf8))
    }
}
