import AttendantPluginAPI
import SIPCore
import Testing

/// What the host's keep-alive does with a registered binding.
@Suite struct RegistrationKeepAliveTests {
    static let registered = UnixTime(secondsSince1970: 1_800_000_000)

    static func decide(after seconds: Double, credentialsExpiry: Int64? = nil) -> RegistrationKeepAlive {
        RegistrationKeepAlive.decide(
            now: UnixTime(secondsSince1970: 1_800_000_000 + seconds),
            registeredAt: Self.registered,
            grantedExpires: 600,
            credentialsExpiry: credentialsExpiry,
            cycle: 600
        )
    }

    @Test func aBindingYoungerThanHalfItsLifeIsFreshAndAnOlderOneIsRefreshed() {
        #expect(Self.decide(after: 60) == .fresh)
        #expect(Self.decide(after: 299) == .fresh)
        #expect(Self.decide(after: 300) == .refresh)
        #expect(
            RegistrationKeepAlive.decide(now: Self.registered, registeredAt: nil, grantedExpires: 600, credentialsExpiry: nil, cycle: 600)
                == .refresh,
            "never registered"
        )
    }

    @Test func ephemeralCredentialsThatWouldNotOutliveTheNextCycleAreRenewedFirst() {
        // They expire 1,199 s from now: less than two cycles.
        #expect(Self.decide(after: 1, credentialsExpiry: 1_800_001_200) == .renewCredentials)
        // A day left: the binding's age decides.
        #expect(Self.decide(after: 1, credentialsExpiry: 1_800_086_400) == .fresh)
        #expect(Self.decide(after: 400, credentialsExpiry: 1_800_086_400) == .refresh)
    }
}
