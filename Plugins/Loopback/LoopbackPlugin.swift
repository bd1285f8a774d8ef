public import AttendantPluginAPI

// The plugin's two entry symbols (see PluginExport).

@_cdecl("attendant_plugin_api_version")
public func attendantPluginAPIVersion() -> UInt32 {
    PluginExport.builtAgainstVersion()
}

@_cdecl("attendant_plugin_factory")
public func attendantPluginFactory() -> UnsafeMutableRawPointer {
    PluginExport.factory(LoopbackPluginFactory())
}

/// The Loopback plugin: a channel with no server behind it. It raises incoming contacts on a timer or
/// on request and records what the host told it, for the demo and for testing the daemon end to end.
///
/// Settings (`[channel.loopback]`):
/// - `contact-interval`: raise a contact this often while listening (default: only on request);
/// - `ring-timeout`: an unanswered contact becomes missed after this long (default 30 s);
/// - `caller`, `caller-address`: who the contacts come from;
/// - `contact-kind`: `call`, `chat` or `action` (default `call`); with `chat` the channel also answers
///   the chat requests from an in-memory chat (see ``LoopbackChat``);
/// - `echo-agent`: with `contact-kind = "chat"`, a scripted agent answers every message sent, a second
///   later on the host's clock, with "Echo: " and the text, and `menu`, `file` and `idle` with quick
///   replies, a file and the inactivity prompt (see ``LoopbackAgent``; default false);
/// - `listen-failures`: the first this many attempts to listen fail (default 0), with the error class
///   `listen-failure`: `transient`, `authentication` or `configuration` (default `transient`), to show
///   the daemon's recovery, sign-in and health reporting without a real server;
/// - `listen-retry-after`: the delay each such failure asks for, as a server's Retry-After does;
/// - `stop-delay`: stopping takes this long (default 0) and ignores cancellation, as a stuck plugin would,
///   to show that the daemon drops a channel that does not stop within its `shutdown-timeout`.
///
/// Requests: `accept` and `decline` for a ringing contact; `ring` (arguments `caller`, `summary`) raises
/// a contact now; `drop` (argument `reason`) reports that the channel stopped listening; `report`
/// returns what the host told the channel. With `contact-kind = "chat"`: `prepare`, `connect`,
/// `view-page`, `list-threads`, `create-thread` (custom field `name` names the thread), `open-thread`,
/// `send-message`, `end-conversation`, `choose`, `mark-read`, `load-older-messages`,
/// `download-attachment`, `send-file`, `idle` (argument `thread`: the inactivity prompt now) and
/// `chat-status`, in the order a chat allows (`.illegalState` otherwise).
public final class LoopbackPluginFactory: ChannelPluginFactory {
    public let name = "loopback"
    public let kind = ChannelKind.voice
    public let version = "1.0.0"

    public init() {}

    public func makeChannel(settings: ChannelSettings, host: any ChannelHost) throws -> any Channel {
        LoopbackChannel(configuration: try LoopbackConfiguration(settings), host: host)
    }
}
