import AttendantPluginAPI
import AttendantPluginKit
import SIPCore

/// What goes into a REGISTER: credentials from the channel's token, the instance ID, Contact and Via.
extension SIPVoiceChannel {
    // MARK: Credentials and addresses

    /// The credentials for the next REGISTER, from the host's token.
    ///
    /// Without a token source the channel cannot work until its configuration changes; a source without
    /// a valid token yet (expired, failing) is a sign-in problem, and the host starts the channel again
    /// when a valid token arrives.
    func credentials(for tokenState: ChannelTokenState) async throws(ChannelError) -> RegistrationCredentials {
        let authentication = self.configuration.authentication
        if authentication == .none { return .none }
        let token: ChannelToken
        switch tokenState {
        case .available(let available):
            token = available
        case .noSource:
            throw ChannelError(.configuration, "\(self.prefix): authentication = \"\(authentication.rawValue)\" needs a token, and the channel has no token source; set token-command, token-url, token-file or token-credential in its [[channel]] table")
        case .unavailable(let reason):
            throw ChannelError(.authentication, "\(self.prefix): authentication = \"\(authentication.rawValue)\" needs a valid token, and the channel's token source has none: \(reason); the channel listens again as soon as its token source gives a valid token")
        @unknown default:
            throw ChannelError(.authentication, "\(self.prefix): authentication = \"\(authentication.rawValue)\" needs a valid token, and the host has none for the channel (\(tokenState))")
        }
        switch authentication {
        case .bearer:
            return .bearer(token.value)
        case .digest:
            return .digest(DigestCredentials(username: self.configuration.username, password: token.value))
        case .ephemeral:
            let renewal = self.ephemeral(secret: token.value)
            self.driver.withState { $0.agent.credentialsExpiry = renewal.expiry }
            return renewal.credentials
        case .none:
            return .none
        }
    }

    /// Ephemeral credentials made from `secret` now, and when they expire.
    func ephemeral(secret: String) -> Agent.Renewal {
        let expiry = Int64(self.host.now().secondsSince1970) + self.configuration.ephemeralLifetime.components.seconds
        let credentials = EphemeralCredentials.make(user: self.configuration.username, secret: secret, expiry: expiry, hash: self.configuration.ephemeralHash, hashing: self.host.hashing)
        return Agent.Renewal(credentials: .digest(credentials), expiry: expiry)
    }

    /// The `+sip.instance` URN: configured, or made once and kept in the channel's store, so that every
    /// registration of this channel (also after a restart) replaces its own binding instead of adding one.
    func instanceID() async throws(ChannelError) -> String {
        if let configured = self.configuration.instanceID { return configured }
        do {
            if let stored = try await self.host.store.value(forKey: "instance-id") { return stored }
            let made = self.driver.withState { $0.agent.identifiers.instanceID() }
            try await self.host.store.setValue(made, forKey: "instance-id")
            return made
        } catch {
            throw ChannelError(.transient, "\(self.prefix): cannot keep the instance ID in the state store: \(error)")
        }
    }

    /// What goes into every REGISTER on `transport`.
    func registrationConfiguration(transport: SIPTransport, instanceID: String) -> RegistrationConfiguration {
        var builder = SIPRegisterBuilder(registrar: self.configuration.registrar, addressOfRecord: self.configuration.addressOfRecord, local: transport.address)
        builder.displayName = self.configuration.displayName
        builder.instanceID = instanceID
        builder.outbound = self.configuration.outbound
        var registration = RegistrationConfiguration(builder: builder, expires: self.configuration.registerExpires)
        registration.maximumExpires = self.configuration.maximumExpires
        registration.timers = self.configuration.timers
        return registration
    }
}
