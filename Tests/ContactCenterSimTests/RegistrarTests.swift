import ContactCenterSim
import SIPCore
import Testing

@Suite struct RegistrarTests {
    static func start(_ clock: ManualWallClock = ManualWallClock()) async throws -> ContactCenterSimulator {
        try await ContactCenterSimulator.start(SimulatorConfiguration(now: { clock.now }))
    }

    @Test(arguments: ["udp", "tcp"])
    func challengeThenRegister(transport: String) async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let agent = try await TestUserAgent.connect(transport, to: simulator)
        defer { Task { await agent.close() } }

        let challenge = try await agent.register(user: "alice", simulator: simulator, token: nil)
        #expect(challenge.statusCode == 401)
        let bearer = try #require(try challenge.headers.wwwAuthenticate.first)
        #expect(bearer.isBearer)
        #expect(bearer.realm == "sim.attendant.test")
        #expect(bearer.error == nil)
        #expect(simulator.bindings(of: "alice").isEmpty)

        let token = simulator.issueToken(identity: "alice")
        let ok = try await agent.register(user: "alice", simulator: simulator, token: token, expires: 600)
        #expect(ok.statusCode == 200)
        let contact = try #require(try ok.headers.contacts.first)
        #expect(contact.expires == 600)
        #expect(contact.instanceID == agent.instanceID)
        #expect(!ok.serialized().contains(Array(token.utf8)), "no token in a response")

        let binding = try await simulator.waitForBinding(of: "alice", timeout: .seconds(60))
        #expect(binding.transport == transport)
        #expect(binding.sourceAddress == "127.0.0.1:\(agent.localPort)")
        #expect(binding.instanceID == agent.instanceID)
        #expect(binding.authorizationScheme == "Bearer")
        #expect(binding.contact.uri.port == agent.localPort)
        #expect(simulator.registerCount == 2)
    }

    @Test func expiredTokenAndWrongIdentityAreInvalid() async throws {
        let clock = ManualWallClock()
        let simulator = try await Self.start(clock)
        defer { Task { await simulator.stop() } }
        let agent = try await TestUserAgent.connect("udp", to: simulator)
        defer { Task { await agent.close() } }

        let token = simulator.issueToken(identity: "alice", lifetime: .seconds(60))
        clock.advance(by: 61)
        let expired = try await agent.register(user: "alice", simulator: simulator, token: token)
        #expect(expired.statusCode == 401)
        #expect(try expired.headers.wwwAuthenticate.first?.error == "invalid_token")
        #expect(try expired.headers.wwwAuthenticate.first?.realm == "sim.attendant.test")

        let bobs = simulator.issueToken(identity: "bob")
        let wrong = try await agent.register(user: "alice", simulator: simulator, token: bobs)
        #expect(wrong.statusCode == 401)
        #expect(try wrong.headers.wwwAuthenticate.first?.error == "invalid_token")

        let garbage = try await agent.register(user: "alice", simulator: simulator, token: "abc.def.ghi")
        #expect(garbage.statusCode == 401)

        let deaf = simulator.issueToken(identity: "alice", incoming: false)
        let noIncoming = try await agent.register(user: "alice", simulator: simulator, token: deaf)
        #expect(noIncoming.statusCode == 403)
        #expect(simulator.bindings(of: "alice").isEmpty)
    }

    @Test func bindingsExpireByTheInjectedClockAndExpiresZeroRemoves() async throws {
        let clock = ManualWallClock()
        let simulator = try await Self.start(clock)
        defer { Task { await simulator.stop() } }
        let agent = try await TestUserAgent.connect("udp", to: simulator)
        defer { Task { await agent.close() } }
        let token = simulator.issueToken(identity: "alice")

        let long = try await agent.register(user: "alice", simulator: simulator, token: token, expires: 7200)
        #expect(try long.headers.contacts.first?.expires == 3600, "capped at 3600")
        #expect(simulator.bindings(of: "alice").count == 1)
        clock.advance(by: 3601)
        #expect(simulator.bindings(of: "alice").isEmpty)

        _ = try await agent.register(user: "alice", simulator: simulator, token: simulator.issueToken(identity: "alice"), expires: 300)
        #expect(simulator.bindings(of: "alice").count == 1)
        let removal = try await agent.register(user: "alice", simulator: simulator, token: simulator.issueToken(identity: "alice"), expires: 0)
        #expect(removal.statusCode == 200)
        #expect(simulator.bindings(of: "alice").isEmpty)
    }

    @Test func sameInstanceReplacesTheBinding() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let first = try await TestUserAgent.connect("udp", to: simulator)
        let second = try await TestUserAgent.connect("udp", to: simulator)
        defer {
            Task {
                await first.close()
                await second.close()
            }
        }
        let token = simulator.issueToken(identity: "alice")

        _ = try await first.register(user: "alice", simulator: simulator, token: token)
        _ = try await first.register(user: "alice", simulator: simulator, token: token)
        #expect(simulator.bindings(of: "alice").count == 1)
        _ = try await second.register(user: "alice", simulator: simulator, token: token)
        #expect(simulator.bindings(of: "alice").count == 2, "another instance adds a binding")

        // The same instance from a new address replaces its old binding.
        var request = try second.registerRequest(user: "alice", simulator: simulator, token: token)
        var contact = try #require(try request.headers.contacts.first)
        contact.parameters.set("+sip.instance", "<\(first.instanceID)>", quoted: true)
        request.headers.set(.contact, contact.description)
        let response = try await second.exchange(request)
        #expect(response.statusCode == 200)
        let bindings = simulator.bindings(of: "alice")
        #expect(bindings.count == 2)
        #expect(bindings.filter { $0.instanceID == first.instanceID }.map(\.sourceAddress) == ["127.0.0.1:\(second.localPort)"])
    }

    @Test func intervalTooBriefThenAcceptedAtMinExpires() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let agent = try await TestUserAgent.connect("udp", to: simulator)
        defer { Task { await agent.close() } }
        let token = simulator.issueToken(identity: "alice")

        let builtIn = try await agent.register(user: "alice", simulator: simulator, token: token, expires: 30)
        #expect(builtIn.statusCode == 423)
        #expect(try builtIn.headers.minExpires == 60)

        simulator.inject(.intervalTooBrief(minExpires: 900))
        let brief = try await agent.register(user: "alice", simulator: simulator, token: token, expires: 600)
        #expect(brief.statusCode == 423)
        let minimum = try #require(try brief.headers.minExpires)
        #expect(minimum == 900)
        let accepted = try await agent.register(user: "alice", simulator: simulator, token: token, expires: minimum)
        #expect(accepted.statusCode == 200)
        #expect(try accepted.headers.contacts.first?.expires == 900)
    }

    @Test func faults() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let agent = try await TestUserAgent.connect("udp", to: simulator)
        defer { Task { await agent.close() } }
        let token = simulator.issueToken(identity: "alice")

        simulator.inject(.challengeLoop, times: 2)
        for _ in 0..<2 {
            let loop = try await agent.register(user: "alice", simulator: simulator, token: token)
            #expect(loop.statusCode == 401)
            #expect(try loop.headers.wwwAuthenticate.first?.isBearer == true)
        }
        #expect(try await agent.register(user: "alice", simulator: simulator, token: token).statusCode == 200, "times ran out")

        simulator.inject(.serviceUnavailable(retryAfter: 17), times: 1)
        let unavailable = try await agent.register(user: "alice", simulator: simulator, token: token)
        #expect(unavailable.statusCode == 503)
        #expect(try unavailable.headers.retryAfter == 17)

        simulator.inject(.forbidden)
        #expect(try await agent.register(user: "alice", simulator: simulator, token: token).statusCode == 403)
        #expect(try await agent.register(user: "alice", simulator: simulator, token: token).statusCode == 403, "nil times: until cleared")
        simulator.clearFaults()

        simulator.inject(.silence, times: 1)
        let before = simulator.registerCount
        await #expect(throws: TestUserAgent.Failure.self) {
            _ = try await agent.register(user: "alice", simulator: simulator, token: token, timeout: .milliseconds(300))
        }
        #expect(simulator.registerCount == before + 1, "received, not answered")

        simulator.inject(.malformed, times: 1)
        let rawBefore = agent.rawDatagrams.count
        let request = try agent.registerRequest(user: "alice", simulator: simulator, token: token)
        try await agent.send(request.serialized())
        try await agent.waitUntil("a malformed answer") { $0.rawDatagrams.count > rawBefore }
        let raw = try #require(agent.rawDatagrams.last)
        #expect(throws: SIPParseError.self) { _ = try SIPMessageParser().parse(datagram: raw) }

        #expect(try await agent.register(user: "alice", simulator: simulator, token: token).statusCode == 200)

        // Datagrams that are not SIP are dropped; the registrar keeps answering.
        for garbage in ["", "\r\n\r\n", "REGISTER", "SIP/2.0 200 OK\r\n\r\n", "REGISTER sip:x SIP/2.0\r\nVia: nonsense\r\n\r\n"] {
            try await agent.send(Array(garbage.utf8) + [0xFF])
        }
        #expect(try await agent.register(user: "alice", simulator: simulator, token: token).statusCode == 200)
    }

    @Test func tcpKeepAliveOutboundAndOtherMethods() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let agent = try await TestUserAgent.connect("tcp", to: simulator)
        defer { Task { await agent.close() } }

        try await agent.send(SIPStreamFramer.ping)
        try await agent.waitUntil("a CRLF pong") { $0.pongs == 1 }

        let token = simulator.issueToken(identity: "alice")
        let ok = try await agent.register(user: "alice", simulator: simulator, token: token, outbound: true)
        #expect(ok.statusCode == 200)
        #expect(ok.headers.values(.require).contains("outbound"))
        #expect(try ok.headers.flowTimer == 30)

        var identifiers = SIPIdentifiers()
        let options = SIPRequest(
            method: .options,
            uri: try SIPURI(parsing: "sip:127.0.0.1"),
            headers: [
                (.via, "SIP/2.0/TCP 127.0.0.1:\(agent.localPort);branch=\(identifiers.branch())"),
                (.from, "<sip:alice@sim.attendant.test>;tag=1"), (.to, "<sip:127.0.0.1>"), (.callID, "options-1"), (.cseq, "1 OPTIONS"),
            ]
        )
        #expect(try await agent.exchange(options).statusCode == 200)
        var unknown = options
        unknown.method = "FROBNICATE"
        unknown.headers.set(.via, "SIP/2.0/TCP 127.0.0.1:\(agent.localPort);branch=\(identifiers.branch())")
        unknown.headers.set(.cseq, "2 FROBNICATE")
        #expect(try await agent.exchange(unknown).statusCode == 501)
        var message = options
        message.method = .message
        message.headers.set(.via, "SIP/2.0/TCP 127.0.0.1:\(agent.localPort);branch=\(identifiers.branch())")
        message.headers.set(.cseq, "3 MESSAGE")
        #expect(try await agent.exchange(message).statusCode == 405)

        // Garbage closes the connection (after a 400), and the simulator keeps serving.
        try await agent.send(Array("NOT SIP\r\n\r\n".utf8))
        try await agent.waitUntil("the connection closes") { $0.isClosed }
        let other = try await TestUserAgent.connect("tcp", to: simulator)
        defer { Task { await other.close() } }
        #expect(try await other.register(user: "alice", simulator: simulator, token: token).statusCode == 200)
    }

    @Test func restartKeepsOrDropsBindingsAndClosesConnections() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let port = simulator.sipPort
        let agent = try await TestUserAgent.connect("tcp", to: simulator)
        let token = simulator.issueToken(identity: "alice")
        #expect(try await agent.register(user: "alice", simulator: simulator, token: token).statusCode == 200)

        try await simulator.restart(keepBindings: true)
        try await agent.waitUntil("the TCP connection closes") { $0.isClosed }
        #expect(simulator.sipPort == port)
        #expect(simulator.bindings(of: "alice").count == 1)

        let again = try await TestUserAgent.connect("tcp", to: simulator)
        #expect(try await again.register(user: "alice", simulator: simulator, token: token).statusCode == 200)
        try await simulator.restart(keepBindings: false)
        try await again.waitUntil("the TCP connection closes") { $0.isClosed }
        #expect(simulator.bindings(of: "alice").isEmpty)

        await simulator.stopRegistrar()
        let udp = try await TestUserAgent.connect("udp", to: simulator)
        defer { Task { await udp.close() } }
        await #expect(throws: TestUserAgent.Failure.self) {
            _ = try await udp.register(user: "alice", simulator: simulator, token: token, timeout: .milliseconds(200))
        }
        try await simulator.startRegistrar()
        #expect(simulator.sipPort == port)
        #expect(try await udp.register(user: "alice", simulator: simulator, token: token).statusCode == 200)
    }
}
