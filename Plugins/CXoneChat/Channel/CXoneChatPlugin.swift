public import AttendantPluginAPI

// The plugin's two entry symbols (see PluginExport).

@_cdecl("attendant_plugin_api_version")
public func attendantPluginAPIVersion() -> UInt32 {
    PluginExport.builtAgainstVersion()
}

@_cdecl("attendant_plugin_factory")
public func attendantPluginFactory() -> UnsafeMutableRawPointer {
    PluginExport.factory(CXoneChatPluginFactory())
}

/// The CXoneChat plugin: a NICE CXone customer chat, as the CXone mobile SDK runs it, on the chat
/// gateway's WebSocket and the channel's REST endpoints. Agent messages and new threads reach the desktop;
/// the user chats through `attendantctl chat …`.
///
/// Settings (`[channel.cxone-chat]`):
/// - `brand-id` (required): the brand (tenant) id, a number;
/// - `channel-id` (required): the chat channel's id;
/// - `region`: the CXone region (`na1`, `eu1`, `au1`, `ca1`, `uk1`, `jp1`), or instead
///   `socket-url` (`wss://…`, the chat gateway) and `chat-url` (`https://…/chat`, the REST base), with
///   `host-url` for web-analytics (default: chat-url's scheme and host);
/// - `first-name`, `last-name`: the customer's names (with OAuth the server's win);
/// - `auto-connect` (default true): `listen()` prepares and connects the chat; off, the user does it;
/// - `code-verifier`: the PKCE code verifier; with OAuth the channel's token is the authorization code;
/// - `page-title`, `page-url`: a page view reported once prepared;
/// - `heartbeat-interval` (10 s), `pong-timeout` (5 s), `response-timeout` (10 s), `reconnect-attempts`
///   (20), `max-backoff` (30 s): the SDK's timings;
/// - `max-attachment-size` (25 MiB): the largest attachment fetched, in bytes.
///
/// Requests: `prepare`, `connect`, `view-page`, `list-threads`, `create-thread`, `open-thread`,
/// `send-message`, `end-conversation`, and the custom `chat-status` and `pre-chat-form` (as fields).
public final class CXoneChatPluginFactory: ChannelPluginFactory {
    public let name = "cxone-chat"
    public let kind = ChannelKind.chat
    public let version = "1.0.0"

    public init() {}

    public func makeChannel(settings: ChannelSettings, host: any ChannelHost) throws -> any Channel {
        CXoneChatChannel(configuration: try CXoneChatConfiguration(settings), host: host)
    }
}
