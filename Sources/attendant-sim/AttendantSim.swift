import ArgumentParser
import ContactCenterSim

/// `attendant-sim`: the loopback contact centre for the demo and the daemon tests.
@main
struct AttendantSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attendant-sim",
        abstract:
            "A loopback contact centre: token endpoint, SIP registrar (Bearer tokens) and caller, a CXone chat gateway, a GMS chat server, a Genesys Cloud web messaging service and a KARTE track endpoint.",
        discussion: """
            On start it prints one JSON line on stdout: sip_port, http_port, token_url, \
            registrar_udp, registrar_tcp, domain, cxone_socket, cxone_chat, cxone_brand, \
            cxone_channel, gms_cometd, gms_base, gms_service, genesys_endpoint, \
            genesys_deployment, karte_base and karte_app_key.

            Tokens (HS256 JWTs, Twilio-style grants):
              GET or POST /token?identity=NAME
                -> {"token":…,"identity":…,"expires_in":…}

            Control API, on the same HTTP port:
              POST /control/fault?kind=KIND[&times=N]
                   KIND: 423 (&min-expires=S, default 900), 401-loop,
                   503 (&retry-after=S), silence, malformed, 403
              POST /control/clear-faults
              POST /control/refuse-renewals?on=1|0
              POST /control/call?user=NAME   -> {"call_id":…}
              GET  /control/calls            each call's status and final code
              POST /control/restart?keep-bindings=1|0
              GET  /control/bindings?user=NAME
              GET  /control/status           REGISTERs received, tokens issued
              GET  /control/secrets          every token, CXone access and transaction token,
                   GMS secure key issued, and the KARTE app key (secret scans)

            CXone chat gateway, on the same HTTP port:
              WebSocket /chat-gateway?brandId=&channelId=&visitorId=&sdkPlatform=&sdkVersion=
              GET  /chat/1.0/brand/B/channel/C[/availability]
              POST /oauth/token?channelId=C&brandId=B&visitorId=V   a transaction token
                   (--cxone-secured-sessions: the socket URL's transactionToken)
              PUT  /web-analytics/1.0/tenants/B/visitors/V, POST …/V/events
              GET  /s3/ID                    bodies of EventInS3 (events over 128 KB)
              POST /control/cxone/agent?thread=ID&text=TEXT[&size=BYTES][&at=UNIX-SECONDS]
                   (customer=ID instead of thread: the agent opens a new thread;
                   size pads the text, over 128 KB it goes out as EventInS3)
              POST /control/cxone/agent-read?thread=ID  the agent reads the customer's messages
                                             (MessageSeenChanged with userStatistics)
              POST /control/cxone/s3         park the request body at /s3/ID; answers its url
              POST /control/cxone/push       the request body, as is, as one text frame
                                             to every client socket
              POST /control/cxone/availability?online=1|0
              POST /control/cxone/fault?kind=KIND
                   KIND: server-error&event=TYPE, operation-error&event=TYPE[&code=CODE],
                   drop-next, missing-pongs, s3-failure, stall-downloads (GET /files/ID
                   never answered),
                   rest-error&endpoint=configuration|availability|visitor|events[&code=CODE][&status=N],
                   down (every socket dropped; upgrades and the chat REST endpoints
                   answer 503; threads are kept for when it comes back)
              POST /control/cxone/clear-faults  every fault off (a down gateway comes back)
              POST /control/cxone/drop       close every client socket
              GET  /control/cxone/threads    threads with their messages
              GET  /control/cxone/status     connections, online, down, visitors, analytics,
                                             received event types, connected customers,
                                             uploads, transcripts sent (SendTranscript)

            GMS chat server (Genesys Mobile Services), on the same HTTP port:
              POST /genesys/cometd[/TYPE]    Bayeux 1.0 long-polling (JSON array, or the form
                                             field message=); WebSocket on the same path.
                                             Unknown clients get 402::Unknown client with
                                             advice reconnect=handshake; a client whose
                                             long-poll ended and that does not connect again
                                             within --gms-client-window is destroyed (its chats
                                             stay)
              /service/chatV2/SERVICE        Chat API v2 operations (requestChat, sendMessage,
                                             startTyping, stopTyping, requestNotifications,
                                             pushUrl, customNotice, updateNickname, updateData,
                                             disconnect); answers are events on the channel
              POST /genesys/1/service/request-chat, …/ID/ixn/chat[/send|refresh|startTyping|
                   stopTyping|disconnect]    Chat API v1 (form bodies; gms_user header required;
                                             events on /_genesys to CometD clients carrying the
                                             same gms_user)
              A /meta/disconnect with ext.transcriptPosition flags the customer not online
              (the agent gets "customer is not online"); a new session catches up: v2 by
              requestNotifications from a position, v1 by one /_genesys event after subscribing.
              POST /control/gms/agent?text=TEXT[&chat=ID]      the agent writes
              POST /control/gms/typing?state=started|stopped[&chat=ID]
              POST /control/gms/push-url?url=URL[&chat=ID]
              POST /control/gms/notice?text=TEXT[&chat=ID]     a custom notice
              POST /control/gms/leave[?chat=ID]                the agent leaves
              POST /control/gms/end[?chat=ID]                  the chat ends
                   (without chat=: the newest open chat; 409 when there is none)
              POST /control/gms/push          the request body, as is, to every CometD client
                                             (a held long-poll's answer, or a text frame)
              POST /control/gms/fault?kind=restart|drop|down|stall-downloads|up
                   restart: every CometD client forgotten (chats kept); drop: held
                   long-polls and WebSockets cut unanswered; down: 503 on /genesys/…
              GET  /control/gms/chats        chats with transcripts, online flags, agent notices
              GET  /control/gms/status       handshakes, connects, clients alive and expired,
                                             402 replies, disconnects with their ext positions

            Genesys Cloud web messaging (the Messenger transport SDK's customEndpoint: one
            HOST:PORT, genesys_endpoint, for wss://webmessaging.DOMAIN, https://api.DOMAIN and
            https://api-cdn.DOMAIN), on the same HTTP port:
              WebSocket /v1?deploymentId=ID  configureSession, configureAuthenticatedSession
                                             (data.code: a JWT of the code exchange), onMessage
                                             (Text, Structured with ButtonResponse, Event), echo,
                                             onAttachment, getAttachment, deleteAttachment,
                                             getJwt, closeSession; answers {"type","class","code",
                                             "body","tracingId"}; refusals class "string" with
                                             the SDK's codes (4006 expired, 4007 no session,
                                             4010, 4011, 4013, 4017, 403, 401, 5000)
              GET  /webdeployments/v1/deployments/ID/config.json   the deployment (fileUpload
                                             modes, conversationDisconnect, auth)
              GET  /api/v2/webmessaging/messages?pageNumber=N&pageSize=M   history, newest
                                             first; Authorization: bearer JWT (getJwt's, or
                                             the code exchange's)
              POST /api/v2/webdeployments/token/oauthcodegrantjwtexchange|refresh,
                   DELETE …/token/revoke     OAuth code -> {jwt, refreshToken} (--genesys-auth)
              PUT  /uploads/ID?X-Amz-Signature=…   a presigned upload (x-amz-tagging header
                                             required), then UploadSuccessEvent on the socket
              GET  /downloads/ID?X-Amz-Signature=…
              POST /control/genesys/agent?text=TEXT[&from=Human|Bot]     the agent writes
              POST /control/genesys/quick-replies?text=T&options=Yes=yes,No
              POST /control/genesys/card?title=T&postbacks=Book=book[&description=D]
                   [&image=URL][&links=Site=URL][&text=T]
              POST /control/genesys/file?name=NAME[&type=MIME][&text=T]  body: the file
              POST /control/genesys/typing | join | disconnect (ConversationDisconnect)
              POST /control/genesys/expiry?in=SECONDS   move the session's expirationDate
              POST /control/genesys/expire   SessionExpiredEvent; the session is gone
              POST /control/genesys/oauth-code?subject=USER   a single-use OAuth code
                   (every agent and session call takes [&session=ID]; default the newest)
              POST /control/genesys/push     the request body, as is, to every socket
              POST /control/genesys/fault?kind=KIND   down (sockets dropped, upgrades and REST
                   503), refuse-configure[&code=N][&count=N], rate-limit[&retry-after=S]
                   [&count=N] (TooManyRequestsErrorMessage), upload-failure[&count=N]
                   (UploadFailureEvent), malformed or wrong-shape (one frame to every socket)
              POST /control/genesys/clear-faults | drop (close every socket)
              GET  /control/genesys/messages[?session=ID]   the conversation, oldest first
              GET  /control/genesys/status   connections, sessions, messages received, button
                                             responses, echoes, actions, uploads, token calls

            KARTE track API (in-app actions and variables), on the same HTTP port:
              POST /v0/native/track          X-KARTE-App-Key must be --karte-app-key (else 401);
                                             Content-Encoding: gzip bodies are gunzipped (not
                                             gzip: 400); answers are gzipped for Accept-Encoding:
                                             gzip unless --karte-no-gzip-answers. Each scripted
                                             campaign whose trigger matches an event answers
                                             one message (remote_config ones also answer any
                                             _fetch_variables)
              Campaigns (--karte-campaigns FILE, a JSON array): {"id", "shorten_id",
                   "kind": "popup"|"remote_config", "trigger": {"event_name", "values":
                   {exact string values}}, "limit_mode", "control_group", "title", "body",
                   "html", "links": [{"label","url","target"}], "variables":
                   [{"name","value"}], "delay_ms" (hold the answer), "age_s" (date
                   response_timestamp back), "times" (answer at most N times)}
                   Default: popup "Welcome back" on every view; remote_config greeting and
                   theme on native_app_open.
              GET|DELETE /control/karte/events     recorded events: request, event_name,
                                             values, keys, retry, gzip
              GET|DELETE /control/karte/requests   request, status, gzip, events, app_key_ok, keys
              GET  /control/karte/app-info   app_info of the newest request
              GET|PUT /control/karte/campaigns     list or replace the campaigns (JSON array)
              POST /control/karte/fault      {"mode": M, "count": N (default 1)}; M: "status"
                                             (+ "status": 500|503|400|…), "hang" (+ "seconds",
                                             default 60), "malformed", "wrong-shape", "oversize"
                                             (10 MB), "fake-gzip", "unknown-fields"; faulted
                                             requests are still recorded
              DELETE /control/karte/fault    clear the fault
              POST /control/karte/gzip-answers     {"on": true|false}

            SIGTERM or SIGINT stops it (exit status 0).
            """
    )

    @Option(help: ArgumentHelp("SIP port for UDP and TCP (0: any free port).", valueName: "port"))
    var sipPort: Int = 0

    @Option(help: ArgumentHelp("HTTP port of the token endpoint and control API (0: any free port).", valueName: "port"))
    var httpPort: Int = 0

    @Option(help: ArgumentHelp("Lifetime of issued tokens.", valueName: "seconds"))
    var tokenLifetime: Int = 3600

    @Option(help: ArgumentHelp("File holding the HS256 signing key (its bytes, trailing newline removed). Default: a random key.", valueName: "path"))
    var signingKeyFile: String?

    @Option(help: ArgumentHelp("SIP domain: Bearer realm and host of every address of record.", valueName: "domain"))
    var domain: String = "sim.attendant.test"

    @Option(
        help: ArgumentHelp(
            "Call this user (as \"Grace Hopper\" <sip:grace@DOMAIN>) every --ring-every seconds once registered; each outcome is one line on stderr.",
            valueName: "user"
        )
    )
    var ring: String?

    @Option(help: ArgumentHelp("Pause between calls placed by --ring.", valueName: "seconds"))
    var ringEvery: Double = 30

    @Option(help: ArgumentHelp("Cancel a --ring call that has no final response by then.", valueName: "seconds"))
    var cancelAfter: Double?

    @Option(help: ArgumentHelp("CXone brand (tenant) id the chat gateway serves.", valueName: "id"))
    var cxoneBrand: Int = 1386

    @Option(help: ArgumentHelp("CXone channel id the chat gateway serves.", valueName: "id"))
    var cxoneChannel: String = "chat_sim"

    @Flag(help: "The CXone agent answers each customer message.")
    var cxoneAutoReply = false

    @Flag(help: "The CXone channel uses OAuth (authorization code and code verifier).")
    var cxoneOauth = false

    @Flag(help: "The CXone channel allows several threads per customer.")
    var cxoneMultiThread = false

    @Flag(help: "The CXone channel is a live chat (isLiveChat: one conversation at a time, recovered with RecoverLivechat).")
    var cxoneLiveChat = false

    @Flag(help: "The CXone agents start offline: the availability endpoint answers offline until POST /control/cxone/availability?online=1.")
    var cxoneOffline = false

    @Option(help: ArgumentHelp("A CXone welcome message, sent after each AuthorizeCustomer.", valueName: "text"))
    var cxoneWelcome: String?

    @Option(
        help: ArgumentHelp(
            "The lifetime of the access tokens the CXone channel issues with --cxone-oauth (expiresIn); RefreshToken answers a new one.",
            valueName: "seconds"
        )
    )
    var cxoneTokenLifetime = 3600

    @Flag(help: "The CXone channel does not allow transcripts (liveChatAllowTranscript false): SendTranscript is refused.")
    var cxoneNoTranscript = false

    @Flag(
        help:
            "The CXone channel has secured sessions (SDK 3.2.0): sockets need a transaction token from POST /oauth/token (expiresIn: --cxone-token-lifetime)."
    )
    var cxoneSecuredSessions = false

    @Flag(help: "The CXone channel announces a pre-chat form (email, required; topic: billing, delivery or other).")
    var cxonePreChatForm = false

    @Option(
        help: ArgumentHelp(
            "The CXone agent opens a thread with this message 2 s after a customer without a thread authorizes (the demo's conversation).",
            valueName: "text"
        )
    )
    var cxoneGreeting: String?

    @Option(
        help: ArgumentHelp(
            "After the greeting, the CXone agent offers choices of this kind: quick-replies, list-picker, rich-link or inactivity-popup.",
            valueName: "kind"
        )
    )
    var cxoneGreetingOffer: String?

    @Option(help: ArgumentHelp("GMS chat service name (the v2 channel /service/chatV2/NAME; others are served too).", valueName: "name"))
    var gmsService: String = "customer-support"

    @Option(help: ArgumentHelp("How long GMS holds a /meta/connect without events (Bayeux advice.timeout).", valueName: "seconds"))
    var gmsConnectHold: Double = 30

    @Option(help: ArgumentHelp("How long GMS keeps a CometD client whose long-poll ended without a new connect (maxInterval).", valueName: "seconds"))
    var gmsClientWindow: Double = 10

    @Option(help: ArgumentHelp("How long after a GMS chat starts the agent joins and greets.", valueName: "seconds"))
    var gmsGreetingDelay: Double = 0.5

    @Option(help: ArgumentHelp("What the GMS agent says on joining (empty: nothing).", valueName: "text"))
    var gmsGreeting: String = GMSServerSettings().greeting ?? ""

    @Option(help: ArgumentHelp("The GMS agent's nickname.", valueName: "name"))
    var gmsAgentName: String = "Ada Lovelace"

    @Flag(help: "The GMS agent answers each customer message.")
    var gmsAutoReply = false

    @Flag(help: "GMS refuses WebSocket upgrades and offers long-polling only (as behind a proxy that does not pass them).")
    var gmsNoWebsocket = false

    @Option(help: ArgumentHelp("The web messaging deployment id (configureSession and config.json must name it).", valueName: "id"))
    var genesysDeployment: String = GenesysMessagingSettings().deploymentId

    @Flag(help: "The web messaging deployment has authentication (auth.enabled): the OAuth code exchange and configureAuthenticatedSession.")
    var genesysAuth = false

    @Option(
        help: ArgumentHelp(
            "With --genesys-auth, an OAuth code the exchange accepts any number of times, for USER (CODE=USER).",
            valueName: "code=user"
        )
    )
    var genesysAuthCode: String?

    @Flag(help: "The web messaging agent answers each customer text.")
    var genesysAutoReply = false

    @Option(help: ArgumentHelp("When a new web messaging session starts, the agent joins and says this.", valueName: "text"))
    var genesysGreeting: String?

    @Flag(help: "The agent's disconnect leaves the conversation open for sending (conversationDisconnect type Send, not ReadOnly).")
    var genesysDisconnectSend = false

    @Option(help: ArgumentHelp("A web messaging session's inactivity limit (durationSeconds).", valueName: "seconds"))
    var genesysSessionDuration: Int = 2_592_000

    @Option(help: ArgumentHelp("The app key KARTE track requests must carry in X-KARTE-App-Key (32 characters).", valueName: "key"))
    var karteAppKey: String = KarteServerSettings.demoAppKey

    @Option(help: ArgumentHelp("A JSON array of KARTE campaigns replacing the demo's (see the KARTE section below).", valueName: "path"))
    var karteCampaigns: String?

    @Flag(help: "KARTE answers are never gzipped, even for Accept-Encoding: gzip.")
    var karteNoGzipAnswers = false

    func validate() throws {
        guard (0...65535).contains(self.sipPort), (0...65535).contains(self.httpPort) else {
            throw ValidationError("ports must be between 0 and 65535")
        }
        guard !self.cxoneChannel.isEmpty else { throw ValidationError("--cxone-channel must not be empty") }
        if let kind = self.cxoneGreetingOffer, !CXoneGateway.richKinds.contains(kind) {
            throw ValidationError("--cxone-greeting-offer is one of \(CXoneGateway.richKinds.joined(separator: ", ")), not \"\(kind)\"")
        }
        if self.cxoneGreetingOffer != nil, self.cxoneGreeting == nil {
            throw ValidationError("--cxone-greeting-offer follows the greeting: give --cxone-greeting too")
        }
        guard self.tokenLifetime > 0 else { throw ValidationError("--token-lifetime must be a positive number of seconds") }
        guard self.cxoneTokenLifetime > 0 else { throw ValidationError("--cxone-token-lifetime must be a positive number of seconds") }
        guard self.ringEvery > 0 else { throw ValidationError("--ring-every must be positive") }
        if let cancelAfter, cancelAfter <= 0 { throw ValidationError("--cancel-after must be positive") }
        guard !self.gmsService.isEmpty, !self.gmsService.contains("/") else {
            throw ValidationError("--gms-service must be a non-empty name without '/'")
        }
        guard self.gmsConnectHold >= 0, self.gmsClientWindow > 0, self.gmsGreetingDelay >= 0 else {
            throw ValidationError("--gms-connect-hold and --gms-greeting-delay must be 0 or more seconds, --gms-client-window more than 0")
        }
        guard !self.genesysDeployment.isEmpty, !self.genesysDeployment.contains("/") else {
            throw ValidationError("--genesys-deployment must be a non-empty id without '/'")
        }
        if let pair = self.genesysAuthCode, pair.split(separator: "=").count != 2 {
            throw ValidationError("--genesys-auth-code is CODE=USER")
        }
        guard self.genesysSessionDuration > 0 else { throw ValidationError("--genesys-session-duration must be a positive number of seconds") }
        guard self.karteAppKey.count == 32 else { throw ValidationError("--karte-app-key must be 32 characters, as KARTE app keys are") }
    }

}
