import AsyncHTTPClient
import ContactCenterSim
import Foundation
import Glibc
import NIOCore
import NIOHTTP1
import SIPCore
import Synchronization
import TestSupport
import Testing

/// `attendant-sim` as a child process.
final class SimulatorProcess: Sendable {
    let process: SpawnedProcess
    let announcement: [String: any Sendable]
    private let stderr: PipeOutput

    /// Where `swift build` put the executables: beside the test bundle.
    static let executable: String = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return (exe as NSString).deletingLastPathComponent + "/attendant-sim"
    }()

    init(_ arguments: [String]) async throws {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        self.process = process
        self.stderr = PipeOutput(err.fileHandleForReading)
        // The first line of stdout: the process writes it right after binding.
        guard let line = await firstLine(of: out.fileHandleForReading.fileDescriptor) else {
            process.signal(SIGKILL)
            throw FixtureError("attendant-sim did not announce itself; its stderr:\n\(self.stderr.text)")
        }
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        self.announcement = (object ?? [:]).mapValues { "\($0)" }
    }

    var errorOutput: String { self.stderr.text }

    /// SIGTERM; its exit status, or -1 if it did not end within 20 s and was killed.
    func terminate() -> Int32 {
        self.process.terminate()
        return self.process.exitStatus() ?? -1
    }
}

@Suite struct ExecutableTests {
    static func post(_ client: HTTPClient, _ url: String, method: HTTPMethod = .POST) async throws -> (Int, [String: Any]) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        let response = try await client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 1 << 20)
        let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        return (Int(response.status.code), object ?? [:])
    }

    @Test func printsTheAnnouncementAndAnswersTheControlAPI() async throws {
        let sim = try await SimulatorProcess(["--token-lifetime", "120"])
        defer { if sim.process.isRunning { _ = sim.terminate() } }
        let keys = Set(sim.announcement.keys)
        #expect(
            keys == [
                "sip_port", "http_port", "token_url", "registrar_udp", "registrar_tcp", "domain", "cxone_socket", "cxone_chat", "cxone_brand",
                "cxone_channel", "gms_cometd", "gms_base", "gms_service", "genesys_endpoint", "genesys_deployment", "karte_base", "karte_app_key",
            ]
        )
        let httpPort = try #require((sim.announcement["http_port"] as? String).flatMap { Int($0) })
        #expect(sim.announcement["gms_cometd"] as? String == "http://127.0.0.1:\(httpPort)/genesys/cometd")
        #expect(sim.announcement["gms_base"] as? String == "http://127.0.0.1:\(httpPort)/genesys")
        #expect(sim.announcement["gms_service"] as? String == "customer-support")
        #expect(sim.announcement["karte_base"] as? String == "http://127.0.0.1:\(httpPort)")
        #expect(sim.announcement["genesys_endpoint"] as? String == "127.0.0.1:\(httpPort)")
        #expect(sim.announcement["genesys_deployment"] as? String == GenesysMessagingSettings().deploymentId)
        #expect(sim.announcement["karte_app_key"] as? String == "demoappkey0000000000000000000001")
        let sipPort = try #require((sim.announcement["sip_port"] as? String).flatMap { Int($0) })
        #expect(sim.announcement["token_url"] as? String == "http://127.0.0.1:\(httpPort)/token?identity=")
        #expect(sim.announcement["registrar_tcp"] as? String == "sip:127.0.0.1:\(sipPort);transport=tcp")
        #expect(sim.announcement["domain"] as? String == "sim.attendant.test")

        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = client.shutdown() }
        let base = "http://127.0.0.1:\(httpPort)"

        let (status, token) = try await Self.post(client, base + "/token?identity=alice", method: .GET)
        #expect(status == 200)
        #expect(token["expires_in"] as? Int == 120)
        let jwt = try #require(token["token"] as? String)
        let (_, secrets) = try await Self.post(client, base + "/control/secrets", method: .GET)
        #expect(secrets["voice_tokens"] as? [String] == [jwt], "every issued token, for the fault campaign's secret scan")
        #expect(secrets["karte_app_key"] as? String == "demoappkey0000000000000000000001")

        #expect(try await Self.post(client, base + "/control/refuse-renewals?on=1").0 == 200)
        #expect(try await Self.post(client, base + "/token?identity=alice").0 == 403)
        #expect(try await Self.post(client, base + "/control/refuse-renewals?on=0").0 == 200)
        #expect(try await Self.post(client, base + "/control/fault?kind=bogus").0 == 400)
        #expect(try await Self.post(client, base + "/control/fault?kind=503&times=1").0 == 200)
        #expect(try await Self.post(client, base + "/control/call?user=alice").0 == 404, "nobody registered")

        // A user agent registers with the process's registrar: first the 503, then a binding.
        let agent = try await TestUserAgent.connect(toPort: sipPort)
        defer { Task { await agent.close() } }
        let request = try agent.registerRequest(user: "alice", domain: "sim.attendant.test", token: jwt)
        #expect(try await agent.exchange(request).statusCode == 503)
        let retry = try agent.registerRequest(user: "alice", domain: "sim.attendant.test", token: jwt)
        #expect(try await agent.exchange(retry).statusCode == 200)
        let (_, bindings) = try await Self.post(client, base + "/control/bindings?user=alice", method: .GET)
        let list = try #require(bindings["bindings"] as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list.first?["transport"] as? String == "udp")

        let (callStatus, placed) = try await Self.post(client, base + "/control/call?user=alice")
        #expect(callStatus == 200)
        let callID = try #require(placed["call_id"] as? String)
        let invite = try await agent.receiveRequest(.invite)
        #expect(try invite.headers.callID == callID)
        try await agent.answer(invite, 180)
        try await agent.answer(invite, 603)
        _ = try await agent.receiveRequest(.ack)
        let (_, calls) = try await Self.post(client, base + "/control/calls", method: .GET)
        let entry = try #require((calls["calls"] as? [[String: Any]])?.first)
        #expect(entry["call_id"] as? String == callID)
        #expect(entry["final_code"] as? Int == 603)

        #expect(try await Self.post(client, base + "/control/restart?keep-bindings=0").0 == 200)
        let (_, after) = try await Self.post(client, base + "/control/bindings?user=alice", method: .GET)
        #expect((after["bindings"] as? [Any])?.isEmpty == true)

        #expect(sim.terminate() == 0, "SIGTERM exits cleanly")
        #expect(!sim.errorOutput.contains(jwt), "no token on stderr")
    }

    @Test func helpExplainsTheOptions() async throws {
        let (status, text) = try await run(SimulatorProcess.executable, ["--help"])
        #expect(status == 0)
        let options = [
            "--sip-port", "--http-port", "--token-lifetime", "--signing-key-file", "--ring", "--ring-every", "--cancel-after", "/control/fault",
            "--cxone-live-chat", "--cxone-offline", "/control/cxone/fault", "down (every socket dropped", "--genesys-auth",
            "--genesys-greeting", "/control/genesys/fault", "/api/v2/webmessaging/messages",
        ]
        for option in options {
            #expect(text.contains(option), "help mentions \(option)")
        }
    }

    static func port(_ sim: SimulatorProcess, _ key: String) throws -> Int {
        try #require((sim.announcement[key] as? String).flatMap { Int($0) })
    }

    static func waitForLine(_ sim: SimulatorProcess, containing text: String) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(60))
        while !sim.errorOutput.contains(text) {
            guard clock.now < deadline else {
                Issue.record("stderr never said \(text); it said: \(sim.errorOutput)")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Starts `attendant-sim` with `arguments` and registers alice over TCP with a token from its endpoint.
    static func ringing(_ arguments: [String]) async throws -> (SimulatorProcess, TestUserAgent, String) {
        let sim = try await SimulatorProcess(arguments)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = client.shutdown() }
        let (_, issued) = try await Self.post(client, "http://127.0.0.1:\(try Self.port(sim, "http_port"))/token?identity=alice")
        let jwt = try #require(issued["token"] as? String)
        let agent = try await TestUserAgent.connect("tcp", toPort: try Self.port(sim, "sip_port"))
        let register = try agent.registerRequest(user: "alice", domain: "sim.attendant.test", token: jwt)
        #expect(try await agent.exchange(register).statusCode == 200)
        return (sim, agent, jwt)
    }

    @Test func ringsARegisteredUserAndLogsEachOutcome() async throws {
        let scratch = try makeTemporaryFolder("attendant-sim-test")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let keyFile = scratch + "/key"
        try "file key for the ring test, 32b!\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
        let (sim, agent, jwt) = try await Self.ringing(["--signing-key-file", keyFile, "--ring", "alice", "--ring-every", "0.2"])
        defer {
            Task { await agent.close() }
            if sim.process.isRunning { _ = sim.terminate() }
        }
        _ = try TokenTests.decode(jwt, key: Array("file key for the ring test, 32b!".utf8))

        // Call 1: redirected to the softphone.
        let first = try await agent.receiveRequest(.invite)
        #expect(try first.headers.from.displayName == "Grace Hopper")
        #expect(try first.headers.from.uri.description == "sip:grace@sim.attendant.test")
        try await agent.answer(first, 180)
        try await agent.answer(first, 302, contact: SIPNameAddress(uri: try SIPURI(parsing: "sip:softphone@192.0.2.7")))
        try await Self.waitForLine(sim, containing: "call 1 to alice: 302 Moved Temporarily -> sip:softphone@192.0.2.7")

        // Call 2, declined.
        let second = try await agent.receiveRequest(.invite)
        #expect(try second.headers.callID != first.headers.callID)
        try await agent.answer(second, 603)
        try await Self.waitForLine(sim, containing: "call 2 to alice: 603 Decline")

        #expect(sim.terminate() == 0)
        #expect(!sim.errorOutput.contains(jwt))
    }

    @Test func cancelsARingingCallAfterCancelAfter() async throws {
        let (sim, agent, _) = try await Self.ringing(["--ring", "alice", "--ring-every", "60", "--cancel-after", "0.3"])
        defer {
            Task { await agent.close() }
            if sim.process.isRunning { _ = sim.terminate() }
        }
        let invite = try await agent.receiveRequest(.invite)
        try await agent.answer(invite, 180)
        let cancel = try await agent.receiveRequest(.cancel)
        try await agent.answer(cancel, 200)
        try await agent.answer(invite, 487)
        _ = try await agent.receiveRequest(.ack)
        try await Self.waitForLine(sim, containing: "call 1 to alice: 487 (caller cancelled)")
        #expect(sim.terminate() == 0)
    }

    @Test func cxoneFlagsShapeTheChannelAndTheGatewayGoesDownAndComesBack() async throws {
        let sim = try await SimulatorProcess(["--cxone-live-chat", "--cxone-offline"])
        defer { if sim.process.isRunning { _ = sim.terminate() } }
        let base = "http://127.0.0.1:\(try Self.port(sim, "http_port"))"
        let channel = base + "/chat/1.0/brand/1386/channel/chat_sim"
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = client.shutdown() }

        let (status, configuration) = try await Self.post(client, channel, method: .GET)
        #expect(status == 200)
        #expect(configuration["isLiveChat"] as? Bool == true)
        let (_, availability) = try await Self.post(client, channel + "/availability", method: .GET)
        #expect(availability["status"] as? String == "offline")

        #expect(try await Self.post(client, base + "/control/cxone/fault?kind=down").0 == 200)
        let (downStatus, refusal) = try await Self.post(client, channel, method: .GET)
        #expect(downStatus == 503)
        #expect((refusal["error"] as? [String: Any])?["errorCode"] as? String == "ServiceUnavailable")
        #expect(try await Self.post(client, base + "/control/cxone/status", method: .GET).1["down"] as? Bool == true)
        #expect(try await Self.post(client, base + "/control/cxone/clear-faults").0 == 200)
        #expect(try await Self.post(client, channel, method: .GET).0 == 200)
        #expect(sim.terminate() == 0)
    }

    @Test func refusesAMissingKeyFile() async throws {
        let (status, text) = try await run(SimulatorProcess.executable, ["--signing-key-file", "/nonexistent/attendant-sim-key"])
        #expect(status != 0)
        #expect(text.contains("/nonexistent/attendant-sim-key"))
    }
}
