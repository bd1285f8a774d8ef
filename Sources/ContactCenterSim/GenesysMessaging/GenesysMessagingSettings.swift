/// The simulated web messaging deployment: its id, what its configuration (`config.json`) announces, and
/// how the scripted agent and the sessions behave.
package struct GenesysMessagingSettings: Sendable {
    /// The deployment the socket's `configureSession` and `config.json` must name.
    package var deploymentId: String = "5e1f0c4a-7d2b-4c3e-9f10-2a6b8c0d1e35"
    /// The file profile (`messenger.fileUpload.modes[0]`, and SessionResponse's `allowedMedia.inbound`):
    /// media types a customer may upload (`*/*` allows any) and the largest size in KB.
    package var fileTypes: [String] = ["image/png", "image/jpeg", "image/gif", "application/pdf", "text/plain"]
    package var maxFileSizeKB: Int = 10240
    /// SessionResponse's `blockedExtensions`.
    package var blockedExtensions: [String] = [".exe", ".bat"]
    /// `auth.enabled`: configureAuthenticatedSession and the OAuth code exchange are allowed.
    package var authEnabled = false
    /// `conversationDisconnect.type`: ReadOnly (true) or Send. With ReadOnly, the agent's disconnect makes
    /// the conversation read-only until the client starts a new chat.
    package var disconnectReadOnly = true
    /// `conversationClear.enabled`: a Presence Clear event clears the conversation.
    package var conversationClear = false
    /// A guest session's inactivity limit (SessionResponse's `durationSeconds`); `expirationDate` is the
    /// last activity plus this.
    package var sessionDurationSeconds: Int = 2_592_000
    /// How long a presigned download URL is valid (`X-Amz-Expires`): the SDK's
    /// `MessagingClient.refreshAttachmentUrl` says a `downloadUrl` "typically expires after 10 minutes".
    package var downloadURLLifetimeSeconds: Int = 600
    /// How long the JWTs of getJwt and the OAuth code exchange are valid.
    package var jwtLifetimeSeconds: Int = 3600
    /// The agent's `channel.from.nickname`.
    package var agentName = "Sam"
    /// The agent answers each customer text with `You said: TEXT`.
    package var autoReply = false
    /// When a new session is configured, the agent joins and says this.
    package var greeting: String?
    /// The longest text a customer message may have (longer: 4011 MessageTooLong).
    package var maxTextLength = 4096
    /// SessionResponse's `maxCustomDataBytes`: custom attributes above it are 4013.
    package var maxCustomDataBytes = 2048
    /// OAuth codes the exchange accepts again and again, with the user each stands for (the demo's);
    /// `POST /control/genesys/oauth-code` makes single-use ones.
    package var oauthCodes: [String: String] = [:]

    package init(
        deploymentId: String = "5e1f0c4a-7d2b-4c3e-9f10-2a6b8c0d1e35",
        authEnabled: Bool = false,
        disconnectReadOnly: Bool = true,
        autoReply: Bool = false,
        greeting: String? = nil
    ) {
        self.deploymentId = deploymentId
        self.authEnabled = authEnabled
        self.disconnectReadOnly = disconnectReadOnly
        self.autoReply = autoReply
        self.greeting = greeting
    }
}

/// A way the web messaging service misbehaves, until ``GenesysMessagingServer/clearFaults()``; the
/// counted ones wear off.
package enum GenesysMessagingFault: Sendable, Hashable {
    /// Every socket is dropped, upgrades on `/v1` and the REST endpoints answer 503. Sessions stay.
    case down
    /// The next `count` configureSession (or configureAuthenticatedSession) requests are refused with
    /// this code (5000 "Request failed." by default).
    case refuseConfigure(code: Int, remaining: Int)
    /// The next `count` onMessage requests are answered TooManyRequestsErrorMessage (429, errorCode 4029).
    case rateLimit(retryAfter: Int, remaining: Int)
    /// The next `count` uploads end in UploadFailureEvent instead of UploadSuccessEvent.
    case uploadFailure(remaining: Int)
}

/// Where a client finds the simulated web messaging service: one host and port for the socket, the CDN
/// and the API, as the SDK's `Urls.kt` does with a custom endpoint (`ws://{endpoint}/v1`,
/// `http://{endpoint}/webdeployments/v1/…`, `http://{endpoint}/api/v2/…`).
package struct GenesysMessagingEndpoints: Sendable, Hashable {
    /// `127.0.0.1:PORT`: the SDK's `customEndpoint`, without a scheme.
    package var endpoint: String
    package var deploymentId: String

    /// `ws://127.0.0.1:PORT/v1?deploymentId=…` (wss://webmessaging.{domain}/v1).
    package var socket: String { "ws://\(self.endpoint)/v1?deploymentId=\(self.deploymentId)" }
    /// `http://127.0.0.1:PORT`: in place of both https://api.{domain} and https://api-cdn.{domain}.
    package var api: String { "http://\(self.endpoint)" }
    package var deploymentConfig: String { "\(self.api)/webdeployments/v1/deployments/\(self.deploymentId)/config.json" }
}
