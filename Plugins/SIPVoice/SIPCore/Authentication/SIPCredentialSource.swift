package import AttendantPluginAPI

/// How a channel's token becomes the credentials of its REGISTERs.
package struct SIPCredentialSource: Sendable, Hashable {
    package enum Kind: String, Sendable, CaseIterable {
        /// The token is a bearer token (JWT) for `Authorization: Bearer` (RFC 8898).
        case bearer
        /// The token is the Digest password of `username`.
        case digest
        /// The token is the shared secret of time-limited Digest credentials (Kamailio `auth_ephemeral`):
        /// the channel derives username `<expiry>:<user>` and its password itself.
        case ephemeral
        /// No credentials: a challenge is a configuration error.
        case none
    }

    package var kind: Kind
    /// The Digest user, and the user of ephemeral credentials.
    package var username: String
    package var ephemeralLifetime: Duration
    package var ephemeralHash: EphemeralCredentials.Hash

    package init(kind: Kind, username: String, ephemeralLifetime: Duration = .seconds(3600), ephemeralHash: EphemeralCredentials.Hash = .sha1) {
        self.kind = kind
        self.username = username
        self.ephemeralLifetime = ephemeralLifetime
        self.ephemeralHash = ephemeralHash
    }

    /// The credentials for the next REGISTER from the host's token, and when ephemeral ones expire.
    ///
    /// Without a token source the channel cannot work until its configuration changes (a configuration
    /// error); a source without a valid token yet (expired, failing) is a sign-in problem, and the host
    /// starts the channel again when a valid token arrives.
    package func credentials(
        for tokenState: ChannelTokenState,
        now: UnixTime,
        hashing: any ChannelHashing,
        prefix: String
    ) throws(ChannelError) -> (credentials: RegistrationCredentials, expiry: Int64?) {
        if self.kind == .none { return (.none, nil) }
        let token: ChannelToken
        switch tokenState {
        case .available(let available):
            token = available
        case .noSource:
            throw ChannelError(
                .configuration,
                "\(prefix): authentication = \"\(self.kind.rawValue)\" needs a token, and the channel has no token source; set token-command, token-url, token-file or token-credential in its [[channel]] table"
            )
        case .unavailable(let reason):
            throw ChannelError(
                .authentication,
                "\(prefix): authentication = \"\(self.kind.rawValue)\" needs a valid token, and the channel's token source has none: \(reason); the channel listens again as soon as its token source gives a valid token"
            )
        @unknown default:
            throw ChannelError(
                .authentication,
                "\(prefix): authentication = \"\(self.kind.rawValue)\" needs a valid token, and the host has none for the channel (\(tokenState))"
            )
        }
        switch self.kind {
        case .bearer:
            return (.bearer(token.value), nil)
        case .digest:
            return (.digest(DigestCredentials(username: self.username, password: token.value)), nil)
        case .ephemeral:
            let renewal = self.ephemeral(secret: token.value, now: now, hashing: hashing)
            return (renewal.credentials, renewal.expiry)
        case .none:
            return (.none, nil)
        }
    }

    /// Ephemeral credentials made from `secret` at `now`, and when they expire.
    package func ephemeral(secret: String, now: UnixTime, hashing: any ChannelHashing) -> SIPAgent.Renewal {
        let expiry = Int64(now.secondsSince1970) + self.ephemeralLifetime.components.seconds
        let credentials = EphemeralCredentials.make(user: self.username, secret: secret, expiry: expiry, hash: self.ephemeralHash, hashing: hashing)
        return SIPAgent.Renewal(credentials: .digest(credentials), expiry: expiry)
    }
}
