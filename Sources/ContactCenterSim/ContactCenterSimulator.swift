import Synchronization

/// A loopback contact centre: for voice an HS256 token endpoint, a SIP registrar that checks Bearer
/// tokens (UDP and TCP on one port) and a caller that INVITEs registered users; for chat a CXone gateway
/// (``cxone``) and a GMS chat server (``gms``); for in-app actions a KARTE track endpoint (``karte``); faults to inject, and an HTTP control API for tests in
/// another process.
///
/// ```swift
/// let simulator = try await ContactCenterSimulator.start(SimulatorConfiguration())
/// let token = simulator.issueToken(identity: "alice")
/// // … a user agent registers sip:alice@sim.attendant.test at simulator.registrarURI(transport: "tcp") …
/// let call = try await simulator.call(user: "alice", fromDisplayName: "Grace Hopper", fromURI: "sip:grace@sim.attendant.test")
/// let final = try await call.waitForFinal(timeout: .seconds(5))
/// await simulator.stop()
/// ```
package final class ContactCenterSimulator: Sendable {
    package let configuration: SimulatorConfiguration
    let registrar: Registrar
    let transport: SimSIPSockets
    let http: SimulatorHTTPServer
    /// The CXone chat gateway: REST and WebSocket on the HTTP port.
    package let cxone: CXoneGateway
    /// The GMS chat server: CometD (Bayeux) and Chat API v1/v2 on the HTTP port.
    package let gms: GMSChatServer
    /// The KARTE track endpoint (`/v0/native/track`) with scripted campaigns, on the HTTP port.
    package let karte: KarteTrackServer
    /// The Genesys Cloud web messaging service: WebSocket `/v1`, deployment configuration, history, on the HTTP port.
    package let genesys: GenesysMessagingServer
    private let tokens = Mutex(TokenState())
    private let calls = Mutex(CallState())

    private struct TokenState {
        var issued = 0
        /// Every token issued, for the secret scan of Benchmarks/fault_campaign.py (`/control/secrets`).
        var values: [String] = []
        var refusesRenewals = false
    }

    private struct CallState {
        var byBranch: [String: SimulatedCall] = [:]
        var all: [SimulatedCall] = []
    }

    private init(configuration: SimulatorConfiguration) {
        self.configuration = configuration
        self.registrar = Registrar(configuration: configuration)
        self.transport = SimSIPSockets(host: configuration.host, port: configuration.sipPort)
        let http = SimulatorHTTPServer(host: configuration.host, port: configuration.httpPort)
        self.http = http
        self.cxone = CXoneGateway(settings: configuration.cxone, now: configuration.now) { [host = configuration.host] in
            "http://\(host):\(http.port)"
        }
        self.gms = GMSChatServer(settings: configuration.gms, now: configuration.now) { [host = configuration.host] in
            "http://\(host):\(http.port)"
        }
        self.karte = KarteTrackServer(settings: configuration.karte, now: configuration.now) { [host = configuration.host] in
            "http://\(host):\(http.port)"
        }
        self.genesys = GenesysMessagingServer(settings: configuration.genesys, signingKey: configuration.signingKey, now: configuration.now) {
            [host = configuration.host] in "http://\(host):\(http.port)"
        }
    }

    /// Opens the SIP sockets and the HTTP endpoint.
    package static func start(_ configuration: SimulatorConfiguration) async throws -> ContactCenterSimulator {
        let simulator = ContactCenterSimulator(configuration: configuration)
        simulator.transport.setInbound { [weak simulator] message, flow in simulator?.receive(message, on: flow) }
        try await simulator.transport.start()
        do {
            let gateway = simulator.cxone
            let webSocket = WebSocketEndpoint(path: CXoneGateway.socketPath, accepts: { gateway.acceptsUpgrade(query: $0.query) }) {
                request,
                channel in
                try CXoneGatewaySocketHandler.install(on: channel, gateway: gateway, request: request)
            }
            try await simulator.http.start(
                route: { [weak simulator] request in
                    guard let simulator else { return .error(503, "the simulator is stopping") }
                    return await simulator.route(request)
                },
                webSockets: [webSocket, simulator.gms.webSocketEndpoint, simulator.genesys.webSocketEndpoint]
            )
        } catch {
            await simulator.transport.stop()
            throw error
        }
        return simulator
    }

    /// Closes every socket and stops every call's timers.
    package func stop() async {
        for call in self.calls.withLock({ $0.all }) { call.stopTimers() }
        self.gms.shutdown()
        await self.transport.stop()
        await self.http.stop()
    }

    // MARK: Addresses

    package var sipPort: Int { self.transport.port }
    package var httpPort: Int { self.http.port }

    /// The registrar's URI for a transport (`udp` or `tcp`): `sip:127.0.0.1:PORT;transport=tcp`.
    package func registrarURI(transport: String) -> String {
        "sip:\(self.configuration.host):\(self.sipPort);transport=\(transport.lowercased())"
    }

    /// A user's address of record: `sip:alice@sim.attendant.test`.
    package func addressOfRecord(_ user: String) -> String { "sip:\(user)@\(self.configuration.domain)" }

    /// Where the plugin finds the CXone gateway: socket `ws://HOST:PORT/chat-gateway`, chat
    /// `http://HOST:PORT/chat`, host `http://HOST:PORT`.
    package var cxoneEndpoints: CXoneGatewayEndpoints {
        let root = "\(self.configuration.host):\(self.httpPort)"
        return CXoneGatewayEndpoints(socket: "ws://\(root)\(CXoneGateway.socketPath)", chat: "http://\(root)/chat", host: "http://\(root)")
    }

    /// Where the plugin finds the web messaging service: one `HOST:PORT` for the socket, the CDN and the API.
    package var genesysEndpoints: GenesysMessagingEndpoints {
        GenesysMessagingEndpoints(endpoint: "\(self.configuration.host):\(self.httpPort)", deploymentId: self.configuration.genesys.deploymentId)
    }

    /// The token endpoint with the identity parameter last and empty: append the user's name.
    package var tokenURL: String { "http://\(self.configuration.host):\(self.httpPort)/token?identity=" }

    // MARK: Tokens

    /// Signs a token for `identity`, valid from now (the configuration's clock) for `lifetime` (the
    /// configured lifetime by default). `incoming: false` makes a token that cannot receive calls.
    package func issueToken(identity: String, lifetime: Duration? = nil, incoming: Bool = true) -> String {
        let now = Int(self.configuration.now())
        let lifetime = (lifetime ?? self.configuration.tokenLifetime).wholeSeconds
        let claims = SimulatorTokenClaims(
            iss: self.configuration.accountSID,
            sub: self.configuration.accountSID,
            jti: "\(self.configuration.accountSID)-\(SimSIPText.random(20))",
            iat: now,
            nbf: now,
            exp: now + lifetime,
            grants: .init(identity: identity, voice: .init(incoming: .init(allow: incoming)))
        )
        let token = SimulatorToken.sign(claims, key: self.configuration.signingKey)
        self.tokens.withLock {
            $0.issued += 1
            $0.values.append(token)
        }
        return token
    }

    /// While on, the token endpoint answers `403 {"error":"renewals refused by the simulator"}`.
    package func setRefusesRenewals(_ refuse: Bool) { self.tokens.withLock { $0.refusesRenewals = refuse } }

    package var refusesRenewals: Bool { self.tokens.withLock { $0.refusesRenewals } }

    /// Tokens issued so far, by ``issueToken(identity:lifetime:incoming:)`` and the endpoint.
    package var tokensIssued: Int { self.tokens.withLock { $0.issued } }

    /// The tokens issued so far, oldest first.
    package var issuedTokens: [String] { self.tokens.withLock { $0.values } }

    // MARK: Registrar

    /// The user's bindings that have not expired by the configuration's clock.
    package func bindings(of user: String) -> [SimulatedBinding] { self.registrar.bindings(of: user) }

    /// Waits until the user has a binding, and returns the newest.
    package func waitForBinding(of user: String, timeout: Duration) async throws -> SimulatedBinding {
        try await poll(timeout: timeout, failure: .timeout("'\(user)' did not register", timeout)) {
            self.registrar.bindings(of: user).last
        }
    }

    /// Makes the registrar misbehave on the next `times` REGISTERs the fault applies to (nil: until
    /// ``clearFaults()``).
    package func inject(_ fault: RegistrarFault, times: Int? = nil) { self.registrar.inject(fault, times: times) }

    package func clearFaults() { self.registrar.clearFaults() }

    /// REGISTER requests received so far, answered or not.
    package var registerCount: Int { self.registrar.registerCount }

    /// Closes every TCP connection and both SIP sockets and reopens them on the same port; the bindings
    /// stay (their TCP flows are gone) or are dropped.
    package func restart(keepBindings: Bool) async throws {
        await self.stopRegistrar()
        if !keepBindings { self.registrar.dropBindings() }
        try await self.startRegistrar()
    }

    /// Closes the SIP sockets and every TCP connection: the registrar is unreachable until
    /// ``startRegistrar()``.
    package func stopRegistrar() async { await self.transport.stop() }

    /// Reopens the SIP sockets on the same port.
    package func startRegistrar() async throws { try await self.transport.start() }

    // MARK: Caller

    /// Calls the user's newest binding: an INVITE over the flow it registered on.
    package func call(user: String, fromDisplayName: String, fromURI: String) async throws -> SimulatedCall {
        guard let binding = self.bindings(of: user).last else { throw SimulatorError.notRegistered(user) }
        let from: SimSIPURI
        do { from = try SimSIPURI(parsing: fromURI) } catch {
            throw SimulatorError(.callState, "caller URI \(fromURI) is not a SIP URI: \(error)")
        }
        let branch = SimSIPMessage.newBranch()
        var parameters = SimSIPParameters()
        parameters.set("tag", SimSIPMessage.newTag())
        let invite = self.makeInvite(
            to: binding,
            from: SimSIPAddress(displayName: fromDisplayName, uri: from, parameters: parameters),
            callID: SimSIPMessage.newCallID(host: self.configuration.host),
            branch: branch
        )
        let call = self.calls.withLock { state in
            let call = SimulatedCall(
                number: state.all.count + 1,
                user: user,
                invite: invite,
                branch: branch,
                flow: binding.flow,
                transport: self.transport
            )
            state.byBranch[branch] = call
            state.all.append(call)
            return call
        }
        try call.send()
        return call
    }

    /// Every call placed so far, oldest first.
    package var placedCalls: [SimulatedCall] { self.calls.withLock { $0.all } }

    private func makeInvite(to binding: SimulatedBinding, from: SimSIPAddress, callID: String, branch: String) -> SimSIPMessage {
        var via = SimSIPVia(transport: binding.transport.uppercased(), sentBy: "\(self.configuration.host):\(self.sipPort)")
        via.parameters.set("branch", branch)
        via.parameters.set("rport", nil)
        var invite = SimSIPMessage.request("INVITE", binding.contact.uri.description)
        invite.add("Via", via.description)
        invite.add("Max-Forwards", "70")
        invite.add("From", from.description)
        invite.add("To", "<\(self.addressOfRecord(binding.user))>")
        invite.add("Call-ID", callID)
        invite.add("CSeq", SimSIPCSeq(1, "INVITE").description)
        var contact = SimSIPURI(user: "sim", host: self.configuration.host, port: self.sipPort)
        if binding.transport == "tcp" { contact.parameters.set("transport", "tcp") }
        invite.add("Contact", "<\(contact)>")
        invite.add("Allow", "INVITE, ACK, CANCEL, BYE, OPTIONS")
        invite.add("Content-Type", "application/sdp")
        let sdp = """
            v=0\r
            o=sim 1 1 IN IP4 \(self.configuration.host)\r
            s=ContactCenterSim\r
            c=IN IP4 \(self.configuration.host)\r
            t=0 0\r
            m=audio 9 RTP/AVP 0\r
            a=rtpmap:0 PCMU/8000\r

            """
        invite.body = Array(sdp.utf8)
        return invite
    }

    // MARK: Inbound SIP

    private func receive(_ message: SimSIPMessage, on flow: SIPFlow) {
        guard let method = message.method else {
            guard let branch = try? message.topVia().branch else { return }
            self.calls.withLock { $0.byBranch[branch] }?.receive(message)
            return
        }
        let request = message
        guard (try? request.topVia()) != nil else { return }  // no way to address an answer
        let answer: RegistrarAnswer
        switch method {
        case "REGISTER":
            answer = self.registrar.handle(request, flow: flow)
        case "ACK":
            answer = .silence
        case "OPTIONS":
            answer = .respond(.answering(request, 200, extra: [SimSIPField("Allow", Self.allowed)]))
        case "CANCEL":
            answer = .respond(.answering(request, 481))
        case "INVITE", "BYE", "INFO", "UPDATE", "PRACK", "SUBSCRIBE", "NOTIFY", "REFER", "MESSAGE", "PUBLISH":
            answer = .respond(.answering(request, 405, extra: [SimSIPField("Allow", Self.allowed)]))
        default:
            answer = .respond(.answering(request, 501))
        }
        switch answer {
        case .respond(let response): try? self.transport.send(response.serialized, on: flow)
        case .raw(let bytes): try? self.transport.send(bytes, on: flow)
        case .silence: break
        }
    }

    static let allowed = "REGISTER, OPTIONS, ACK, CANCEL"
}
