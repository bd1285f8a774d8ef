public import AttendantPluginAPI

/// Holds a channel's token and renews it. The token manager (token sources, JWT expiry, renewal
/// schedule) implements it; a channel without a token source gets ``NoTokenKeeper``.
public protocol TokenKeeper: Sendable {
    func current() async -> ChannelToken?
    func renew() async throws -> ChannelToken
}

/// The keeper of a channel that has no token source configured: there is no token, and none can be had.
public struct NoTokenKeeper: TokenKeeper {
    public let channelName: String

    public init(channelName: String) { self.channelName = channelName }

    public func current() async -> ChannelToken? { nil }

    public func renew() async throws -> ChannelToken {
        throw ChannelError(
            .authentication,
            "channel \"\(self.channelName)\" has no token source configured, so no new token can be had"
        )
    }
}
