import AttendantPluginKit
import SIPCore
import Testing

/// Unregistering: the binding removed with `Expires: 0`, and a stop that ends whatever the registrar does.
extension RegistrationStateMachineTests {
    @Test func stopRemovesTheBinding() throws {
        var driver = try RegistrationDriver()
        driver.start()
        try driver.respondOK()
        driver.stop()
        #expect(driver.machine.phase == .unregistering)
        #expect(driver.lastRequest.expiresHeader == "0")
        #expect(driver.timerKinds == [.transactionTimeout])
        driver.respond(200)
        #expect(driver.lastReport == .unregistered)
        #expect(driver.machine.phase == .idle)
        #expect(driver.timers.isEmpty)
    }

    @Test func stopDuringTheFirstRegisterWaitsForItsAnswer() throws {
        var driver = try RegistrationDriver()
        driver.start()
        driver.stop()
        #expect(driver.sent.count == 1, "no second REGISTER while the first is pending")
        try driver.respondOK()
        #expect(driver.sent.count == 2)
        #expect(driver.lastRequest.expiresHeader == "0")
        #expect(driver.reports.isEmpty)
        driver.respond(200)
        #expect(driver.reports == [.unregistered])
    }

    @Test func stopEndsEvenIfTheRegistrarIsSilentOrRefuses() throws {
        var driver = try RegistrationDriver(transport: "UDP")
        driver.start()
        try driver.respondOK()
        driver.stop()
        driver.advance(by: .seconds(32))
        #expect(driver.lastReport == .unregistered)
        #expect(driver.timers.isEmpty)

        var refused = try RegistrationDriver(credentials: Self.alice)
        refused.start()
        refused.respond(401, Self.digestChallenge)
        try refused.respondOK()
        refused.stop()
        refused.respond(401, [(.wwwAuthenticate, "Digest realm=\"example.com\", nonce=\"n9\"")])
        #expect(refused.lastRequest.authorization?.nonce == "n9", "the unregister answers a new challenge too")
        refused.respond(500)
        #expect(refused.lastReport == .unregistered)

        var early = try RegistrationDriver()
        early.start()
        early.stop()
        early.respond(503)
        #expect(early.reports == [.unregistered])
    }
}
