package import AttendantPluginKit

/// What the session machine needs to know: who we are and the deployment's switches.
package struct GenesysSessionConfiguration: Sendable, Hashable {
    /// The session token the client made and keeps across restarts (the secrets file): the socket's
    /// identity of this customer.
    package var token: String
    package var deploymentId: String
    /// The deployment's `messenger.apps.conversations.autoStart.enabled`: send autostart (presence Join)
    /// after a new session.
    package var autoStart = false
    /// The deployment's `showUserTypingIndicator`: without it our typing is not sent (SDK `UserTypingProvider`).
    package var showUserTypingIndicator = false
    /// At most one `echo` per this long (SDK `HEALTH_CHECK_COOL_DOWN_MILLISECONDS`, 30 s).
    package var echoCooldown: Duration = .seconds(30)
    /// At most one typing notice per this long (SDK `TYPING_INDICATOR_COOL_DOWN_MILLISECONDS`, 5 s).
    package var typingCooldown: Duration = .seconds(5)
    /// Waits between reconnection attempts. The SDK waits a fixed 5 s (Android) or nothing (iOS); a
    /// growing wait with jitter is ours (decided), so that many daemons do not come back at once.
    package var reconnectBackoff = Backoff(base: .seconds(1), factor: 2, cap: .seconds(30), jitter: .full)
    /// Attempts after a lost socket before the session fails (the SDK: 300 s, `reconnectionTimeoutInSeconds`,
    /// 60 tries of 5 s on Android); a `SessionResponse` resets the count.
    package var maximumReconnectAttempts = 12

    package init(token: String, deploymentId: String) {
        self.token = token
        self.deploymentId = deploymentId
    }
}
