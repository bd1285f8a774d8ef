import AttendantPluginKit
import SIPCore
import Testing

/// Drives an ``InviteServerTransaction`` on a virtual clock.
private struct InviteDriver {
    typealias Action = InviteServerTransaction.Action

    var transaction: InviteServerTransaction
    var now: Duration = .zero
    var timers: [InviteServerTransaction.TimerID: Duration] = [:]
    var sent: [(at: Duration, response: SIPResponse)] = []
    var events: [Action] = []

    /// With `sendsTrying` (not the default) every ring starts with a 100, which the tests below count on.
    init(reliable: Bool, ringTimeout: Duration? = .seconds(30), invite: [UInt8] = Fixtures.invite, sendsTrying: Bool = true) throws {
        let request = try #require(try SIPMessage(parsing: invite).request)
        var configuration = InviteServerTransaction.Configuration(reliable: reliable, ringTimeout: ringTimeout)
        configuration.sendsTrying = sendsTrying
        configuration.localContact = SIPNameAddress(uri: try SIPURI(parsing: "sip:alice@192.0.2.10:5060;transport=tcp"))
        self.transaction = try InviteServerTransaction(invite: request, localTag: "as1", configuration: configuration)
    }

    mutating func apply(_ actions: [Action]) {
        for action in actions {
            switch action {
            case .send(let response): self.sent.append((self.now, response))
            case .setTimer(let id, let after): self.timers[id] = self.now + after
            case .cancelTimer(let id): self.timers[id] = nil
            case .ended, .terminated: self.events.append(action)
            }
        }
    }

    mutating func receive(_ bytes: [UInt8]) throws {
        let request = try #require(try SIPMessage(parsing: bytes).request)
        self.apply(self.transaction.receive(request))
    }

    mutating func advance(by duration: Duration) {
        let target = self.now + duration
        while let (id, deadline) = self.timers.filter({ $0.value <= target }).min(by: { $0.value < $1.value }) {
            self.now = deadline
            self.timers[id] = nil
            self.apply(self.transaction.timerFired(id))
        }
        self.now = target
    }

    var statusCodes: [Int] { self.sent.map(\.response.statusCode) }
    var sendTimes: [Double] { self.sent.map { Double($0.at.components.seconds) + Double($0.at.components.attoseconds) / 1e18 } }
}

@Suite struct InviteServerTransactionTests {
    static let ack = Fixtures.message([
        "ACK sip:alice@192.0.2.10:5060;transport=tcp SIP/2.0",
        "Via: SIP/2.0/TCP 192.0.2.1:5060;branch=z9hG4bK776asdhds;rport=5060;received=192.0.2.1",
        "Max-Forwards: 70",
        "To: Alice <sip:alice@example.com>;tag=as1",
        "From: <sip:bob@example.com>;tag=1928301774",
        "Call-ID: a84b4c76e66710@pc33.example.com",
        "CSeq: 314159 ACK",
        "Content-Length: 0",
    ])

    @Test func ringsWithATagAndRemembersTheDialog() throws {
        var driver = try InviteDriver(reliable: true)
        driver.apply(driver.transaction.start())
        #expect(driver.statusCodes == [100, 180])
        #expect(driver.sent[0].response.headers[.to] == "Alice <sip:alice@example.com>")
        #expect(
            driver.sent[1].response.serialized().text
                == [
                    "SIP/2.0 180 Ringing",
                    "Via: SIP/2.0/TCP 192.0.2.1:5060;branch=z9hG4bK776asdhds;rport=5060;received=192.0.2.1",
                    "Via: SIP/2.0/UDP 198.51.100.7:5080;branch=z9hG4bKnashds8",
                    "From: \"Bob \\\"The Builder\\\"\" <sip:bob@example.com>;tag=1928301774",
                    "To: Alice <sip:alice@example.com>;tag=as1",
                    "Call-ID: a84b4c76e66710@pc33.example.com",
                    "CSeq: 314159 INVITE",
                    "Contact: <sip:alice@192.0.2.10:5060;transport=tcp>",
                    "Content-Length: 0", "", "",
                ].joined(separator: "\r\n")
        )
        let transaction = driver.transaction
        #expect(transaction.dialog == SIPDialogID(callID: "a84b4c76e66710@pc33.example.com", localTag: "as1", remoteTag: "1928301774"))
        #expect(transaction.caller.displayName == "Bob \"The Builder\"")
        #expect(transaction.caller.uri.description == "sip:bob@example.com")
        #expect(transaction.remoteTarget?.description == "sip:bob@198.51.100.7:5080")
        #expect(transaction.state == .proceeding)
        #expect(Set(driver.timers.keys.map(\.kind)) == [.ringTimeout])
        #expect(driver.transaction.start().isEmpty, "rings once")
    }

    @Test func ringsWithOnlyA180ByDefault() throws {
        // RFC 3261 section 17.2.1: a 100 is optional when the user agent answers within 200 ms, as it rings at once.
        #expect(InviteServerTransaction.Configuration(reliable: false).sendsTrying == false)
        var driver = try InviteDriver(reliable: false, sendsTrying: false)
        driver.apply(driver.transaction.start())
        #expect(driver.statusCodes == [180])
        #expect(driver.sent[0].response.headers[.to] == "Alice <sip:alice@example.com>;tag=as1")
    }

    @Test func acceptRedirectsAndRetransmitsOverUDPUntilTheACK() throws {
        var driver = try InviteDriver(reliable: false)
        driver.apply(driver.transaction.start())
        let softphone = SIPNameAddress(uri: try SIPURI(parsing: "sip:alice@198.51.100.20:5062"))
        driver.advance(by: .seconds(2))
        driver.apply(driver.transaction.accept(redirectingTo: softphone))
        #expect(driver.statusCodes == [100, 180, 302])
        #expect(driver.sent[2].response.headers[.contact] == "<sip:alice@198.51.100.20:5062>")
        #expect(driver.sent[2].response.headers[.to] == "Alice <sip:alice@example.com>;tag=as1")
        #expect(driver.events == [.ended(.redirected(softphone))])
        driver.advance(by: .seconds(4))  // timer G at 0.5, 1.5 and 3.5 s after the 302
        #expect(driver.sendTimes.suffix(4) == [2, 2.5, 3.5, 5.5])
        try driver.receive(Self.ack)
        #expect(driver.transaction.state == .confirmed)
        #expect(Set(driver.timers.keys.map(\.kind)) == [.linger])
        try driver.receive(Self.ack)
        #expect(driver.statusCodes.count == 6, "ACK copies are absorbed")
        driver.advance(by: .seconds(5))
        #expect(driver.events.last == .terminated)
        #expect(driver.timers.isEmpty)
    }

    @Test func withoutAnACKTheFinalResponseIsRetransmittedUntilTimerH() throws {
        var driver = try InviteDriver(reliable: false, ringTimeout: nil)
        driver.apply(driver.transaction.start())
        driver.apply(driver.transaction.decline())
        driver.advance(by: .seconds(40))
        #expect(driver.sendTimes.dropFirst(2) == [0, 0.5, 1.5, 3.5, 7.5, 11.5, 15.5, 19.5, 23.5, 27.5, 31.5])
        #expect(driver.statusCodes.dropFirst(2).allSatisfy { $0 == 603 })
        #expect(driver.events == [.ended(.declined), .terminated])
        #expect(driver.timers.isEmpty)
    }

    @Test func declineOverTCPEndsAtTheACK() throws {
        var driver = try InviteDriver(reliable: true)
        driver.apply(driver.transaction.start())
        driver.apply(driver.transaction.decline())
        #expect(driver.statusCodes == [100, 180, 603])
        #expect(driver.sent[2].response.reasonPhrase == "Decline")
        #expect(Set(driver.timers.keys.map(\.kind)) == [.ackTimeout])
        try driver.receive(Self.ack)
        #expect(driver.events == [.ended(.declined), .terminated])
        #expect(driver.timers.isEmpty)
    }

    @Test func cancelWhileRingingGets200And487() throws {
        var driver = try InviteDriver(reliable: true)
        driver.apply(driver.transaction.start())
        try driver.receive(Fixtures.cancel)
        #expect(driver.statusCodes == [100, 180, 200, 487])
        let ok = driver.sent[2].response
        #expect(try ok.headers.cseq == SIPCSeq(314159, .cancel))
        #expect(try ok.headers.to.tag == "as1")
        let terminated = driver.sent[3].response
        #expect(try terminated.headers.cseq == SIPCSeq(314159, .invite))
        #expect(terminated.reasonPhrase == "Request Terminated")
        #expect(driver.events == [.ended(.cancelled)])
        #expect(driver.transaction.outcome == .cancelled)
        #expect(!driver.timers.keys.contains { $0.kind == .ringTimeout })
        // Too late to accept: nothing more is sent.
        driver.apply(driver.transaction.accept(redirectingTo: SIPNameAddress(uri: try SIPURI(parsing: "sip:x@example.com"))))
        #expect(driver.statusCodes.count == 4)
        // A repeated CANCEL still gets its 200, and the ACK for the 487 ends the transaction.
        try driver.receive(Fixtures.cancel)
        #expect(driver.statusCodes == [100, 180, 200, 487, 200])
        try driver.receive(Self.ack)
        #expect(driver.events.last == .terminated)
    }

    @Test func aCancelForAnotherTransactionIsNotOurs() throws {
        var driver = try InviteDriver(reliable: true)
        driver.apply(driver.transaction.start())
        let other = Array(Fixtures.cancel.text.replacing("z9hG4bK776asdhds", with: "z9hG4bKother").utf8)
        let request = try #require(try SIPMessage(parsing: other).request)
        #expect(!driver.transaction.matches(request))
        #expect(driver.transaction.receive(request).isEmpty)
        // The plugin answers such a CANCEL itself.
        #expect(SIPResponse.answering(request, statusCode: 481).reasonPhrase == "Call/Transaction Does Not Exist")
    }

    @Test func theRingTimeoutAnswers480() throws {
        var driver = try InviteDriver(reliable: true, ringTimeout: .seconds(30))
        driver.apply(driver.transaction.start())
        driver.advance(by: .seconds(29))
        #expect(driver.statusCodes == [100, 180])
        driver.advance(by: .seconds(1))
        #expect(driver.statusCodes == [100, 180, 480])
        #expect(driver.sent[2].response.reasonPhrase == "Temporarily Unavailable")
        #expect(driver.events == [.ended(.notAnswered)])
    }

    @Test func retransmittedInvitesGetTheLastResponseAgain() throws {
        var driver = try InviteDriver(reliable: false)
        driver.apply(driver.transaction.start())
        try driver.receive(Fixtures.invite)
        #expect(driver.statusCodes == [100, 180, 180])
        driver.apply(driver.transaction.busy())
        try driver.receive(Fixtures.invite)
        #expect(driver.statusCodes == [100, 180, 180, 486, 486])
    }

    @Test func otherFinalResponses() throws {
        var driver = try InviteDriver(reliable: true)
        driver.apply(driver.transaction.start())
        #expect(driver.transaction.respond(statusCode: 200).isEmpty, "only non-2xx finals")
        driver.apply(driver.transaction.respond(statusCode: 488))
        #expect(driver.sent.last?.response.reasonPhrase == "Not Acceptable Here")
        #expect(driver.events == [.ended(.rejected(488))])
    }

    @Test func matchesRFC2543PeersByTheirHeaders() throws {
        let old = Array(Fixtures.invite.text.replacing(";branch=z9hG4bK776asdhds", with: ";branch=1").utf8)
        var driver = try InviteDriver(reliable: true, invite: old)
        driver.apply(driver.transaction.start())
        driver.apply(driver.transaction.decline())
        let ack = Array(Self.ack.text.replacing(";branch=z9hG4bK776asdhds", with: ";branch=1").utf8)
        let wrongTag = Array(ack.text.replacing("tag=as1", with: "tag=zz").utf8)
        try driver.receive(wrongTag)
        #expect(driver.events == [.ended(.declined)])
        try driver.receive(ack)
        #expect(driver.events == [.ended(.declined), .terminated])
    }

    @Test func transactionKeysFileACKAndCANCELWithTheirInvite() throws {
        let invite = try #require(try SIPMessage(parsing: Fixtures.invite).request)
        let ack = try #require(try SIPMessage(parsing: Self.ack).request)
        let cancel = try #require(try SIPMessage(parsing: Fixtures.cancel).request)
        let key = try #require(SIPServerTransactionKey(invite))
        #expect(SIPServerTransactionKey(ack) == key)
        #expect(SIPServerTransactionKey(cancel) != key)
        #expect(SIPServerTransactionKey(cancel)?.forCancelledInvite == key)
    }

    @Test func refusesRequestsItCannotAnswer() throws {
        let cancel = try #require(try SIPMessage(parsing: Fixtures.cancel).request)
        let configuration = InviteServerTransaction.Configuration(reliable: true)
        expectParseError(.startLine) { _ = try InviteServerTransaction(invite: cancel, localTag: "t", configuration: configuration) }
        var invite = try #require(try SIPMessage(parsing: Fixtures.invite).request)
        invite.headers.remove(.callID)
        expectParseError(.missingHeader) { _ = try InviteServerTransaction(invite: invite, localTag: "t", configuration: configuration) }
        invite = try #require(try SIPMessage(parsing: Fixtures.invite).request)
        invite.headers.set(.cseq, "1 BYE")
        expectParseError(.headerValue) { _ = try InviteServerTransaction(invite: invite, localTag: "t", configuration: configuration) }
    }
}
