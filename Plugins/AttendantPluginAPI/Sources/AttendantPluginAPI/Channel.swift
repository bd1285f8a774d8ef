// MARK: - Plugin SPI

/// One configured connection to a contact-centre service: the thing that listens for incoming contacts.
///
/// The host's supervisor drives a channel through its life:
///
/// ```
/// listen() ──▶ listening ──keepAlive() every cycle──▶ …
///     ▲             │ host.emit(.stoppedListening(error))   (the channel noticed it stopped)
///     └─ backoff ◀──┘
/// stopListening() when the channel is removed, reconfigured or the daemon stops
/// ```
///
/// The host calls the methods of one channel one at a time, never concurrently, except
/// ``perform(_:)``, which may run while the supervisor calls others. Every method may be cancelled; a
/// method that does not return within the host's time limits is treated as a transient failure.
///
/// Obligations:
/// - ``listen()`` returns once the channel can receive contacts, and throws a ``ChannelError`` if it
///   cannot. After it returned, the channel reports losing that ability on its own with
///   `host.emit(.stoppedListening(error))`; it does not retry on its own: the host decides when to call
///   ``listen()`` again, with backoff and token renewal.
/// - Errors carry a ``ChannelError/Code``: `.transient` (network, server busy: retried with backoff),
///   `.authentication` (credentials refused: the host renews the token once, then asks the user to sign
///   in) or `.configuration` (retrying cannot help: the channel stops and is reported).
/// - Channels never log or emit token values.
public protocol Channel: AnyObject, Sendable {
    /// Connects and registers for incoming contacts; returns when listening.
    func listen() async throws

    /// Leaves gracefully: unregisters, says goodbye to the server. Called before the channel is dropped;
    /// must not throw and should finish within a few seconds.
    func stopListening() async

    /// Refreshes the registration; called once per keep-alive cycle (600 s by default) while listening,
    /// after the host has made sure the token outlives the next cycle. Throwing means the channel is no
    /// longer listening.
    func keepAlive() async throws

    /// The host renewed the channel's token. The channel starts using it without a gap in listening
    /// (for example by re-registering with the new credentials).
    func tokenDidChange(_ token: ChannelToken) async

    /// The desktop session went to the background (suspend, lock) or came back.
    func applicationStateDidChange(_ state: ApplicationState) async

    /// Carries out a user operation (accept a call, send a chat message, dismiss an action, …).
    ///
    /// - Throws: ``ChannelError`` with code `.unsupported` for requests this channel does not handle,
    ///   `.illegalState` when the request does not fit the channel's state.
    func perform(_ request: ChannelRequest) async throws -> ChannelReply

    /// The channel's own background work (since API 1.4): the host runs it in a task of its own from
    /// before the first ``listen()`` until the channel is dropped, and cancels it then. Start background
    /// loops here as child tasks (structured, cancelled with the channel), not with `Task {}` from an
    /// initializer. Returning early is fine; the default returns at once.
    func run() async
}

extension Channel {
    public func run() async {}

    public func tokenDidChange(_ token: ChannelToken) async {}

    public func applicationStateDidChange(_ state: ApplicationState) async {}

    public func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        throw ChannelError(.unsupported, "this channel does not handle \(request.name) requests")
    }
}

/// Whether the person is at the desk, as the mobile SDKs' application state.
public struct ApplicationState: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The session is active: connect fully, show everything.
    public static let foreground = ApplicationState("foreground")
    /// The machine is about to sleep or the session is locked: end page views, disconnect what the
    /// protocol expects to be disconnected in the background (CometD sends its transcript position).
    public static let background = ApplicationState("background")

    public var description: String { self.rawValue }
}
