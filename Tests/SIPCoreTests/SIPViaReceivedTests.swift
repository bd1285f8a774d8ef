import SIPCore
import Testing

/// What a server transport notes on an arriving request's top Via (RFC 3261 section 18.2.1, RFC 3581
/// section 4), and so what every response built by `SIPResponse.answering` carries.
@Suite struct SIPViaReceivedTests {
    static func request(via lines: [String]) throws -> SIPRequest {
        var headers = SIPHeaders()
        for line in lines { headers.add(.via, line) }
        headers.add(.callID, "stamp@example.com")
        headers.add(.cseq, "1 OPTIONS")
        return SIPRequest(method: .options, uri: try SIPURI(parsing: "sip:alice@192.0.2.10"), headers: headers)
    }

    static func topVia(afterArrivalFrom ip: String, _ port: Int, of line: String) throws -> String? {
        var request = try Self.request(via: [line])
        request.noteSource(ip: ip, port: port)
        return request.headers.values(.via).first
    }

    @Test(arguments: [
        // An empty rport gets the source port, and received is added even for the sent-by host itself.
        ("SIP/2.0/UDP 192.0.2.1:5060;rport;branch=z9hG4bK1", "SIP/2.0/UDP 192.0.2.1:5060;rport=40123;branch=z9hG4bK1;received=192.0.2.1"),
        ("SIP/2.0/UDP 192.0.2.1;branch=z9hG4bK1;rport", "SIP/2.0/UDP 192.0.2.1;branch=z9hG4bK1;rport=40123;received=192.0.2.1"),
        // NATed: the source differs from the sent-by.
        ("SIP/2.0/TCP 10.0.0.5:5060;branch=z9hG4bK1;rport", "SIP/2.0/TCP 10.0.0.5:5060;branch=z9hG4bK1;rport=40123;received=192.0.2.1"),
        // Without rport: received only when the sent-by host is a name or another address.
        ("SIP/2.0/UDP phone.example.com:5070;branch=z9hG4bK1", "SIP/2.0/UDP phone.example.com:5070;branch=z9hG4bK1;received=192.0.2.1"),
        ("SIP/2.0/UDP 10.0.0.5;branch=z9hG4bK1", "SIP/2.0/UDP 10.0.0.5;branch=z9hG4bK1;received=192.0.2.1"),
        ("SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK1", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK1"),
        // An rport the client filled in is left; a received it made up is replaced.
        (
            "SIP/2.0/UDP 10.0.0.5;rport=5099;received=198.51.100.7;branch=z9hG4bK1",
            "SIP/2.0/UDP 10.0.0.5;rport=5099;received=192.0.2.1;branch=z9hG4bK1"
        ),
    ])
    func stampsTheTopVia(arrived: String, stamped: String) throws {
        #expect(try Self.topVia(afterArrivalFrom: "192.0.2.1", 40123, of: arrived) == stamped)
    }

    @Test func ipv6SourcesAreComparedWithoutBracketsAndWrittenBare() throws {
        #expect(
            try Self.topVia(afterArrivalFrom: "2001:db8::1", 5060, of: "SIP/2.0/UDP [2001:DB8::1]:5060;branch=z9hG4bK1")
                == "SIP/2.0/UDP [2001:DB8::1]:5060;branch=z9hG4bK1"
        )
        #expect(
            try Self.topVia(afterArrivalFrom: "2001:db8::1", 5062, of: "SIP/2.0/UDP [2001:db8::9]:5060;rport;branch=z9hG4bK1")
                == "SIP/2.0/UDP [2001:db8::9]:5060;rport=5062;branch=z9hG4bK1;received=2001:db8::1"
        )
    }

    @Test func onlyTheTopViaChangesAndEveryResponseCarriesIt() throws {
        let upstream = "SIP/2.0/UDP 198.51.100.2:5060;rport;branch=z9hG4bK-upstream"
        var folded = try Self.request(via: ["SIP/2.0/UDP 10.0.0.5:5060;rport;branch=z9hG4bK-top, \(upstream)", upstream])
        let via = folded.noteSource(ip: "192.0.2.1", port: 40123)
        #expect(via?.rport == 40123 && via?.received == "192.0.2.1")
        #expect(folded.headers.values(.via) == ["SIP/2.0/UDP 10.0.0.5:5060;rport=40123;branch=z9hG4bK-top;received=192.0.2.1", upstream, upstream])
        #expect(folded.headers.filter { $0.name == .via }.count == 2, "the lines stay as they were")
        for status in [100, 180, 200, 486] {
            let response = SIPResponse.answering(folded, statusCode: status, toTag: "t1")
            #expect(try response.headers.vias == folded.headers.vias)
            #expect(try response.headers.topVia.received == "192.0.2.1" && response.headers.topVia.rport == 40123)
        }
    }

    @Test func aRequestWithoutAUsableViaIsLeftAsItIs() throws {
        var missing = try Self.request(via: [])
        #expect(missing.noteSource(ip: "192.0.2.1", port: 5060) == nil)
        var broken = try Self.request(via: ["not a via;rport"])
        let before = broken
        #expect(broken.noteSource(ip: "192.0.2.1", port: 5060) == nil)
        #expect(broken == before)
    }
}
