import SIPCore
import Testing

/// A binding that runs out before a refresh succeeds is reported as lapsed then, not when the refresh's
/// transaction gives up later.
@Suite struct RegistrationLapseTests {
    @Test func aBindingWhoseRefreshIsUnansweredLapsesAtItsExpiry() throws {
        var driver = try RegistrationDriver(transport: "UDP")
        driver.start()
        try driver.respondOK(expires: 60)
        #expect(driver.lastGrant?.refreshAfter == .seconds(54))
        driver.advance(by: .seconds(54))
        #expect(driver.sent.count == 2, "the refresh went out")
        // The registrar is silent: timer F would give up at 54 + 32 = 86 s, long after the binding ended.
        driver.advance(by: .milliseconds(5999))
        #expect(driver.machine.phase == .registered)
        driver.advance(by: .milliseconds(1))
        #expect(driver.machine.phase == .failed)
        #expect(driver.lastFailure?.code == .transient)
        #expect(driver.lastFailure?.message == "the binding lapsed after its 60 s without a successful refresh (the refresh is still unanswered)")
        #expect(driver.timers.isEmpty)
    }

    @Test func aSuccessfulRefreshMovesTheExpiry() throws {
        var driver = try RegistrationDriver(transport: "UDP")
        driver.start()
        try driver.respondOK(expires: 60)
        driver.advance(by: .seconds(54))
        try driver.respondOK(expires: 60)
        driver.advance(by: .seconds(50))
        #expect(driver.machine.phase == .registered)
        #expect(driver.reports.count == 2)
        #expect(driver.timerKinds == [.refresh, .expiry])
    }
}

/// What the registrar says about a refused token (RFC 6750 `error_description`) reaches the message,
/// never the token.
@Suite struct RegistrationRefusalTests {
    @Test func theErrorDescriptionIsShownWithoutTheToken() throws {
        var driver = try RegistrationDriver(credentials: .bearer("secret.token"))
        driver.start()
        driver.respond(401, [(.wwwAuthenticate, "Bearer realm=\"example.com\"")])
        driver.respond(
            401,
            [(.wwwAuthenticate, "Bearer realm=\"example.com\", error=\"invalid_token\", error_description=\"token secret.token expired at 12:00\"")]
        )
        let failure = try #require(driver.lastFailure)
        #expect(failure.code == .authentication)
        #expect(
            failure.message
                == "the registrar refused the bearer token (401 again after answering its challenge): invalid_token (token [the token] expired at 12:00)"
        )
    }
}
