// MARK: - Errors

/// An error a channel reports: from ``Channel/listen()`` and the other channel methods, or with
/// ``ChannelEvent/stoppedListening(_:)``.
///
/// The ``code`` decides what the host does; the ``message`` is shown to the user as it is, so it says
/// what failed, where (peer, server, setting) and, where it can, what to do.
public struct ChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: Code
    public var message: String
    /// How long the host waits before calling ``Channel/listen()`` again after this (transient) error,
    /// instead of its own backoff (since API 1.3): the server's `Retry-After` (SIP, HTTP), which asks
    /// for no earlier try, or the plugin's own probing of a server that does not answer, so that a
    /// recovered server is used within seconds. Nil, the default: the host's backoff decides. While a
    /// channel is on probation the host waits at least its probation backoff. The daemon keeps the delay
    /// between 0.25 s and one hour.
    public var retryAfter: Duration?

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// An error with a retry delay (since API 1.3); see ``retryAfter``.
    public init(_ code: Code, _ message: String, retryAfter: Duration?) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { self.message }

    /// The class of a channel error.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// Network trouble, timeouts, 5xx, a busy server: the host retries with backoff.
        public static let transient = Code("transient")
        /// Credentials refused or the token expired: the host renews the token once, then asks the user
        /// to sign in again.
        public static let authentication = Code("authentication")
        /// Retrying cannot help (wrong settings, a token without the needed capability): the channel
        /// stops and the problem is reported.
        public static let configuration = Code("configuration")
        /// The channel does not handle this request.
        public static let unsupported = Code("unsupported")
        /// The request does not fit the channel's current state (for example `connect` before `prepare`).
        public static let illegalState = Code("illegal-state")
        /// The server answered the request with an error.
        public static let server = Code("server")
        /// The request's input is refused (a bad field name, a value of the wrong type); the message says
        /// which and why (since API 1.6).
        public static let invalidArgument = Code("invalid-argument")

        public var description: String { self.rawValue }
    }
}
