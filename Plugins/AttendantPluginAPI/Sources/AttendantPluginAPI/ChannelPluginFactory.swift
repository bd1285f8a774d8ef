// MARK: - Plugin SPI

/// What a plugin library hands the host: a description of the plugin and a way to make channels.
///
/// One factory serves every channel of the configuration that names this plugin. The factory is created
/// once, when its library is loaded, and lives as long as the daemon (plugin code is never unloaded).
///
/// Obligations:
/// - ``name`` is the name the configuration uses in `plugin = "…"`, lower case letters, digits and `-`.
///   It also names the table of the plugin's own settings: `[channel.<name>]`.
/// - ``makeChannel(settings:host:)`` reads and checks every setting the plugin understands, and does no
///   I/O: `attendantd --check-config` calls it to validate a configuration and then drops the channel
///   without ever calling ``Channel/listen()``. Any setting present in the table that it did not read is
///   reported to the user as an unknown key.
public protocol ChannelPluginFactory: AnyObject, Sendable {
    /// The plugin's name as used in the configuration, for example `loopback` or `sip-voice`.
    var name: String { get }

    /// What the plugin's channels carry.
    var kind: ChannelKind { get }

    /// The plugin's own version, shown by `attendantctl status` and logged on load.
    var version: String { get }

    /// Makes a channel from its settings.
    ///
    /// - Throws: ``SettingsError`` for bad settings (the error names the key), or any other error when
    ///   the channel cannot be made; the host reports it and keeps running the other channels.
    func makeChannel(settings: ChannelSettings, host: any ChannelHost) throws -> any Channel

    /// The title of the desktop alerts for this plugin's chat messages when a channel sets no
    /// `chat-alert-title` (since API 1.5; nil, the default, keeps the host's "New message from {sender}").
    /// It may use the same placeholders as that key: `{sender}`, `{channel}`, `{thread}`.
    var defaultChatAlertTitle: String? { get }
}

extension ChannelPluginFactory {
    public var defaultChatAlertTitle: String? { nil }
}

/// The kind of contacts a channel carries.
public struct ChannelKind: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Calls: SIP and other telephony.
    public static let voice = ChannelKind("voice")
    /// Conversations with agents: CXone, Genesys GMS.
    public static let chat = ChannelKind("chat")
    /// In-app actions and campaigns: KARTE-style messages.
    public static let actions = ChannelKind("actions")

    public var description: String { self.rawValue }
}
