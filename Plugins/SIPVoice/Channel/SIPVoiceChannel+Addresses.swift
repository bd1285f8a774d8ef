import AttendantPluginAPI
import AttendantPluginKit
import SIPCore

/// What goes into a REGISTER (credentials from the channel's token, the instance ID, Contact and Via), and the
/// `registration` report of what is registered where.
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
            return self.withState { self.ephemeral(secret: token.value, state: &$0) }
        case .none:
            return .none
        }
    }

    func ephemeral(secret: String, state: inout State) -> RegistrationCredentials {
        let expiry = Int64(self.host.now().secondsSince1970) + self.configuration.ephemeralLifetime.components.seconds
        state.ephemeralExpiry = expiry
        return .digest(EphemeralCredentials.make(user: self.configuration.username, secret: secret, expiry: expiry, hash: self.configuration.ephemeralHash, hashing: self.host.hashing))
    }

    /// The `+sip.instance` URN: configured, or made once and kept in the channel's store, so that every
    /// registration of this channel (also after a restart) replaces its own binding instead of adding one.
    func instanceID() async throws(ChannelError) -> String {
        if let configured = self.configuration.instanceID { return configured }
        do {
            if let stored = try await self.host.store.value(forKey: "instance-id") { return stored }
            let made = self.withState { $0.identifiers.instanceID() }
            try await self.host.store.setValue(made, forKey: "instance-id")
            return made
        } catch {
            throw ChannelError(.transient, "\(self.prefix): cannot keep the instance ID in the state store: \(error)")
        }
    }

    func contactURI(_ transport: SIPTransport) -> SIPURI {
        let host = transport.localHost.contains(":") ? "[\(transport.localHost)]" : transport.localHost
        var parameters = SIPParameters()
        if transport.kind == .tcp { parameters.set("transport", "tcp") }
        return SIPURI(scheme: "sip", user: self.configuration.addressOfRecord.user, host: host, port: transport.localPort, parameters: parameters)
    }

    func registrationConfiguration(transport: SIPTransport, instanceID: String) -> RegistrationConfiguration {
        let host = transport.localHost.contains(":") ? "[\(transport.localHost)]" : transport.localHost
        var builder = SIPRegisterBuilder(
            registrar: self.configuration.registrar,
            addressOfRecord: self.configuration.addressOfRecord,
            contact: self.contactURI(transport),
            viaTransport: transport.kind.rawValue,
            viaHost: host,
            viaPort: transport.localPort
        )
        builder.displayName = self.configuration.displayName
        builder.instanceID = instanceID
        builder.outbound = self.configuration.outbound
        var registration = RegistrationConfiguration(builder: builder, expires: self.configuration.registerExpires)
        registration.maximumExpires = self.configuration.maximumExpires
        registration.timers = self.configuration.timers
        return registration
    }

    func registrationReport() -> [String: String] {
        self.withState { state in
            var fields: [String: String] = [
                "listening": state.listening ? "yes" : "no",
                "phase": state.machine.map { "\($0.phase)" } ?? "idle",
                "registrations": String(state.registrations),
                "ringing": String(state.calls.ringingCount),
                // Waiting on the network: a listen under way, a REGISTER unanswered, a keep-alive or stop waiting.
                "busy": state.pendingListens > 0 || state.machine?.isAwaitingResponse == true || !state.refreshWaiters.isEmpty
                    || state.stopWaiter != nil ? "yes" : "no",
            ]
            if let grant = state.grant {
                fields["expires"] = String(grant.expires)
                fields["outbound"] = grant.outbound ? "yes" : "no"
                if let flowTimer = grant.flowTimer { fields["flow-timer"] = String(flowTimer) }
            }
            if let registeredAt = state.registeredAt { fields["registered-at"] = registeredAt.description }
            if let transport = state.transport { fields["local-address"] = "\(transport.localHost):\(transport.localPort)" }
            return fields
        }
    }
}
