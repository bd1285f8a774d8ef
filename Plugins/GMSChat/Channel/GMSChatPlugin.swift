public import AttendantPluginAPI

// The plugin's two entry symbols (see PluginExport).

@_cdecl("attendant_plugin_api_version")
public func attendantPluginAPIVersion() -> UInt32 {
    PluginExport.builtAgainstVersion()
}

@_cdecl("attendant_plugin_factory")
public func attendantPluginFactory() -> UnsafeMutableRawPointer {
    PluginExport.factory(GMSChatPluginFactory())
}

/// The GMSChat plugin: a Genesys GMS customer chat over CometD (Bayeux 1.0), in GMS's chat API v2 (the
/// chat over CometD) or v1 (the chat over HTTP, its events over CometD, as the GMS push-notification page
/// shows it). The session survives the desktop's sleep as the page prescribes: `/meta/disconnect` with the
/// transcript position on the way into the background, a new session and the events after that position
/// on the way back, each shown once and in order.
///
/// Settings (`[channel.gms-chat]`):
/// - `url` (required): GMS's base, such as `https://gms.example.com:8443/genesys`;
/// - `cometd-url`: the CometD endpoint, if not `<url>/cometd`;
/// - `api-version`: 2 (default) or 1;
/// - `service`: v2 the chat service (`/service/chatV2/<service>`, default `customer-support`), v1 the
///   service `request-chat` asks for (default `request-chat`);
/// - `transport`: `websocket` (default; falls back to long-polling when the upgrade fails) or `long-polling`;
/// - `nickname`, or `first-name` and `last-name`; `email`, `subject`: what GMS tells the agent;
/// - `gms-user` (v1): the `gms_user` header (default: the channel's name);
/// - `auto-start` (default false): `listen()` starts a chat when there is none;
/// - `network-delay` (10 s): added to the server's hold for a connect's time limit, and every other request's.
///
/// Requests: `prepare`/`connect` (start a chat), `send-message`, `typing`, `end-conversation`,
/// `list-threads` and `open-thread` (the thread with its last 20 messages), `load-older-messages`,
/// v2's `download-attachment` and `send-file` (GMS's HTTP file management), and the custom `chat-status`
/// (as fields).
public final class GMSChatPluginFactory: ChannelPluginFactory {
    public let name = "gms-chat"
    public let kind = ChannelKind.chat
    public let version = "1.0.0"

    /// The seed's push title: GMS's `New message from Agent`, whoever the agent is.
    public let defaultChatAlertTitle: String? = "New message from Agent"

    public init() {}

    public func makeChannel(settings: ChannelSettings, host: any ChannelHost) throws -> any Channel {
        GMSChatChannel(configuration: try GMSChatConfiguration(settings, channelName: host.channelName), host: host)
    }
}
