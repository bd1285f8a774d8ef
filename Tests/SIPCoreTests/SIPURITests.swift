import SIPCore
import Testing

@Suite struct SIPURITests {
    @Test func parsesEveryPartOfASIPURI() throws {
        let uri = try SIPURI(parsing: "sips:alice:secret@Example.COM:5061;transport=TLS;lr?subject=project%20x&priority=urgent")
        #expect(uri.scheme == "sips")
        #expect(uri.user == "alice")
        #expect(uri.password == "secret")
        #expect(uri.host == "Example.COM")
        #expect(uri.port == 5061)
        #expect(uri.transport == "tls")
        #expect(uri.parameters.contains("lr"))
        #expect(uri.parameters["lr"] == nil)
        #expect(uri.headers.map(\.name) == ["subject", "priority"])
        #expect(uri.description == "sips:alice:secret@Example.COM:5061;transport=TLS;lr?subject=project%20x&priority=urgent")
    }

    @Test func parsesIPv6AndTelephoneUsers() throws {
        let v6 = try SIPURI(parsing: "sip:[2001:db8::10]:5070;maddr=[2001:db8::1]")
        #expect(v6.host == "[2001:db8::10]")
        #expect(v6.port == 5070)
        #expect(v6.parameters["maddr"] == "[2001:db8::1]")
        let phone = try SIPURI(parsing: "sip:+1-212-555-1212@gateway.example.com;user=phone")
        #expect(phone.user == "+1-212-555-1212")
        let tel = try SIPURI(parsing: "tel:+1-201-555-0123")
        #expect(!tel.isSIP)
        #expect(tel.opaque == "+1-201-555-0123")
        #expect(tel.description == "tel:+1-201-555-0123")
    }

    @Test(arguments: [
        "", "alice@example.com", "sip:", "sip:@example.com", "sip:alice@", "sip:alice@exa mple.com",
        "sip:a@[2001:db8::1", "sip:a@example.com:99999", "sip:a@example.com:port", "sip:a@ex<ample",
        "1sip:a@b", "sip:a@b;=x", "sip:a@b?novalue", "sip:a@[zz]", "tel:",
    ])
    func rejectsMalformedURIs(text: String) {
        expectParseError(.uri) { _ = try SIPURI(parsing: text) }
    }

    @Test func comparesURIsAsRFC3261Does() throws {
        let a = try SIPURI(parsing: "sip:alice@EXAMPLE.com;transport=TCP")
        let b = try SIPURI(parsing: "sip:alice@example.com;transport=tcp;foo=bar")
        let c = try SIPURI(parsing: "sip:alice@example.com")
        #expect(a.isEquivalent(to: b))
        #expect(!a.isEquivalent(to: c))
        #expect(!c.isEquivalent(to: try SIPURI(parsing: "sip:Alice@example.com")))
    }

    @Test func nameAddressesInBothForms() throws {
        let quoted = try SIPNameAddress(parsing: "\"A. G. Bell\" <sip:agb@bell-telephone.com> ;tag=a48s")
        #expect(quoted.displayName == "A. G. Bell")
        #expect(quoted.tag == "a48s")
        let tokens = try SIPNameAddress(parsing: "Anonymous <sip:c8oqz84zk7z@privacy.org>;tag=hyh8")
        #expect(tokens.displayName == "Anonymous")
        let bare = try SIPNameAddress(parsing: "sip:+12125551212@server.phone2net.com;tag=887s")
        #expect(bare.displayName == nil)
        #expect(bare.uri.user == "+12125551212")
        #expect(bare.tag == "887s")
        let noName = try SIPNameAddress(parsing: "<sip:alice@example.com;transport=tcp>;expires=60")
        #expect(noName.uri.transport == "tcp")
        #expect(noName.expires == 60)
        #expect(noName.description == "<sip:alice@example.com;transport=tcp>;expires=60")
        let instance = try SIPNameAddress(parsing: "sip:alice@192.0.2.10;+sip.instance=\"<urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6>\";reg-id=1")
        #expect(instance.uri.description == "sip:alice@192.0.2.10")
        #expect(instance.instanceID == "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6")
        var named = quoted
        named.displayName = "Say \"hi\""
        named.tag = nil
        #expect(named.description == "\"Say \\\"hi\\\"\" <sip:agb@bell-telephone.com>")
        #expect(try SIPNameAddress(parsing: named.description) == named)
    }

    @Test(arguments: [
        "\"unterminated <sip:a@b>", "\"Name\" sip:a@b", "<sip:a@b", "Na\"me <sip:a@b>", "Na,me <sip:a@b>", "<sip:a@b>;", "<sip:a@b> junk",
        "<sip:a@b>;tag=\"open", "<>", "<sip:a@b>;=1",
    ])
    func rejectsMalformedNameAddresses(text: String) {
        expectParseError(.headerValue) { _ = try SIPNameAddress(parsing: text) }
    }

    @Test func viaElements() throws {
        let via = try SIPVia(parsing: "SIP / 2.0 / udp [2001:db8::9]:5060 ;branch=z9hG4bK-x;rport;received=[2001:db8::1]")
        #expect(via.transport == "UDP")
        #expect(via.host == "[2001:db8::9]")
        #expect(via.port == 5060)
        #expect(via.hasRPort)
        #expect(via.rport == nil)
        #expect(via.received == "[2001:db8::1]")
        #expect(via.hasRFC3261Branch)
        #expect(via.description == "SIP/2.0/UDP [2001:db8::9]:5060;branch=z9hG4bK-x;rport;received=[2001:db8::1]")
        for bad in ["SIP/2.0 UDP host", "SIP/1.0/UDP host", "SIP/2.0/UDP", "SIP/2.0/UDP host:x", "SIP/2.0/UDP user@host"] {
            expectParseError(.headerValue) { _ = try SIPVia(parsing: bad) }
        }
    }

    @Test func cseqBounds() throws {
        #expect(try SIPCSeq(parsing: "2147483647 REGISTER").number == 2_147_483_647)
        for bad in ["2147483648 INVITE", "-1 INVITE", "1", "1 INVITE extra", "x INVITE"] {
            expectParseError(.headerValue) { _ = try SIPCSeq(parsing: bad) }
        }
    }
}
