#if canImport(Glibc)
import Glibc
#endif

/// Where and how the simulator listens, and the secrets and clock it uses.
package struct SimulatorConfiguration: Sendable {
    /// The address every socket binds to. Loopback: the simulator is for tests and the demo.
    package var host: String = "127.0.0.1"
    /// The SIP port; UDP and TCP listen on the same number. 0 picks a free one.
    package var sipPort: Int = 0
    /// The HTTP port of the token endpoint and the control API. 0 picks a free one.
    package var httpPort: Int = 0
    /// The SIP domain: the realm of Bearer challenges and the host of every address of record.
    package var domain: String = "sim.attendant.test"
    /// The HS256 key that signs and verifies tokens.
    package var signingKey: [UInt8]
    /// How long an issued token is valid.
    package var tokenLifetime: Duration = .seconds(3600)
    /// How long (real time) the token endpoint waits before it answers: a slow token service.
    package var tokenDelay: Duration = .zero
    /// The token issuer (`iss`), a Twilio-style account SID.
    package var accountSID: String = "ACsimulator"
    /// The CXone chat gateway's brand, channel and behaviour.
    package var cxone = CXoneGatewaySettings()
    /// The GMS chat server's service, scripted agent and CometD timings.
    package var gms = GMSServerSettings()
    /// The KARTE track endpoint's app key, campaigns and gzip answers.
    package var karte = KarteServerSettings()
    /// The Genesys Cloud web messaging deployment: file profile, authentication, scripted agent.
    package var genesys = GenesysMessagingSettings()
    /// The current time in Unix seconds. Token `exp`/`nbf` checks and binding expiry use only this, so a
    /// test can move time without sleeping.
    package var now: @Sendable () -> Double

    package init(
        host: String = "127.0.0.1",
        sipPort: Int = 0,
        httpPort: Int = 0,
        domain: String = "sim.attendant.test",
        signingKey: [UInt8]? = nil,
        tokenLifetime: Duration = .seconds(3600),
        accountSID: String = "ACsimulator",
        cxone: CXoneGatewaySettings = CXoneGatewaySettings(),
        gms: GMSServerSettings = GMSServerSettings(),
        karte: KarteServerSettings = KarteServerSettings(),
        genesys: GenesysMessagingSettings = GenesysMessagingSettings(),
        now: @escaping @Sendable () -> Double = SimulatorConfiguration.wallClock
    ) {
        self.host = host
        self.sipPort = sipPort
        self.httpPort = httpPort
        self.domain = domain
        self.signingKey = signingKey ?? (0..<32).map { _ in UInt8.random(in: .min ... .max) }
        self.tokenLifetime = tokenLifetime
        self.accountSID = accountSID
        self.cxone = cxone
        self.gms = gms
        self.karte = karte
        self.genesys = genesys
        self.now = now
    }

    /// The system's wall clock, in Unix seconds.
    @Sendable package static func wallClock() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

extension Duration {
    /// The duration in whole seconds, rounded down.
    var wholeSeconds: Int { Int(self.components.seconds) }

    var secondsAsDouble: Double {
        Double(self.components.seconds) + Double(self.components.attoseconds) / 1e18
    }
}
