import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit

// What the SDK drops when the service says the session cannot go on as it is (`core/MessagingClientImpl.kt`):
// 4017 CannotDowngradeToUnauthenticated (`handleError`: `invalidateSessionToken()`, then the Error state) and
// LogoutEvent (`performLogout`: `invalidateSessionToken()`, `authHandler.clear()`, `Event.Logout`, then
// `disconnect()`). The SDK surfaces both to the app (the Error state, the Logout event): the person gets a
// notice, and `chat status` says why.
extension GenesysChatSession {
    /// Before a session that ended is reported: the session token (and, signed out, the JWTs and the refresh
    /// token) dropped, and the person told.
    mutating func dropCredentials(after failure: GenesysSessionFailure, now: UnixTime) -> [Action] {
        switch failure {
        case .cannotDowngrade:
            let text =
                "This chat belonged to a signed-in user and cannot go on as a guest; a new guest conversation starts."
            return self.dropToken() + self.notice("session-downgrade-refused", text, now: now)
        case .loggedOut:
            var actions = self.dropToken()
            if self.auth != nil {
                self.auth = GenesysAuth()
                self.machine.authenticatedJWT = nil
                actions.append(Self.keepRefreshToken(nil))
            }
            let text = "You were signed out of the chat; sign in again to go on."
            return actions + self.notice("session-signed-out", text, now: now)
        default:
            return []
        }
    }

    /// A new session token (SDK `invalidateSessionToken`: the vault forgets it, and `vault.token` makes a
    /// new one), kept in the secrets; the JWT of `getJwt` was the old session's.
    mutating func dropToken() -> [Action] {
        let fresh = Self.newToken()
        self.token = fresh
        self.machine.replaceToken(fresh)
        self.jwt = nil
        return [
            .write(
                StoreWrite(
                    .secrets,
                    key: Self.tokenSecret,
                    value: fresh,
                    what: "the web messaging session token",
                    ifLost: "the next start configures the dropped session again"
                )
            )
        ]
    }

    /// A notice from the service in the conversation's thread, which the desktop shows.
    func notice(_ id: String, _ text: String, now: UnixTime) -> [Action] {
        guard let threadID = self.threadID else { return [] }
        let notice = ChatMessage(
            id: "\(id)-\(Int(now.secondsSince1970))",
            threadID: threadID,
            kind: .custom,
            direction: .notice,
            sender: Party(displayName: "Genesys", address: "service"),
            text: text,
            sentAt: now
        )
        return [.emit(.messageReceived(notice))]
    }
}
