/// Why a session ended.
package enum GenesysSessionFailure: Sendable, Hashable, CustomStringConvertible {
    case sessionExpired
    case sessionNotFound
    case configurationRefused(GenesysErrorCode)
    case reconnectionGaveUp(attempts: Int)
    /// `ConnectionClosedEvent`: the user signed in elsewhere, or the session's connection limit.
    case closedElsewhere(signedIn: Bool)
    /// 4017 CannotDowngradeToUnauthenticated: a guest configuration of a signed-in user's session.
    case cannotDowngrade
    /// `LogoutEvent`: the user signed out (here or on another device).
    case loggedOut

    package var description: String {
        switch self {
        case .sessionExpired: "the session expired (4006 SessionHasExpired); a new session starts a new conversation"
        case .sessionNotFound: "the server does not know the session (4007 SessionNotFound)"
        case .configurationRefused(let code): "configureSession was refused with \(code)"
        case .reconnectionGaveUp(let attempts): "the socket could not be opened again after \(attempts) attempts"
        case .cannotDowngrade:
            "the session is a signed-in user's and cannot go on as a guest (4017 CannotDowngradeToUnauthenticated)"
        case .loggedOut: "the user was signed out (LogoutEvent)"
        case .closedElsewhere(let signedIn):
            signedIn
                ? "the session was closed: the user signed in on another device"
                : "the session was closed from elsewhere (the session's connection limit)"
        }
    }
}
