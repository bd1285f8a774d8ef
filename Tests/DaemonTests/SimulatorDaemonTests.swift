import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// The real `attendantd` with the SIPVoice plugin against the real `attendant-sim` (token endpoint and
/// Bearer registrar), driven with the real `attendantctl`; every output of the run is then searched for
/// token material.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SimulatorDaemonTests {
    /// `attendant-sim` as a child process; its announcement line read.
    final class Simulator {
        let process: SpawnedProcess
        let announcement: [String: Any]
        /// Its stderr, read as it comes (a pipe nobody reads would block the simulator's logging).
        private let errors: PipeOutput

        init(_ arguments: [String] = []) async throws {
            let process = SpawnedProcess()
            process.executableURL = URL(fileURLWithPath: BuildProducts.directory + "/attendant-sim")
            process.arguments = arguments
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            self.process = process
            self.errors = PipeOutput(err.fileHandleForReading)
            guard let line = await firstLine(of: out.fileHandleForReading.fileDescriptor) else {
                process.signal(SIGKILL)
                throw FixtureError("attendant-sim did not announce itself; its stderr:\n\(self.errors.text)")
            }
            self.announcement = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
        }

        var httpPort: Int { self.announcement["http_port"] as? Int ?? 0 }

        /// `curl` against the control API; the response body.
        func control(_ method: String, _ path: String) async throws -> String {
            let (status, output) = try await run(
                "/usr/bin/curl",
                ["-s", "--max-time", "20", "-X", method, "http://127.0.0.1:\(self.httpPort)\(path)"]
            )
            guard status == 0 else { throw FixtureError("curl \(path) failed (\(status)): \(output)") }
            return output
        }

        /// `curl` with a JSON body.
        func control(_ method: String, _ path: String, body: String) async throws -> String {
            let (status, output) = try await run(
                "/usr/bin/curl",
                [
                    "-s", "--max-time", "20", "-X", method, "-H", "Content-Type: application/json", "--data-binary", body,
                    "http://127.0.0.1:\(self.httpPort)\(path)",
                ]
            )
            guard status == 0 else { throw FixtureError("curl \(path) failed (\(status)): \(output)") }
            return output
        }

        func controlJSON(_ method: String, _ path: String) async throws -> [String: Any] {
            try await JSONSerialization.jsonObject(with: Data(self.control(method, path).utf8)) as? [String: Any] ?? [:]
        }

        /// The simulator's record of call `number` once it has a final response.
        func finalOutcome(of callID: String) async throws -> [String: Any] {
            var found: [String: Any]?
            try await eventually("call \(callID) to end") {
                let calls = try await self.controlJSON("GET", "/control/calls")["calls"] as? [[String: Any]] ?? []
                found = calls.first { $0["call_id"] as? String == callID && $0["final_code"] != nil }
                return found != nil
            }
            return found!
        }

        func stop() -> String {
            self.process.signal(SIGTERM)
            self.process.exitStatus()
            self.errors.waitForEnd()
            return self.errors.text
        }
    }

    /// attendantd with one sip-voice channel "phone" for alice at `simulator`, ready.
    static func daemon(_ simulator: Simulator, scratch: Scratch, bus: PrivateBus, extra: String = "") async throws -> DaemonProcess {
        try await TokenDaemonTests.daemon(
            """
            [[channel]]
            name = "phone"
            plugin = "sip-voice"
            token-url = "\(simulator.announcement["token_url"] as? String ?? "")alice"
            token-url-field = "token"

            [channel.sip-voice]
            registrar = "\(simulator.announcement["registrar_tcp"] as? String ?? "")"
            address-of-record = "sip:alice@\(simulator.announcement["domain"] as? String ?? "")"
            \(extra)
            """,
            scratch: scratch,
            bus: bus
        )
    }

    @Test func registrarFaultsAreNamedAndTheChannelRecoversOrAsksToSignIn() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        // 423 before the first registration: the channel registers for the registrar's minimum.
        _ = try await simulator.control("POST", "/control/fault?kind=423&min-expires=900&times=1")
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        func state(_ wanted: String) async throws -> [String: Any] {
            try await TokenDaemonTests.channel("phone", bus: bus) { $0["state"] as? String == wanted }
        }
        #expect(try await state("listening")["state"] as? String == "listening", "\(daemon.stderr)")
        let bindings = try await simulator.controlJSON("GET", "/control/bindings?user=alice")["bindings"] as? [[String: Any]] ?? []
        #expect((bindings.first?["expires_in"] as? Int).map { (850...900).contains($0) } == true, "\(bindings)")

        // Bytes that are not SIP in answer to a REGISTER: named in the log; the connection is dropped and
        // the channel registers again by itself.
        _ = try await simulator.control("POST", "/control/fault?kind=malformed&times=1")
        await #expect(try TokenDaemonTests.ctl(["token", "renew", "phone"], bus: bus).status == 0)
        #expect(await daemon.waitForLog("not valid SIP"), "\(daemon.stderr)")
        try await eventually("listening again after the malformed answer") {
            daemon.stderr.components(separatedBy: "sip-voice: registered").count >= 3
        }
        #expect(try await state("listening")["state"] as? String == "listening")

        // 503 on every REGISTER, the connection dropped meanwhile: recovering, with the registrar's answer as
        // the reason; when the registrar is well again, listening.
        _ = try await simulator.control("POST", "/control/fault?kind=503&retry-after=1")
        _ = try await simulator.control("POST", "/control/restart?keep-bindings=1")
        let recovering = try await TokenDaemonTests.channel("phone", bus: bus) {
            $0["state"] as? String == "recovering" && ($0["detail"] as? String ?? "").contains("503")
        }
        #expect(recovering["state"] as? String == "recovering", "\(recovering)\n\(daemon.stderr)")
        #expect((recovering["detail"] as? String ?? "").contains("503 Service Unavailable"), "\(recovering)")
        _ = try await simulator.control("POST", "/control/clear-faults")
        #expect(try await state("listening")["state"] as? String == "listening", "\(daemon.stderr)")

        // A registrar that challenges every token: the token is renewed once, then the user must sign in.
        _ = try await simulator.control("POST", "/control/fault?kind=401-loop")
        _ = try await simulator.control("POST", "/control/restart?keep-bindings=1")
        let failed = try await state("failed")
        #expect((failed["detail"] as? String ?? "").hasPrefix("sign-in needed: "), "\(failed)\n\(daemon.stderr)")
        #expect(failed["failure"] as? String == "sign-in-needed", "\(failed)")
        // The registrar's RFC 6750 error_description is shown, in channels and in the log.
        #expect((failed["detail"] as? String ?? "").contains("invalid_token (the token was revoked)"), "\(failed)")
        #expect(daemon.stderr.contains("invalid_token (the token was revoked)"), "\(daemon.stderr)")
        #expect(daemon.process.isRunning)
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }

    @Test func bearerRegistrationCallsRenewalAndRefusalAgainstTheSimulatorLeakNoToken() async throws {
        let simulator = try await Simulator(["--token-lifetime", "3600"])
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let softphone = "sip:softphone@127.0.0.1:5098"
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus, extra: "softphone-contact = \"<\(softphone)>\"")
        var outputs: [String] = []
        func ctl(_ arguments: String...) async throws -> (status: Int32, output: String) {
            let result = try await TokenDaemonTests.ctl(arguments, bus: bus)
            outputs.append(result.output)
            return result
        }

        // Bearer registration.
        let listening = try await TokenDaemonTests.channel("phone", bus: bus) { $0["state"] as? String == "listening" }
        #expect(listening["state"] as? String == "listening", "\(listening)\n\(daemon.stderr)")
        let bindings = try await simulator.controlJSON("GET", "/control/bindings?user=alice")["bindings"] as? [[String: Any]] ?? []
        #expect(bindings.count == 1 && bindings.first?["authorization"] as? String == "Bearer", "\(bindings)")
        #expect((listening["tokenExpiresIn"] as? Int).map { (3500...3600).contains($0) } == true, "\(listening)")

        // A call rings; Accept redirects it to the softphone.
        let first = try await simulator.controlJSON("POST", "/control/call?user=alice")["call_id"] as? String ?? ""
        try await eventually("the call in attendantctl contacts") { try await ctl("contacts", "--json").output.contains(first) }
        await #expect(try ctl("accept", first).status == 0)
        let accepted = try await simulator.finalOutcome(of: first)
        #expect(accepted["final_code"] as? Int == 302 && accepted["redirect_to"] as? String == softphone, "\(accepted)")

        // Another is declined.
        let second = try await simulator.controlJSON("POST", "/control/call?user=alice")["call_id"] as? String ?? ""
        try await eventually("the second call in attendantctl contacts") { try await ctl("contacts", "--json").output.contains(second) }
        await #expect(try ctl("decline", second).status == 0)
        #expect(try await simulator.finalOutcome(of: second)["final_code"] as? Int == 603)

        // A renewal while listening: a new token, a new REGISTER with it, and no gap.
        let registersBefore = try await simulator.controlJSON("GET", "/control/status")["register_count"] as? Int ?? 0
        let renewed = try await ctl("token", "renew", "phone")
        #expect(renewed.status == 0, "\(renewed)")
        try await eventually("the re-registration with the renewed token") {
            let status = try await simulator.controlJSON("GET", "/control/status")
            return status["tokens_issued"] as? Int == 2 && (status["register_count"] as? Int ?? 0) > registersBefore
        }
        #expect(!daemon.stderr.contains("stopped listening"), "renewing is no listening gap:\n\(daemon.stderr)")
        await #expect(try ctl("channels", "--json").output.contains(#""state":"listening""#))

        // Renewals refused: asking for one fails with the endpoint's reason, and the channel keeps listening
        // on its still valid token.
        _ = try await simulator.control("POST", "/control/refuse-renewals?on=1")
        let refused = try await ctl("token", "renew", "phone")
        #expect(refused.status != 0 && refused.output.contains("403"), "\(refused)")
        await #expect(try ctl("channels", "--json").output.contains(#""state":"listening""#))

        // Everything the run wrote: no JWT (they all begin with a base64 JSON header, "eyJ"), anywhere.
        await outputs.append(try ctl("status").output)
        await outputs.append(try ctl("channels").output)
        await outputs.append(try ctl("contacts").output)
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
        outputs += [daemon.stdout, daemon.stderr]
        let simulatorLog = simulator.stop()
        outputs.append(simulatorLog)
        let stateFiles = try FileManager.default.subpathsOfDirectory(atPath: scratch.path + "/state")
        #expect(stateFiles.contains { $0.hasSuffix("attendant.sqlite3") || $0.hasSuffix(".db") || $0.contains("sqlite") }, "\(stateFiles)")
        for path in stateFiles {
            let data = FileManager.default.contents(atPath: scratch.path + "/state/" + path) ?? Data()
            outputs.append(String(decoding: data, as: UTF8.self))
        }
        for (index, output) in outputs.enumerated() {
            #expect(!output.contains("eyJ"), "output \(index) holds token material:\n\(output.prefix(2000))")
        }
    }
}
