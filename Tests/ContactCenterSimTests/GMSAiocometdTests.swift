import ContactCenterSim
import Foundation
import TestSupport
import Testing

/// Conformance with an independent Bayeux client: aiocometd-ng (Python) against the GMS server, over
/// long-polling and WebSocket (Tests/Fixtures/gms/aiocometd_check.py). scripts/setup installs it into
/// `.build-python`; without it the test fails (under CI and outside it) and says to run scripts/setup.
@Suite(.timeLimit(.minutes(3))) struct GMSAiocometdTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let python = ProcessInfo.processInfo.environment["ATTENDANT_TEST_PYTHON"] ?? packageRoot + "/.build-python/bin/python3"
    static let script = packageRoot + "/Tests/Fixtures/gms/aiocometd_check.py"

    /// Runs the script; its last stdout line as JSON, and its stderr. The output goes to files and the
    /// end is awaited through `terminationHandler`: blocking reads would hold threads of the small
    /// cooperative pool that every other test of the run shares.
    static func run(_ arguments: [String]) async throws -> (result: [String: Any], stderr: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gms-aiocometd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("stdout")
        let errURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        // Bounded: a check that hangs is killed after 60 s and fails with its stderr.
        let killer = Task {
            try await Task.sleep(for: .seconds(60))
            process.signal(SIGKILL)
        }
        defer { killer.cancel() }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { process in continuation.resume(returning: process.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(
                    throwing: GMSTestClient.Failure(
                        description: "cannot run \(Self.python) (\(error)): run scripts/setup, which makes the .build-python venv with aiocometd-ng"
                    )
                )
            }
        }
        let stderr = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        let stdout = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        let line = stdout.split(separator: "\n").last.map(String.init) ?? ""
        guard let result = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw GMSTestClient.Failure(description: "\(arguments.first ?? "python") printed no JSON result (status \(status)): \(line)\n\(stderr)")
        }
        return (result, stderr)
    }

    @Test(arguments: ["long-polling", "websocket"])
    func aiocometdNGTalksToTheServer(transport: String) async throws {
        let check = #"""
            import json
            try:
                import aiocometd_ng
                print(json.dumps({"ok": True}))
            except ImportError as error:
                print(json.dumps({"ok": False, "error": str(error)}))
            """#
        let probe = try await Self.run(["-c", check]).result
        try #require(
            probe["ok"] as? Bool == true,
            "aiocometd-ng is missing from \(Self.python): run scripts/setup (it pip-installs aiocometd-ng==0.5.6 into .build-python)"
        )
        let simulator = try await ContactCenterSimulator.start(SimulatorConfiguration(gms: GMSServerSettings(greetingDelay: .milliseconds(100))))
        defer { Task { await simulator.stop() } }
        let (result, stderr) = try await Self.run([Self.script, simulator.gms.cometdURL, transport])
        #expect(result["ok"] as? Bool == true, "\(result)\n\(stderr)")
        #expect(result["connection_type"] as? String == transport)
        #expect(result["broadcast_ack"] as? Bool == true)
        #expect((result["broadcast_event"] as? [String: Any])?["text"] as? String == "hello")
        #expect(result["request_chat_ack"] as? Bool == true)
        #expect(result["greeting"] as? String == GMSServerSettings().greeting)
        #expect(result["send_ack"] as? Bool == true)
        #expect(result["send_ack_is_ack"] as? Bool == true)
        #expect(result["echo_from"] as? String == "Client")
        let indexes = (result["rows"] as? [[Any]] ?? []).compactMap { $0.first as? Int }
        #expect(!indexes.isEmpty)
        #expect(indexes == Array(1..<(indexes.count + 1)))
        #expect(simulator.gms.chats.first?.customerMessages == ["conformance says hi"])
        #expect(simulator.gms.counters.handshakes >= 1)
    }
}
