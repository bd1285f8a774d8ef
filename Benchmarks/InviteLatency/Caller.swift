import SIPCore

/// The requests the benchmark's caller sends: INVITEs shaped like a proxy-relayed call (with an SDP
/// offer, as every real INVITE carries) and the ACK of their non-2xx final answer.
struct Caller {
    let peer: Peer
    /// Where the channel registered (its Contact): the Request-URI of every INVITE.
    let target: SIPURI
    private var identifiers = SIPIdentifiers()

    init(peer: Peer, target: SIPURI) {
        self.peer = peer
        self.target = target
    }

    /// A new INVITE from "Caller `number`".
    mutating func invite(_ number: Int) -> SIPRequest {
        let transport = self.peer.transport == .tcp ? ";transport=tcp" : ""
        let headers: SIPHeaders = [
            (.via, self.peer.via(branch: self.identifiers.branch())),
            (.maxForwards, "70"),
            (.from, "\"Caller \(number)\" <sip:caller\(number)@127.0.0.1>;tag=\(self.identifiers.tag())"),
            (.to, "<sip:bench@127.0.0.1>"),
            (.callID, self.identifiers.callID(host: "127.0.0.1")),
            (.cseq, "1 INVITE"),
            (.contact, "<sip:caller\(number)@127.0.0.1:\(self.peer.port)\(transport)>"),
            (.contentType, "application/sdp"),
        ]
        return SIPRequest(method: .invite, uri: self.target, headers: headers, body: Array(Self.offer(number).utf8))
    }

    /// The ACK for a non-2xx final `response` to `invite` (RFC 3261 section 17.1.1.3: same branch, the
    /// response's To).
    func acknowledge(_ response: SIPResponse, to invite: SIPRequest) -> SIPRequest {
        var headers = SIPHeaders()
        if let via = invite.headers[.via] { headers.add(.via, via) }
        headers.add(.maxForwards, "70")
        for name in [SIPHeaderName.from, .callID] { if let value = invite.headers[name] { headers.add(name, value) } }
        if let to = response.headers[.to] { headers.add(.to, to) }
        headers.add(.cseq, "1 ACK")
        return SIPRequest(method: .ack, uri: invite.uri, headers: headers)
    }

    private static func offer(_ number: Int) -> String {
        """
        v=0\r
        o=caller \(number) 1 IN IP4 127.0.0.1\r
        s=-\r
        c=IN IP4 127.0.0.1\r
        t=0 0\r
        m=audio \(20000 + 2 * (number % 10000)) RTP/AVP 0 8 101\r
        a=rtpmap:0 PCMU/8000\r
        a=rtpmap:8 PCMA/8000\r
        a=rtpmap:101 telephone-event/8000\r
        a=sendrecv\r

        """
    }
}
