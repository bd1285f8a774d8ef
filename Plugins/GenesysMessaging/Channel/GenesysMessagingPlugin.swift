public import AttendantPluginAPI

// The plugin's two entry symbols (see PluginExport).

@_cdecl("attendant_plugin_api_version")
public func attendantPluginAPIVersion() -> UInt32 {
    PluginExport.builtAgainstVersion()
}

@_cdecl("attendant_plugin_factory")
public func attendantPluginFactory() -> UnsafeMutableRawPointer {
    PluginExport.factory(GenesysMessagingPluginFactory())
}

/// The genesys-messaging plugin: a Genesys Cloud web messaging conversation (the successor of GMS chat),
/// as the Messenger transport SDK holds one: one WebSocket, configured with a session token the channel
/// makes once and keeps in its secrets, so the conversation outlives restarts.
///
/// Settings (`[channel.genesys-messaging]`):
/// - `deployment-id` (required): the Messenger deployment;
/// - `domain`: the region's domain, such as `mypurecloud.com`; or `endpoint`: `host:port` of a custom
///   endpoint (plain `ws://` and `http://`, the SDK's `TRANSPORT_CUSTOM_ENDPOINT`);
/// - `auto-start`: send autostart after a new session (default: the deployment's `autoStart`);
/// - `request-timeout` (10 s): how long a send waits for the service's copy;
/// - `max-attachment-size` (25 MiB): the largest attachment fetched, in bytes;
/// - `redirect-uri`, `code-verifier`: with a token source (whose token is then an OAuth code, exchanged for
///   a JWT: an authenticated session), what the code was issued with.
///
/// Requests: `prepare`/`connect` (nothing to do: `listen()` configures the session), `create-thread` (a new
/// chat after the conversation went read-only), `list-threads`, `open-thread`, `send-message`, `typing`,
/// `choose` (quick replies and card buttons), `download-attachment`, `send-file`, `end-conversation` (only once the agent ended it) and the
/// custom `chat-status` (as fields).
public final class GenesysMessagingPluginFactory: ChannelPluginFactory {
    public let name = "genesys-messaging"
    public let kind = ChannelKind.chat
    public let version = "1.0.0"

    public init() {}

    public func makeChannel(settings: ChannelSettings, host: any ChannelHost) throws -> any Channel {
        GenesysMessagingChannel(configuration: try GenesysMessagingConfiguration(settings), host: host)
    }
}
