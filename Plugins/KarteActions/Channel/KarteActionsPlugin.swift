public import AttendantPluginAPI

// The plugin's two entry symbols (see PluginExport).

@_cdecl("attendant_plugin_api_version")
public func attendantPluginAPIVersion() -> UInt32 {
    PluginExport.builtAgainstVersion()
}

@_cdecl("attendant_plugin_factory")
public func attendantPluginFactory() -> UnsafeMutableRawPointer {
    PluginExport.factory(KarteActionsPluginFactory())
}

/// The KarteActions plugin: KARTE in-app messaging on a Linux desktop. The channel tracks the person's
/// events to KARTE's track API (`POST {url}/v0/native/track`, gzip, batched as the SDKs batch) and shows
/// the campaign actions KARTE answers with as desktop notifications, by the rules of KARTE's iOS and
/// Android SDKs (resets, suppress, display limit mode, `message_*` events back).
///
/// Settings (`[channel.karte-actions]`):
/// - `url`: the track API's base (default `https://b.karte.io`);
/// - the app key (32 characters, a secret): the channel's token (`token-file`, `token-command`, …), else
///   `app-key` in the channel's entry of `secrets.json`;
/// - `app-version` (default the plugin's version): `native_app_install`/`native_app_update` go by it;
/// - `suppress-persists` (default false, as the SDKs): suppress survives a daemon restart;
/// - `request-timeout` (default 10 s, Android's);
/// - `start-view`: a `view` tracked when the channel first starts, as an app opening on its first screen.
public final class KarteActionsPluginFactory: ChannelPluginFactory {
    public let name = "karte-actions"
    public let kind = ChannelKind.actions
    public let version = KarteActionsChannel.pluginVersion

    public init() {}

    public func makeChannel(settings: ChannelSettings, host: any ChannelHost) throws -> any Channel {
        KarteActionsChannel(configuration: try KarteActionsConfiguration(settings), host: host)
    }
}
