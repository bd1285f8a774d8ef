package import AttendantPluginAPI

/// Holds a channel's token and renews it. ``TokenManager`` (token sources, JWT expiry, renewal
/// schedule) implements it; a channel without a token source gets ``NoTokenKeeper``.
package protocol TokenKeeper: Sendable {
    func current() async -> ChannelToken?
    /// The token, or why there is none: no source at all, or a source without a valid token now.
    func state() async -> ChannelTokenState
    func renew() async throws -> ChannelToken
    /// How the token is doing, for `attendantctl channels` and `health`; nil without a token source.
    func health() async -> TokenHealth?
    /// How long the current token stays valid (negative once it expired); nil when there is no token
    /// or its lifetime is unknown. The supervisor asks before each keep-alive.
    func remainingLifetime() async -> Duration?
    /// Runs the keeper's own schedule (renewing before expiry, retrying failures) until cancelled,
    /// handing each new token to `onRenewal`, in order. The channel supervisor runs it beside its loop
    /// and passes the tokens to the channel. Keepers without a schedule return at once.
    func run(onRenewal: @escaping @Sendable (ChannelToken) async -> Void) async
}

extension TokenKeeper {
    package func state() async -> ChannelTokenState {
        if let token = await self.current() { .available(token) } else { .unavailable(reason: "no token has been had yet") }
    }
    package func health() async -> TokenHealth? { nil }
    package func remainingLifetime() async -> Duration? { nil }
    package func run(onRenewal: @escaping @Sendable (ChannelToken) async -> Void) async {}
}

/// A channel's token, as the control API reports it (never the token's value).
package struct TokenHealth: Sendable, Hashable {
    /// When the current token expires, if it says.
    package var expiresAt: UnixTime?
    /// When the token was last renewed, and whether that worked.
    package var lastRenewal: UnixTime?
    package var lastRenewalError: String?
    /// Renewals that failed in a row.
    package var consecutiveFailures: Int
    /// A fetch from the token source is under way.
    package var renewing = false

    package init(expiresAt: UnixTime? = nil, lastRenewal: UnixTime? = nil, lastRenewalError: String? = nil, consecutiveFailures: Int = 0) {
        self.expiresAt = expiresAt
        self.lastRenewal = lastRenewal
        self.lastRenewalError = lastRenewalError
        self.consecutiveFailures = consecutiveFailures
    }
}

/// The keeper of a channel that has no token source configured: there is no token, and none can be had.
package struct NoTokenKeeper: TokenKeeper {
    package let channelName: String

    package init(channelName: String) { self.channelName = channelName }

    package func current() async -> ChannelToken? { nil }

    package func state() async -> ChannelTokenState { .noSource }

    package func renew() async throws -> ChannelToken {
        throw ChannelError(
            .authentication,
            "channel \"\(self.channelName)\" has no token source configured, so no new token can be had"
        )
    }
}
