package import AttendantPluginAPI

extension ChatError {
    /// The error as the host sees it: the machine's class decides what the host does. A refused
    /// authorization is a sign-in problem only where there is something to sign in with (`signIn`: the
    /// channel uses OAuth); without it the server's refusal is retried with backoff, its reason shown.
    package func channelError(signIn: Bool = true) -> ChannelError {
        let code: ChannelError.Code =
            switch self.code {
            case _ where self.serverCode?.lowercased() == ChatError.sdkVersionNotSupported.lowercased(): .configuration
            case .operation where signIn && Self.isAuthorizationFailure(self.serverCode): .authentication
            case .illegalChatState, .invalidThread: .illegalState
            case .unsupportedChannelConfig: .unsupported
            case .server, .operation: .server
            default: .transient
            }
        return ChannelError(code, "cxone-chat: \(self.message)")
    }

    /// ConsumerAuthorizationFailed, TokenRefreshingFailed and the like: the credentials were refused.
    package static func isAuthorizationFailure(_ code: String?) -> Bool {
        guard let code = code?.lowercased() else { return false }
        return code.contains("authoriz") || code.contains("unauthori") || code.contains("tokenrefresh")
    }
}

extension Sequence<ChatStateMachine.Report> {
    /// The first error reported.
    package var firstError: ChatError? {
        for report in self {
            if case .error(let error) = report { return error }
        }
        return nil
    }

    /// The first error reported as the host sees it, or else a transient error saying `otherwise`.
    package func failure(otherwise: String, signIn: Bool = true) -> ChannelError {
        self.firstError.map { $0.channelError(signIn: signIn) } ?? ChannelError(.transient, "cxone-chat: \(otherwise)")
    }
}
