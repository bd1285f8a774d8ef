import SIPCore
import Testing

/// Messages the tests share: RFC 3261-style requests and responses as a registrar and a caller send them.
enum Fixtures {
    /// Joins lines with CRLF and ends the head with an empty line; `body` follows.
    static func message(_ lines: [String], body: String = "") -> [UInt8] {
        Array((lines.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)
    }

    static let sdp =
        "v=0\r\no=bob 2890844527 2890844527 IN IP4 192.0.2.4\r\ns=-\r\nc=IN IP4 192.0.2.4\r\nt=0 0\r\nm=audio 49172 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"

    /// An INVITE from baresip through kamailio, with compact headers mixed in.
    static let invite = message(
        [
            "INVITE sip:alice@192.0.2.10:5060;transport=tcp SIP/2.0",
            "Via: SIP/2.0/TCP 192.0.2.1:5060;branch=z9hG4bK776asdhds;rport=5060;received=192.0.2.1",
            "v: SIP/2.0/UDP 198.51.100.7:5080;branch=z9hG4bKnashds8",
            "Max-Forwards: 69",
            "t: Alice <sip:alice@example.com>",
            "f: \"Bob \\\"The Builder\\\"\" <sip:bob@example.com>;tag=1928301774",
            "i: a84b4c76e66710@pc33.example.com",
            "CSeq: 314159 INVITE",
            "m: <sip:bob@198.51.100.7:5080>",
            "Record-Route: <sip:192.0.2.1;transport=tcp;lr>",
            "Supported: replaces, 100rel",
            "c: application/sdp",
            "l: \(sdp.utf8.count)",
        ],
        body: sdp
    )

    static let registerChallenge = message([
        "SIP/2.0 401 Unauthorized",
        "Via: SIP/2.0/TCP 192.0.2.10:5060;branch=z9hG4bKregister1;rport=5060;received=192.0.2.10",
        "From: <sip:alice@example.com>;tag=a73kszlfl",
        "To: <sip:alice@example.com>;tag=1410948204",
        "Call-ID: 1j9FpLxk3uxtm8tn@192.0.2.10",
        "CSeq: 1 REGISTER",
        "WWW-Authenticate: Digest realm=\"example.com\", nonce=\"ea9c8e88df84f1cec4341ae6cbe5a359\", opaque=\"\", qop=\"auth, auth-int\", algorithm=SHA-256, stale=FALSE",
        "WWW-Authenticate: Digest realm=\"example.com\", nonce=\"ea9c8e88df84f1cec4341ae6cbe5a359\", qop=\"auth\", algorithm=MD5",
        "Server: kamailio (5.6.3 (x86_64/linux))",
        "Content-Length: 0",
    ])

    static let registerOK = message([
        "SIP/2.0 200 OK",
        "Via: SIP/2.0/TCP 192.0.2.10:5060;branch=z9hG4bKregister2;rport=5060;received=192.0.2.10",
        "From: <sip:alice@example.com>;tag=a73kszlfl",
        "To: <sip:alice@example.com>;tag=1410948204",
        "Call-ID: 1j9FpLxk3uxtm8tn@192.0.2.10",
        "CSeq: 2 REGISTER",
        "Contact: <sip:alice@192.0.2.10:5060;transport=tcp>;expires=300;+sip.instance=\"<urn:uuid:00000000-0000-1000-8000-000A95A0E128>\";reg-id=1, <sip:alice@203.0.113.9>;expires=1200",
        "Require: outbound",
        "Supported: outbound, path",
        "Flow-Timer: 120",
        "Content-Length: 0",
    ])

    static let cancel = message([
        "CANCEL sip:alice@192.0.2.10:5060;transport=tcp SIP/2.0",
        "Via: SIP/2.0/TCP 192.0.2.1:5060;branch=z9hG4bK776asdhds;rport=5060;received=192.0.2.1",
        "Max-Forwards: 70",
        "To: Alice <sip:alice@example.com>",
        "From: \"Bob \\\"The Builder\\\"\" <sip:bob@example.com>;tag=1928301774",
        "Call-ID: a84b4c76e66710@pc33.example.com",
        "CSeq: 314159 CANCEL",
        "Content-Length: 0",
    ])

    static var all: [[UInt8]] { [invite, registerChallenge, registerOK, cancel] }
}

/// SplitMix64: a seeded generator so identifiers and mutations are the same on every run.
struct SeededGenerator: RandomNumberGenerator, Sendable {
    var state: UInt64

    init(seed: UInt64) { self.state = seed }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Array where Element == UInt8 {
    var text: String { String(decoding: self, as: UTF8.self) }
}

/// Expects `body` to throw a ``SIPParseError`` of class `code`.
func expectParseError(
    _ code: SIPParseError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected a \(code) error, got none", sourceLocation: sourceLocation)
    } catch let error as SIPParseError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a SIPParseError, got \(error)", sourceLocation: sourceLocation)
    }
}
