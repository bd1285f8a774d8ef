import SIPCore
import Testing

/// Over TCP nothing retransmits an unanswered REGISTER (RFC 3261 section 17.1.2.2): a registrar that
/// dropped it and answers again would only be tried after timer F's 32 s. The machine sends a fresh
/// REGISTER every T2 instead, so the registrar is used within seconds of answering again, as over UDP.
@Suite struct RegistrationProbeTests {
    static func seconds(_ sent: [(at: Duration, request: SIPRequest)]) -> [Int64] { sent.map(\.at.components.seconds) }

    @Test func overTCPAnUnansweredREGISTERIsFollowedByAFreshOneEveryT2() throws {
        var driver = try RegistrationDriver()
        driver.start()
        driver.advance(by: .milliseconds(3999))
        #expect(driver.sent.count == 1, "a registrar that answers within T2 gets one REGISTER")
        driver.advance(by: .milliseconds(8001))
        #expect(Self.seconds(driver.sent) == [0, 4, 8, 12])
        let first = driver.sent[0].request
        for (index, (_, request)) in driver.sent.enumerated() {
            // A new transaction for the same binding (RFC 3261 section 10.2.4): same Call-ID, From tag,
            // Contact and Expires; a new branch and the next CSeq.
            #expect(request.branch != nil && driver.sent.filter { $0.request.branch == request.branch }.count == 1)
            #expect(request.cseqNumber == first.cseqNumber.map { $0 + UInt32(index) })
            #expect(request.headers[.callID] == first.headers[.callID] && request.headers[.from] == first.headers[.from])
            #expect(request.headers[.contact] == first.headers[.contact] && request.expiresHeader == first.expiresHeader)
        }
        #expect(driver.machine.phase == .registering)
        // The registrar was slow, not deaf: its answer to the first REGISTER registers.
        var contact = try #require(try first.headers.contacts.first)
        contact.parameters.set("expires", "600")
        driver.apply(driver.machine.receive(.answering(first, statusCode: 200, toTag: "reg1", contact: contact)))
        #expect(driver.machine.phase == .registered)
        #expect(driver.lastGrant?.expires == 600)
        #expect(driver.timerKinds == [.refresh, .expiry], "no fresh REGISTER is due")
        // The answers to the others change nothing.
        driver.apply(driver.machine.receive(.answering(driver.lastRequest, statusCode: 500, toTag: "reg1")))
        #expect(driver.machine.phase == .registered && driver.reports.count == 1)
        driver.advance(by: .seconds(60))
        #expect(driver.sent.count == 4)
    }

    @Test func anAnswerToTheLatestREGISTERRegistersAndEndsTheProbes() throws {
        var driver = try RegistrationDriver(credentials: .bearer("header.payload.signature"))
        driver.start()
        driver.respond(401, [(.wwwAuthenticate, "Bearer realm=\"example.com\"")])
        driver.advance(by: .seconds(9))
        #expect(Self.seconds(driver.sent) == [0, 0, 4, 8])
        #expect(driver.sent.dropFirst().allSatisfy { $0.request.headers[.authorization] == "Bearer header.payload.signature" })
        try driver.respondOK()
        #expect(driver.machine.phase == .registered)
        driver.advance(by: .seconds(60))
        #expect(driver.sent.count == 4)
        // A late 401 for a REGISTER that was given up is no second challenge.
        driver.apply(
            driver.machine.receive(
                .answering(driver.sent[1].request, statusCode: 401, toTag: "reg1", extraHeaders: [(.wwwAuthenticate, "Bearer realm=\"example.com\"")])
            )
        )
        #expect(driver.machine.phase == .registered && driver.reports.count == 1)
    }

    @Test func overTCPASilentRegistrarStillFailsAtTimerFOfTheFirstREGISTER() throws {
        var driver = try RegistrationDriver()
        driver.start()
        driver.advance(by: .milliseconds(31999))
        #expect(driver.machine.phase == .registering)
        #expect(Self.seconds(driver.sent) == [0, 4, 8, 12, 16, 20, 24, 28])
        driver.advance(by: .milliseconds(1))
        #expect(driver.lastFailure?.message == "the registrar did not answer REGISTER within 32 s")
        #expect(driver.lastFailure?.statusCode == 408)
        #expect(driver.timers.isEmpty)
    }

    @Test func aRefreshOverTCPIsProbedTooAndTheBindingStays() throws {
        var driver = try RegistrationDriver()
        driver.start()
        try driver.respondOK(expires: 600)
        driver.advance(by: .seconds(540))
        #expect(driver.sent.count == 2, "the refresh")
        driver.advance(by: .seconds(4))
        #expect(driver.sent.count == 3)
        try driver.respondOK(expires: 600)
        #expect(driver.machine.phase == .registered && driver.reports.count == 2)
        #expect(driver.timerKinds == [.refresh, .expiry])
    }

    @Test func aProvisionalAnswerOrUDPMeansNoFreshREGISTER() throws {
        var tcp = try RegistrationDriver()
        tcp.start()
        tcp.respond(100)
        tcp.advance(by: .seconds(20))
        #expect(tcp.sent.count == 1, "the registrar has the REGISTER and works on it")
        var udp = try RegistrationDriver(transport: "UDP")
        udp.start()
        udp.advance(by: .seconds(12))
        #expect(Set(udp.sent.map(\.request)).count == 1, "over UDP timer E retransmits the same request")
    }

    @Test func noFreshREGISTERWhileUnregistering() throws {
        var driver = try RegistrationDriver()
        driver.start()
        driver.stop()
        driver.advance(by: .seconds(20))
        #expect(driver.sent.count == 1, "the stop waits for the REGISTER in flight, which is not repeated")
        driver.respond(200)
        #expect(driver.lastRequest.expiresHeader == "0")
        driver.advance(by: .seconds(20))
        #expect(driver.sent.count == 2, "nor is the unregistration")
    }
}
