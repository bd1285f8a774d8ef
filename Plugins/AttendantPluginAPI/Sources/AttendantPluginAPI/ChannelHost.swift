// MARK: - Host API

/// What the daemon gives each channel: its token, a way to report events, persistent storage, time and a
/// logger. A channel keeps the host it was made with for its whole life.
public protocol ChannelHost: Sendable {
    /// The channel's configured name (`name = "…"` in its `[[channel]]` table).
    var channelName: String { get }

    /// A logger whose metadata already carries `channel`; add `contact` for contact-related messages.
    var logger: Logger { get }

    /// The clock every timer of the channel uses. Tests inject a manual clock to compress hours of
    /// keep-alive cycles, heartbeats and ring timeouts into milliseconds, so never use another clock.
    var clock: any Clock<Duration> { get }

    /// Wall-clock time consistent with ``clock``: use it for token expiry, visit windows and timestamps.
    func now() -> UnixTime

    /// The channel's persistent key-value store and outbox, kept across restarts.
    var store: any ChannelStore { get }

    /// The channel's secrets, kept across restarts apart from the state database (since API 1.2).
    var secrets: any ChannelSecrets { get }

    /// The channel's current capability token, or `nil` when there is no valid one: either the channel has
    /// no token source, or the source has not given a valid token yet. ``tokenState()`` tells which.
    func currentToken() async -> ChannelToken?

    /// Whether the channel has a token, and if not, why (since API 1.3).
    ///
    /// A channel that needs a token and finds none must tell the two cases apart: without a token source
    /// it fails with ``ChannelError/Code/configuration`` (the user must add one); with a source that has no
    /// valid token yet it fails with ``ChannelError/Code/authentication`` ("sign-in needed"), and the host
    /// starts it again as soon as a valid token arrives.
    func tokenState() async -> ChannelTokenState

    /// Asks for a new token now (for example after the server refused the current one).
    ///
    /// The host also renews tokens on its own before they expire and then calls
    /// ``Channel/tokenDidChange(_:)``; call this only when the server says the token is no good.
    /// - Throws: ``ChannelError`` with code `.authentication` when no token can be had.
    func renewToken() async throws -> ChannelToken

    /// Reports something that happened on the channel. Returns at once; events are delivered in order.
    ///
    /// The daemon records what an event carries (a contact, an action, how one ended) before any later
    /// write of this channel to ``store`` lands. So a channel that keeps what it reported (messages shown,
    /// a contact started) should emit first and write after: killed in between, it comes back with a
    /// contact the history has and its store does not, and may report it again (the history keeps one
    /// contact per id), rather than the reverse, which it would never report again.
    func emit(_ event: ChannelEvent)

    /// The network: HTTP, WebSocket, UDP and TCP flows on the host's one I/O stack (since API 1.4).
    var network: any ChannelNetwork { get }

    /// Hashes and HMACs (since API 1.4).
    var hashing: any ChannelHashing { get }

    /// Opens a link for the person at the desk, as the desktop's policy says (since API 1.6): only
    /// `http`, `https` and the schemes the user allowed; a registered URL handler (a D-Bus client or a
    /// configured command) may claim it first; otherwise `xdg-open`. Every refused link is logged by the
    /// host. Returns when the link was handed over (or not), within the handler's time limit.
    func openURL(_ url: String) async -> LinkOpenOutcome
}

extension ChannelHost {
    /// A host built against API 1.3 or older lends no network.
    public var network: any ChannelNetwork { NoChannelNetwork() }

    /// A host built against API 1.3 or older computes no hashes: a plugin that needs them is refused by
    /// such a host (it was built for a newer minor version), so this is never reached in a daemon.
    public var hashing: any ChannelHashing { UnavailableHashing() }

    /// A host built against API 1.0 or 1.1 keeps no secrets.
    public var secrets: any ChannelSecrets { NoChannelSecrets() }

    /// A host built against API 1.2 or older knows only ``currentToken()``; it reports a missing token as
    /// a missing source.
    public func tokenState() async -> ChannelTokenState {
        if let token = await self.currentToken() { .available(token) } else { .noSource }
    }
}
