import AttendantPluginAPI

/// An error of the CXone chat state machine: a user operation that does not fit the current state or the
/// channel's configuration, or an error the server answered with.
///
/// The ``code`` tells the kind; the ``message`` is shown to the user as it is, so it says what failed and,
/// where it can, what to do.
package struct ChatError: Error, Sendable, Hashable, CustomStringConvertible {
    package var code: Code
    package var message: String
    /// The server's error code (an operation error's `errorCode`, such as `RecoveringThreadFailed`), if any.
    package var serverCode: String?
    /// The outbox message the server refused, when the error answers a SendMessage or SendOutbound.
    package var messageID: String?

    package init(_ code: Code, _ message: String, serverCode: String? = nil) {
        self.code = code
        self.message = message
        self.serverCode = serverCode
    }

    package var description: String { self.message }

    /// The class of a chat error.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: String
        package init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { self.rawValue }

        /// The operation does not fit the chat state (the SDK's `IllegalChatStateError`).
        package static let illegalChatState = Code("illegal-chat-state")
        /// The operation does not fit the channel's configuration (the SDK's `unsupportedChannelConfigError`),
        /// such as a second thread on a single-thread channel.
        package static let unsupportedChannelConfig = Code("unsupported-channel-config")
        /// No thread with the given id is known, or it is closed.
        package static let invalidThread = Code("invalid-thread")
        /// A REST call failed or the server sent a server error (`{message, requestId}`).
        package static let server = Code("server")
        /// The server refused an operation (`{error: {errorCode, errorMessage}}`).
        package static let operation = Code("operation")
        /// The connection to the chat gateway was lost and could not be restored, or an answer did not come.
        package static let connection = Code("connection")
    }

    /// The server's code for a client version it no longer accepts (channel configuration REST answer).
    package static let sdkVersionNotSupported = "SdkVersionNotSupported"

    static func illegalState(_ operation: String, _ state: ChatState, expected: String) -> ChatError {
        ChatError(.illegalChatState, "cannot \(operation) while the chat is \(state): \(expected)")
    }
}
