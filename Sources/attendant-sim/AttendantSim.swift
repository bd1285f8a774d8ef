import ArgumentParser
import ContactCenterSim
import CXoneCore
import Foundation
import UnixSignals

/// `attendant-sim`: the loopback contact centre for the demo and the daemon tests.
@main
struct AttendantSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attendant-sim",
        abstract: "A loopback contact centre: token endpoint, SIP registrar (Bearer tokens) and caller, and a CXone chat gateway.",
        discussion: """
            On start it prints one JSON line on stdout: sip_port, http_port, token_url, \
            registrar_udp, registrar_tcp, domain, cxone_socket, cxone_chat, cxone_brand and \
            cxone_channel.

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

            CXone chat gateway, on the same HTTP port:
              WebSocket /chat-gateway?brandId=&channelId=&visitorId=&sdkPlatform=&sdkVersion=
              GET  /chat/1.0/brand/B/channel/C[/availability]
              PUT  /web-analytics/1.0/tenants/B/visitors/V, POST …/V/events
              GET  /s3/ID                    bodies of EventInS3 (events over 128 KB)
              POST /control/cxone/agent?thread=ID&text=TEXT[&size=BYTES][&at=UNIX-SECONDS]
                   (customer=ID instead of thread: the agent opens a new thread;
                   size pads the text, over 128 KB it goes out as EventInS3)
              POST /control/cxone/s3         park the request body at /s3/ID; answers its url
              POST /control/cxone/push       the request body, as is, as one text frame
                                             to every client socket
              POST /control/cxone/availability?online=1|0
              POST /control/cxone/fault?kind=KIND
                   KIND: server-error&event=TYPE, operation-error&event=TYPE[&code=CODE],
                   drop-next, missing-pongs, s3-failure,
                   rest-error&endpoint=configuration|availability|visitor|events[&code=CODE][&status=N],
                   down (every socket dropped; upgrades and the chat REST endpoints
                   answer 503; threads are kept for when it comes back)
              POST /control/cxone/clear-faults  every fault off (a down gateway comes back)
              POST /control/cxone/drop       close every client socket
              GET  /control/cxone/threads    threads with their messages
              GET  /control/cxone/status     connections, online, down, visitors, analytics,
                                             received event types, connected customers

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

    @Option(help: ArgumentHelp("Call this user (as \"Grace Hopper\" <sip:grace@DOMAIN>) every --ring-every seconds once registered; each outcome is one line on stderr.", valueName: "user"))
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

    @Flag(help: "The CXone channel announces a pre-chat form (email, required; topic: billing, delivery or other).")
    var cxonePreChatForm = false

    @Option(help: ArgumentHelp("The CXone agent opens a thread with this message 2 s after a customer without a thread authorizes (the demo's conversation).", valueName: "text"))
    var cxoneGreeting: String?

    func validate() throws {
        guard (0...65535).contains(self.sipPort), (0...65535).contains(self.httpPort) else {
            throw ValidationError("ports must be between 0 and 65535")
        }
        guard !self.cxoneChannel.isEmpty else { throw ValidationError("--cxone-channel must not be empty") }
        guard self.tokenLifetime > 0 else { throw ValidationError("--token-lifetime must be a positive number of seconds") }
        guard self.ringEvery > 0 else { throw ValidationError("--ring-every must be positive") }
        if let cancelAfter, cancelAfter <= 0 { throw ValidationError("--cancel-after must be positive") }
    }

    func run() async throws {
        var configuration = SimulatorConfiguration(
            sipPort: self.sipPort,
            httpPort: self.httpPort,
            domain: self.domain,
            tokenLifetime: .seconds(self.tokenLifetime),
            cxone: CXoneGatewaySettings(
                brandId: self.cxoneBrand,
                channelId: self.cxoneChannel,
                isLiveChat: self.cxoneLiveChat,
                isAuthorizationEnabled: self.cxoneOauth,
                hasMultipleThreadsPerEndUser: self.cxoneMultiThread,
                isOnline: !self.cxoneOffline,
                autoReply: self.cxoneAutoReply,
                welcomeMessage: self.cxoneWelcome
            )
        )
        if self.cxonePreChatForm { configuration.cxone.preContactForm = CXoneGatewaySettings.samplePreChatForm }
        configuration.cxone.greeting = self.cxoneGreeting
        if let file = self.signingKeyFile {
            guard var key = FileManager.default.contents(atPath: file).map(Array.init) else {
                throw ValidationError("cannot read the signing key file \(file); check the path and its permissions")
            }
            while key.last == UInt8(ascii: "\n") || key.last == UInt8(ascii: "\r") { key.removeLast() }
            guard !key.isEmpty else { throw ValidationError("the signing key file \(file) is empty") }
            configuration.signingKey = key
        }
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let simulator = try await ContactCenterSimulator.start(configuration)
        let announcement: [String: Any] = [
            "sip_port": simulator.sipPort,
            "http_port": simulator.httpPort,
            "token_url": simulator.tokenURL,
            "registrar_udp": simulator.registrarURI(transport: "udp"),
            "registrar_tcp": simulator.registrarURI(transport: "tcp"),
            "domain": configuration.domain,
            "cxone_socket": simulator.cxoneEndpoints.socket,
            "cxone_chat": simulator.cxoneEndpoints.chat,
            "cxone_brand": self.cxoneBrand,
            "cxone_channel": self.cxoneChannel,
        ]
        let data = try JSONSerialization.data(withJSONObject: announcement, options: [.sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(data + Data("\n".utf8))

        await withTaskGroup(of: Void.self) { group in
            if let user = self.ring {
                group.addTask { await Ringer(simulator: simulator, user: user, every: self.ringEvery, cancelAfter: self.cancelAfter).run() }
            }
            for await _ in signals { break }
            group.cancelAll()
        }
        await simulator.stop()
    }
}
