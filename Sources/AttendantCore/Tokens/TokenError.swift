package import AttendantPluginAPI

/// Why no usable token could be had. Its ``message`` names the source and what to do; it never contains
/// the token (nor anything the source printed on standard output).
package struct TokenError: Error, Sendable, Hashable, CustomStringConvertible {
    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { self.message }

    /// The class of a token error.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: String
        package init(_ rawValue: String) { self.rawValue = rawValue }

        /// The source failed: a command exited non-zero, an HTTP error, an unreadable file, a missing
        /// credential.
        package static let source = Code("source")
        /// The source did not answer within `token-timeout` (a command is killed).
        package static let timeout = Code("timeout")
        /// The source gave nothing.
        package static let empty = Code("empty")
        /// What the source gave is not a usable token: a JWT whose parts are not base64url JSON, text
        /// with spaces or control characters, far too long.
        package static let malformed = Code("malformed")
        /// A capability or access token that does not allow incoming calls: listening cannot work.
        package static let noIncomingCapability = Code("no-incoming-capability")
        /// The token has already expired.
        package static let expired = Code("expired")
        /// The token is not valid yet (`nbf` well in the future).
        package static let notYetValid = Code("not-yet-valid")

        package var description: String { self.rawValue }
    }

    /// How the channel supervisor treats it: a token without the needed capability is a configuration
    /// problem (retrying cannot help); everything else means no valid credentials.
    package var channelErrorCode: ChannelError.Code {
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
