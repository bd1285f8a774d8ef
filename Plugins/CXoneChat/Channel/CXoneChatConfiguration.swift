import AttendantPluginAPI
import CXoneCore

/// The settings of one CXoneChat channel (`[channel.cxone-chat]`); see ``CXoneChatPluginFactory``.
struct CXoneChatConfiguration: Sendable {
    var brandID: Int
    var channelID: String
    var endpoints: CXoneEndpoints
    /// The customer's names, sent with every frame (the server assigns them with OAuth).
    var firstName: String?
    var lastName: String?
    /// `listen()` prepares and connects the chat; off, the user does it (`attendantctl chat prepare`,
    /// `chat connect`) and the channel only listens once connected.
    var autoConnect = true
    /// The PKCE code verifier sent with the authorization code (the channel's token) when the channel
    /// uses OAuth.
    var codeVerifier: String?
    /// The page view `listen()` reports once prepared, if set.
    var pageTitle: String?
    var pageURL: String?
    /// The machine's timings (heartbeat, pong, answers, reconnect attempts).
    var machine = ChatStateMachine.Configuration()
    /// How long a REST call may take.
    var requestTimeout: Duration = .seconds(10)
    /// The largest frame or downloaded event body accepted.
    var limits = CXoneWireLimits()
    /// The largest attachment fetched (`max-attachment-size`, bytes): 25 MiB, at most 64 MiB (what the
    /// daemon saves).
    var maximumAttachmentSize = 25 << 20

    /// The SDK version the channel reports in AuthorizeCustomer and the socket URL.
    static let sdkVersion = "attendant-1.0.0"

    init(_ settings: ChannelSettings) throws {
        guard let brand = try settings.integer("brand-id") else {
            throw settings.error("brand-id", "is missing; give the CXone brand (tenant) id, a number such as 1386")
        }
        guard brand > 0 else { throw settings.error("brand-id", "must be a positive number, not \(brand)") }
        self.brandID = brand
        guard let channel = try settings.string("channel-id"), !channel.isEmpty else {
            throw settings.error("channel-id", "is missing; give the CXone channel id, such as \"chat_51eafc1d-…\"")
        }
        self.channelID = channel

        let region = try settings.string("region")
        let socket = try settings.string("socket-url")
        let chat = try settings.string("chat-url")
        let hostURL = try settings.string("host-url")
        let tokenURL = try settings.string("token-url")
        switch (region, socket, chat) {
        case (let region?, nil, nil):
            let known = ["na1", "eu1", "au1", "ca1", "uk1", "jp1"]
            guard known.contains(region) else {
                throw settings.error(
                    "region",
                    "\"\(region)\" is not a CXone region; use one of \(known.joined(separator: ", ")), or give socket-url and chat-url"
                )
            }
            self.endpoints = .region(region)
        case (nil, let socket?, let chat?):
            try settings.checkURL(socket, key: "socket-url", schemes: ["ws", "wss"])
            try settings.checkURL(chat, key: "chat-url", schemes: ["http", "https"])
            if let hostURL { try settings.checkURL(hostURL, key: "host-url", schemes: ["http", "https"]) }
            if let tokenURL { try settings.checkURL(tokenURL, key: "token-url", schemes: ["http", "https"]) }
            self.endpoints = CXoneEndpoints(socket: socket, chat: chat, host: hostURL, token: tokenURL)
        case (nil, nil, nil):
            throw settings.error("region", "is missing; give the channel's CXone region (such as \"eu1\"), or socket-url and chat-url")
        case (_?, _, _):
            throw settings.error("region", "and socket-url/chat-url exclude each other; give either the region or both URLs")
        case (nil, _, nil):
            throw settings.error(
                "chat-url",
                "is missing; socket-url needs chat-url beside it (the chat REST base, such as \"https://channels-de-eu1.niceincontact.com/chat\")"
            )
        case (nil, nil, _):
            throw settings.error(
                "socket-url",
                "is missing; chat-url needs socket-url beside it (the chat gateway, such as \"wss://chat-gateway-de-eu1.niceincontact.com\")"
            )
        }
        if hostURL != nil, region != nil {
            throw settings.error("host-url", "goes with socket-url and chat-url, not with region")
        }
        if tokenURL != nil, region != nil {
            throw settings.error("token-url", "goes with socket-url and chat-url, not with region")
        }

        self.firstName = try settings.string("first-name")
        self.lastName = try settings.string("last-name")
        self.autoConnect = try settings.bool("auto-connect") ?? true
        self.codeVerifier = try settings.string("code-verifier")
        self.machine.codeVerifier = self.codeVerifier
        self.pageTitle = try settings.string("page-title")
        self.pageURL = try settings.string("page-url")
        if (self.pageTitle == nil) != (self.pageURL == nil) {
            throw settings.error(self.pageTitle == nil ? "page-title" : "page-url", "is missing; page-title and page-url go together")
        }

        if let interval = try settings.duration("heartbeat-interval") {
            guard interval >= .seconds(1) else { throw settings.error("heartbeat-interval", "must be at least 1 s") }
            self.machine.heartbeatInterval = interval
        }
        if let timeout = try settings.duration("pong-timeout") {
            guard timeout >= .milliseconds(100) else { throw settings.error("pong-timeout", "must be at least 0.1 s") }
            self.machine.pongTimeout = timeout
        }
        if let timeout = try settings.duration("response-timeout") {
            guard timeout >= .milliseconds(100) else { throw settings.error("response-timeout", "must be at least 0.1 s") }
            self.machine.responseTimeout = timeout
            self.requestTimeout = timeout
        }
        if let attempts = try settings.integer("reconnect-attempts") {
            guard attempts >= 1 else { throw settings.error("reconnect-attempts", "must be at least 1") }
            self.machine.maximumReconnectAttempts = attempts
        }
        if let size = try settings.integer("max-attachment-size") {
            guard (1...(64 << 20)).contains(size) else {
                throw settings.error("max-attachment-size", "must be a number of bytes from 1 to 67108864 (64 MiB), not \(size)")
            }
            self.maximumAttachmentSize = size
        }
        if let backoff = try settings.duration("max-backoff") {
            guard backoff >= .seconds(1) else { throw settings.error("max-backoff", "must be at least 1 s") }
            self.machine.maximumBackoff = backoff
        }
    }

    /// The gateway, for messages: `ws://127.0.0.1:8080/chat-gateway`.
    var gatewayDescription: String { self.endpoints.socket }

    /// What the session's frames, socket address and REST calls are made with.
    var sessionSettings: ChatSession.Settings {
        ChatSession.Settings(
            endpoints: self.endpoints,
            firstName: self.firstName,
            lastName: self.lastName,
            sdkVersion: Self.sdkVersion,
            gatewayDescription: self.gatewayDescription,
            requestTimeout: self.requestTimeout,
            limits: self.limits
        )
    }

    /// What the user's operations are made with.
    var commandSettings: ChatCommand.Settings {
        ChatCommand.Settings(
            brandID: self.brandID,
            channelID: self.channelID,
            requestTimeout: self.requestTimeout,
            responseTimeout: self.machine.responseTimeout,
            gatewayDescription: self.gatewayDescription,
            maximumAttachmentSize: self.maximumAttachmentSize
        )
    }
}
