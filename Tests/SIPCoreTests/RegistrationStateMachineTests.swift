import AttendantPluginKit
import AttendantPluginTestKit
import SIPCore
import TestSupport
import Testing

@Suite(.cpuBound) struct RegistrationStateMachineTests {
    static let digestChallenge: SIPHeaders = [
        (.wwwAuthenticate, "Digest realm=\"example.com\", nonce=\"n1\", qop=\"auth\", algorithm=SHA-256"),
        (.wwwAuthenticate, "Digest realm=\"example.com\", nonce=\"n1\", qop=\"auth\", algorithm=MD5"),
    ]
    static let alice = RegistrationCredentials.digest(DigestCredentials(username: "alice", password: "secret"))

    @Test func registersAndRefreshesAtNinetyPercent() throws {
        var driver = try RegistrationDriver()
        driver.start()
        #expect(driver.machine.phase == .registering)
        #expect(driver.sent.count == 1)
        #expect(driver.lastRequest.method == .register)
        #expect(driver.lastRequest.expiresHeader == "600")
        #expect(driver.timerKinds == [.transactionTimeout, .probe], "no retransmissions over TCP; a fresh REGISTER if unanswered after T2")
        try driver.respondOK(expires: 600)
        #expect(driver.lastGrant == RegistrationGrant(expires: 600, refreshAfter: .seconds(540), outbound: false, flowTimer: nil))
        #expect(driver.machine.phase == .registered)
        #expect(driver.timerKinds == [.refresh, .expiry])
        driver.advance(by: .seconds(539))
        #expect(driver.sent.count == 1)
        driver.advance(by: .seconds(1))
        #expect(driver.sent.count == 2)
        let refresh = driver.lastRequest
        #expect(refresh.cseqNumber == 2)
        #expect(try refresh.headers.callID == driver.machine.callID)
        #expect(try refresh.headers.from.tag == driver.machine.fromTag)
        #expect(refresh.branch != driver.sent[0].request.branch)
        // The binding stays registered while it is refreshed.
        #expect(driver.machine.phase == .registered)
        try driver.respondOK(expires: 300)
        #expect(driver.lastGrant?.refreshAfter == .seconds(270))
        #expect(driver.reports.count == 2)
    }

    @Test func retransmitsOverUDPOnTimerEAndGivesUpAfter64T1() throws {
        var driver = try RegistrationDriver(transport: "UDP")
        driver.start()
        #expect(driver.timerKinds == [.retransmit, .transactionTimeout])
        driver.advance(by: .seconds(40))
        let times = driver.sent.map { Double($0.at.components.seconds) + Double($0.at.components.attoseconds) / 1e18 }
        #expect(times == [0, 0.5, 1.5, 3.5, 7.5, 11.5, 15.5, 19.5, 23.5, 27.5, 31.5])
        #expect(Set(driver.sent.map(\.request)).count == 1, "a retransmission is the same request")
        #expect(driver.lastFailure?.code == .transient)
        #expect(driver.lastFailure?.statusCode == 408)
        #expect(driver.lastFailure?.message == "the registrar did not answer REGISTER within 32 s")
        #expect(driver.timers.isEmpty)
        #expect(driver.machine.phase == .failed)
    }

    @Test func aProvisionalResponseSlowsRetransmissionsToT2() throws {
        var driver = try RegistrationDriver(transport: "UDP")
        driver.start()
        driver.advance(by: .milliseconds(600))  // one retransmission at 0.5 s; next due at 1.5 s
        driver.respond(100)
        driver.advance(by: .milliseconds(900))  // 1.5 s: timer E fires in Proceeding and resets to T2
        driver.advance(by: .seconds(8))
        let times = driver.sent.map { Double($0.at.components.seconds) + Double($0.at.components.attoseconds) / 1e18 }
        #expect(times == [0, 0.5, 1.5, 5.5, 9.5])
        try driver.respondOK()
        #expect(driver.machine.phase == .registered)
        #expect(driver.timerKinds == [.refresh, .expiry])
    }

    @Test func intervalTooBriefRetriesWithMinExpires() throws {
        var driver = try RegistrationDriver()
        driver.start()
        driver.respond(423, [(.minExpires, "1200")])
        #expect(driver.lastRequest.expiresHeader == "1200")
        try driver.respondOK(expires: 1200)
        #expect(driver.lastGrant?.expires == 1200)
        driver.refresh()
        #expect(driver.lastRequest.expiresHeader == "1200", "refreshes keep the raised interval")
    }

    @Test(arguments: [[(SIPHeaderName.minExpires, "600")], [], [(.minExpires, "100000")], [(.minExpires, "soon")]] as [[(SIPHeaderName, String)]])
    func unusableIntervalTooBriefIsAConfigurationFailure(headers: [(SIPHeaderName, String)]) throws {
        var driver = try RegistrationDriver()
        driver.start()
        driver.respond(423, SIPHeaders(headers.map { SIPHeaderField($0.0, $0.1) }))
        #expect(driver.lastFailure?.code == .configuration)
        #expect(driver.lastFailure?.statusCode == 423)
    }

    @Test(arguments: [
        (503, RegistrationError.Code.transient), (500, .transient), (504, .transient), (408, .transient), (480, .transient),
        (403, .authentication), (404, .configuration), (302, .configuration), (400, .configuration), (420, .configuration),
        (603, .configuration),
    ])
    func finalResponsesAreClassed(statusCode: Int, code: RegistrationError.Code) throws {
        var driver = try RegistrationDriver()
        driver.start()
        driver.respond(statusCode, statusCode == 503 ? [(.retryAfter, "120 (maintenance)")] : [])
        #expect(driver.lastFailure?.code == code)
        #expect(driver.lastFailure?.statusCode == statusCode)
        #expect(driver.timers.isEmpty)
        #expect(driver.machine.phase == .failed)
        if statusCode == 503 { #expect(driver.lastFailure?.retryAfter == 120) }
    }

    @Test func failureMessagesSayWhatToDo() throws {
        var driver = try RegistrationDriver()
        driver.start()
        driver.respond(404)
        #expect(
            driver.lastFailure?.message == "the registrar does not know sip:alice@example.com (404 Not Found): check the address of record and domain"
        )
        driver.start()
        driver.respond(403)
        #expect(
            driver.lastFailure?.message
                == "the registrar refuses to register sip:alice@example.com (403 Forbidden): the credentials or token are not accepted"
        )
    }

    @Test func outboundGrantCarriesTheFlowTimerAndMatchesOurInstance() throws {
        var driver = try RegistrationDriver(outbound: true)
        driver.start()
        #expect(driver.lastRequest.headers[.supported] == "outbound, path")
        #expect(try driver.lastRequest.headers.contacts.first?.registrationID == 1)
        // The registrar lists another device's binding first; ours is found by +sip.instance.
        let other = SIPNameAddress(uri: try SIPURI(parsing: "sip:alice@203.0.113.9"), parameters: [SIPParameter("expires", "3600")])
        var mine = try #require(try driver.lastRequest.headers.contacts.first)
        mine.parameters.set("expires", "300")
        driver.respond(200, [(.contact, other.description), (.contact, mine.description), (.require, "outbound"), (.flowTimer, "120")])
        #expect(driver.lastGrant == RegistrationGrant(expires: 300, refreshAfter: .seconds(270), outbound: true, flowTimer: 120))
    }

    @Test func fallsBackToTheExpiresHeaderAndRefusesAZeroGrant() throws {
        var driver = try RegistrationDriver()
        driver.start()
        driver.respond(200, [(.expires, "3600")])
        #expect(driver.lastGrant?.expires == 3600)
        driver.refresh()
        var contact = try #require(try driver.lastRequest.headers.contacts.first)
        contact.parameters.set("expires", "0")
        driver.respond(200, [], contact: contact)
        #expect(driver.lastFailure?.code == .transient)
    }

    @Test func aBrokenTransportFailsAndClearsTimers() throws {
        var driver = try RegistrationDriver()
        driver.start()
        try driver.respondOK()
        driver.transportFailed()
        #expect(driver.lastFailure == RegistrationError(.transient, "the connection to the registrar failed: connection reset"))
        #expect(driver.timers.isEmpty)
        driver.transportFailed()
        #expect(driver.reports.count == 2, "a second report of the same failure says nothing new")
        driver.start()
        #expect(driver.machine.phase == .registering)
    }

    @Test func startingAgainAfterAFailureForgetsTheCachedChallenge() throws {
        // A restarted registrar does not know the old nonce (kamailio's auth_ephemeral answers it with 403,
        // not a new challenge), so the next attempt must begin without it.
        var driver = try RegistrationDriver(credentials: Self.alice)
        driver.start()
        driver.respond(401, Self.digestChallenge)
        try driver.respondOK()
        driver.transportFailed()
        driver.start()
        #expect(driver.lastRequest.authorization == nil, "the first REGISTER of a new attempt carries no stale answer")
        driver.respond(401, [(.wwwAuthenticate, "Digest realm=\"example.com\", nonce=\"n9\", qop=\"auth\", algorithm=MD5")])
        #expect(driver.lastRequest.authorization?.nonce == "n9")
        #expect(driver.lastRequest.authorization?.parameters["nc"] == "00000001")
        try driver.respondOK()
        #expect(driver.machine.phase == .registered)
    }

    @Test func aNewLocalAddressAppliesFromTheNextStart() throws {
        var driver = try RegistrationDriver()
        var configuration = driver.machine.configuration
        configuration.builder.viaPort = 40000
        configuration.builder.contact = try SIPURI(parsing: "sip:alice@192.0.2.10:40000;transport=tcp")
        driver.start()
        let whileRegistering = driver.machine.reconfigure(configuration)
        #expect(!whileRegistering, "not while registering")
        driver.transportFailed()
        let afterFailure = driver.machine.reconfigure(configuration)
        #expect(afterFailure)
        driver.start()
        #expect(try driver.lastRequest.headers.topVia.port == 40000)
        #expect(try driver.lastRequest.headers.contacts.first?.uri.port == 40000)
        #expect(try driver.lastRequest.headers.callID == driver.machine.callID)
        #expect(driver.lastRequest.cseqNumber == 2)
    }

    @Test func ignoresStrayResponsesAndStaleTimers() throws {
        var driver = try RegistrationDriver(transport: "UDP")
        driver.start()
        let first = driver.lastRequest
        var stray = SIPResponse.answering(first, statusCode: 200)
        stray.headers.set(.via, "SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bKother")
        #expect(driver.machine.receive(stray).isEmpty)
        var wrongSequence = SIPResponse.answering(first, statusCode: 200)
        wrongSequence.headers.set(.cseq, "99 REGISTER")
        #expect(driver.machine.receive(wrongSequence).isEmpty)
        let staleTimer = try #require(driver.timers.keys.first { $0.kind == .retransmit })
        driver.advance(by: .milliseconds(500))
        #expect(driver.machine.timerFired(staleTimer).isEmpty, "a timer fires once")
        try driver.respondOK()
        #expect(driver.machine.receive(SIPResponse.answering(first, statusCode: 200)).isEmpty, "a late copy of the final response")
        #expect(driver.machine.start().isEmpty, "start while registered does nothing")
        #expect(driver.machine.refresh().count == 4, "refresh: cancel the refresh timer, send, arm E and F")
    }

    @Test func aDaysWorthOfCyclesOnTheVirtualClock() throws {
        var driver = try RegistrationDriver(transport: "UDP", credentials: Self.alice)
        driver.start()
        driver.respond(401, Self.digestChallenge)
        try driver.respondOK()
        for _ in 0..<160 {  // 160 refreshes at 540 s: 24 hours
            driver.advance(by: .seconds(540))
            driver.advance(by: .milliseconds(20))
            try driver.respondOK()
        }
        #expect(driver.reports.count == 161)
        #expect(driver.reports.allSatisfy { if case .registered = $0 { true } else { false } })
        #expect(driver.lastRequest.authorization?.parameters["nc"] == String(nonceCount: 161))
        #expect(driver.lastRequest.cseqNumber == 162)
    }
}
