/// How the simulator's CXone gateway presents its one brand and channel: what the channel configuration
/// endpoint answers, whether agents are online, the scripted agent and the limits of the socket.
package struct CXoneGatewaySettings: Sendable {
    /// The brand (tenant) the gateway serves; REST paths and socket frames for another brand get 404 or
    /// an operation error.
    package var brandId: Int = 1386
    /// The channel the gateway serves.
    package var channelId: String = "chat_sim"
    /// `isLiveChat` of the channel configuration: one live conversation, recovered with RecoverLivechat.
    package var isLiveChat: Bool = false
    /// OAuth: AuthorizeCustomer must carry an authorization code and a code verifier, and the gateway
    /// assigns the customer a new identity and an access token.
    package var isAuthorizationEnabled: Bool = false
    /// `settings.hasMultipleThreadsPerEndUser`: multi-thread rather than single-thread.
    package var hasMultipleThreadsPerEndUser: Bool = false
    /// The pre-chat form the configuration announces, if any.
    package var preContactForm: CXoneGatewayPreContactForm?
    /// The availability endpoint's answer (`online`/`offline`); ``CXoneGateway/setOnline(_:)`` flips it.
    package var isOnline: Bool = true
    /// The scripted agent: the author of ``CXoneGateway/agentSays(threadID:text:)`` messages.
    package var agent = CXoneGatewayAgent(id: 42, firstName: "Ada", surname: "Lovelace")
    /// When on, the agent answers each new customer message after ``autoReplyDelay``.
    package var autoReply: Bool = false
    package var autoReplyDelay: Duration = .milliseconds(200)
    /// A welcome message, pushed as a `WelcomeMessage` FireProactiveAction after each AuthorizeCustomer.
    package var welcomeMessage: String?
    /// When set, the agent opens a thread with this message ``greetingDelay`` after a customer who has
    /// no thread authorizes.
    package var greeting: String?
    package var greetingDelay: Duration = .seconds(2)
    /// When set (one of ``CXoneGateway/richKinds``), the greeting is followed by a rich message of this kind:
    /// the demo's quick replies.
    package var greetingOffer: String?
    /// Pushed events whose frame is larger than this go out as EventInS3 (the real gateway's 128 KB).
    package var eventInS3Threshold: Int = 128 * 1024
    /// `expiresIn` of the access tokens the gateway issues with OAuth on, and of transaction tokens.
    package var accessTokenLifetime: Int = 3600
    /// `settings.fileRestrictions`: what the `/attachment` upload takes.
    package var fileRestrictions = CXoneGatewayFileRestrictions()
    /// `settings.liveChatAllowTranscript`: SendTranscript is answered with TranscriptSent, else refused
    /// with SendingTranscriptFailed.
    package var allowsTranscript = true
    /// The feature `securedSessions` (SDK 3.2.0): sockets need a transaction token from `/oauth/token`,
    /// which authorizes the customer; it is listed in the configuration's `features` either way, as an
    /// absent toggle counts as on.
    package var securedSessions = false

    package init(
        brandId: Int = 1386,
        channelId: String = "chat_sim",
        isLiveChat: Bool = false,
        isAuthorizationEnabled: Bool = false,
        hasMultipleThreadsPerEndUser: Bool = false,
        preContactForm: CXoneGatewayPreContactForm? = nil,
        isOnline: Bool = true,
        autoReply: Bool = false,
        welcomeMessage: String? = nil
    ) {
        self.brandId = brandId
        self.channelId = channelId
        self.isLiveChat = isLiveChat
        self.isAuthorizationEnabled = isAuthorizationEnabled
        self.hasMultipleThreadsPerEndUser = hasMultipleThreadsPerEndUser
        self.preContactForm = preContactForm
        self.isOnline = isOnline
        self.autoReply = autoReply
        self.welcomeMessage = welcomeMessage
    }

    /// A pre-chat form: email (required text) and topic (a list).
    package static let samplePreChatForm = CXoneGatewayPreContactForm(
        name: "Before we start",
        fields: [
            .init(id: "email", label: "Your email", type: "email", isRequired: true),
            .init(
                id: "topic",
                label: "Topic",
                type: "list",
                values: [
                    .init(name: "Billing", value: "billing"), .init(name: "Delivery", value: "delivery"), .init(name: "Other", value: "other"),
                ]
            ),
        ]
    )

    /// The channel configuration body these settings describe: `{"isLiveChat", "isAuthorizationEnabled",
    /// "preContactForm"?, "settings": {"hasMultipleThreadsPerEndUser", "isProactiveChatEnabled", "features",
    /// "fileRestrictions", "liveChatAllowTranscript"}}`.
    /// `features` lists `securedSessions`, on or off: the SDK counts an absent toggle as on.
    var channelConfiguration: GMSJSON {
        var body: GMSJSON = [
            "isLiveChat": .bool(self.isLiveChat),
            "isAuthorizationEnabled": .bool(self.isAuthorizationEnabled),
            "settings": [
                "hasMultipleThreadsPerEndUser": .bool(self.hasMultipleThreadsPerEndUser),
                "isProactiveChatEnabled": .bool(self.welcomeMessage != nil),
                "features": ["securedSessions": .bool(self.securedSessions)],
                "fileRestrictions": self.fileRestrictions.json,
                "liveChatAllowTranscript": .bool(self.allowsTranscript),
            ],
        ]
        if let preContactForm { body["preContactForm"] = preContactForm.json }
        return body
    }
}
