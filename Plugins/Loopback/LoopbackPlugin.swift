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
///   later on the host's clock, with "Echo: " and the text (default false);
/// - `listen-failures`: the first this many attempts to listen fail (default 0), with the error class
///   `listen-failure`: `transient`, `authentication` or `configuration` (default `transient`), to show
///   the daemon's recovery, sign-in and health reporting without a real server;
/// - `stop-delay`: stopping takes this long (default 0) and ignores cancellation, as a stuck plugin would,
///   to show that the daemon drops a channel that does not stop within its `shutdown-timeout`.
///
/// Requests: `accept` and `decline` for a ringing contact; `ring` (arguments `caller`, `summary`) raises
/// a contact now; `drop` (argument `reason`) reports that the channel stopped listening; `report`
/// returns what the host told the channel. With `contact-kind = "chat"`: `prepare`, `connect`,
/// `view-page`, `list-threads`, `create-thread` (custom field `name` names the thread), `open-thread`,
/// `send-message` and `end-conversation`, in the order a chat allows (`.illegalState` otherwise).
public final class LoopbackPluginFactory: ChannelPluginFactory {
    public let name = "loopback"
    public let kind = ChannelKind.voice
    public let version = "1.0.0"

    public init() {}

    public func makeChannel(settings: ChannelSettings, host: any ChannelHost) throws -> any Channel {
        LoopbackChannel(configuration: try LoopbackConfiguration(settings), host: host)
    }
}

/// The Loopback channel's settings.
struct LoopbackConfiguration: Sendable {
    var contactInterval: Duration?
    var ringTimeout: Duration = .seconds(30)
    var caller = Party(displayName: "Loopback Caller", address: "loopback:caller")
    var contactKind = ContactKind.call
    var listenFailures = 0
    var listenFailure = ChannelError.Code.transient
    var echoAgent = false
    /// How long the scripted agent takes to answer.
    var echoDelay = Duration.seconds(1)
    var stopDelay = Duration.zero

    init() {}

    init(_ settings: ChannelSettings) throws {
        if let interval = try settings.duration("contact-interval") {
            guard interval > .zero else { throw settings.error("contact-interval", "must be longer than zero") }
            self.contactInterval = interval
        }
        if let timeout = try settings.duration("ring-timeout") {
            guard timeout > .zero else { throw settings.error("ring-timeout", "must be longer than zero") }
            self.ringTimeout = timeout
        }
        if let name = try settings.string("caller") { self.caller.displayName = name }
        if let address = try settings.string("caller-address") { self.caller.address = address }
        if let kind = try settings.string("contact-kind") {
            guard ["call", "chat", "action"].contains(kind) else {
                throw settings.error("contact-kind", "expected \"call\", \"chat\" or \"action\", found \"\(kind)\"")
            }
            self.contactKind = ContactKind(kind)
        }
        if let echo = try settings.bool("echo-agent") { self.echoAgent = echo }
        if let failures = try settings.integer("listen-failures") {
            guard failures >= 0 else { throw settings.error("listen-failures", "must be zero or more") }
            self.listenFailures = failures
        }
        if let delay = try settings.duration("stop-delay") {
            guard delay >= .zero else { throw settings.error("stop-delay", "must not be negative") }
            self.stopDelay = delay
        }
        if let failure = try settings.string("listen-failure") {
            switch failure {
            case "transient": self.listenFailure = .transient
            case "authentication": self.listenFailure = .authentication
            case "configuration": self.listenFailure = .configuration
            default:
                throw settings.error("listen-failure", "expected \"transient\", \"authentication\" or \"configuration\", found \"\(failure)\"")
            }
        }
    }
}
