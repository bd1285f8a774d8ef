public import AttendantPluginAPI

/// Why no usable token could be had. Its ``message`` names the source and what to do; it never contains
/// the token (nor anything the source printed on standard output).
public struct TokenError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { self.message }

    /// The class of a token error.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// The source failed: a command exited non-zero, an HTTP error, an unreadable file, a missing
        /// credential.
        public static let source = Code("source")
        /// The source did not answer within `token-timeout` (a command is killed).
        public static let timeout = Code("timeout")
        /// The source gave nothing.
        public static let empty = Code("empty")
        /// What the source gave is not a usable token: a JWT whose parts are not base64url JSON, text
        /// with spaces or control characters, far too long.
        public static let malformed = Code("malformed")
        /// A capability or access token that does not allow incoming calls: listening cannot work.
        public static let noIncomingCapability = Code("no-incoming-capability")
        /// The token has already expired.
        public static let expired = Code("expired")
        /// The token is not valid yet (`nbf` well in the future).
        public static let notYetValid = Code("not-yet-valid")

        public var description: String { self.rawValue }
    }

    /// How the channel supervisor treats it: a token without the needed capability is a configuration
    /// problem (retrying cannot help); everything else means no valid credentials.
    public var channelErrorCode: ChannelError.Code {
        self.code == .noIncomingCapability ? .configuration : .authentication
    }
}

extension ChannelError {
    /// A token error as the channel supervisor reports it.
    init(_ error: any Error) {
        switch error {
        case let error as ChannelError: self = error
        case let error as TokenError: self.init(error.channelErrorCode, error.message)
        default: self.init(.authentication, "\(error)")
        }
    }
}
