import AttendantPluginAPI
import AttendantPluginKit
import SIPCore

/// What goes into a REGISTER: credentials from the channel's token, the instance ID, Contact and Via.
extension SIPVoiceChannel {
    // MARK: Credentials and addresses

    /// The credentials for the next REGISTER, from the host's token (SIPCore's ``SIPCredentialSource``
    /// decides); the agent keeps when ephemeral ones expire.
    func credentials(for tokenState: ChannelTokenState) throws(ChannelError) -> RegistrationCredentials {
        let made = try self.configuration.credentialSource.credentials(
            for: tokenState,
            now: self.host.now(),
            hashing: self.host.hashing,
            prefix: self.prefix
        )
        if let expiry = made.expiry { self.driver.withState { $0.agent.credentialsExpiry = expiry } }
        return made.credentials
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
        var builder = SIPRegisterBuilder(
            registrar: self.configuration.registrar,
            addressOfRecord: self.configuration.addressOfRecord,
            local: transport.address(scheme: self.configuration.contactScheme)
        )
        builder.displayName = self.configuration.displayName
        builder.instanceID = instanceID
        builder.outbound = self.configuration.outbound
        var registration = RegistrationConfiguration(builder: builder, expires: self.configuration.registerExpires)
        registration.maximumExpires = self.configuration.maximumExpires
        registration.timers = self.configuration.timers
        return registration
    }
}
