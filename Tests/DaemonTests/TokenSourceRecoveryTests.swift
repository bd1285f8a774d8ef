import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// A channel whose token source has no valid token yet (an expired JWT) says "sign-in needed", not that
/// it has no token source, and listens again by itself once the source gives a valid token: the real
/// `attendantd` with the SIPVoice plugin against the real `attendant-sim`'s Bearer registrar, for each kind
/// of token source. The tokens are minted here with the simulator's signing key.
@Suite(.serialized, .timeLimit(.minutes(3))) struct TokenSourceRecoveryTests {
    enum SourceKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case file, command, credential, url
        var testDescription: String { "token-\(self.rawValue)" }
    }

    static let key = "token-source-recovery-test-key"

    /// A simulator-shaped access token for alice, signed with ``key``, issued `age` seconds ago.
    static func token(lifetime: Int, age: Int) -> String {
        let issued = Int(Date().timeIntervalSince1970) - age
        let payload = """
            {"iss":"ACtest","sub":"ACtest","jti":"t\(issued)","iat":\(issued),"nbf":\(issued),"exp":\(issued + lifetime),\
            "grants":{"identity":"alice","voice":{"incoming":{"allow":true}}}}
            """
        return VoicePeers.jwt(payload: payload, key: Self.key)
    }

    /// Writes `text` to `path` readable by its owner only (a token file others may read is refused), in
    /// one rename so a reader never sees half of it.
    static func writeSecret(_ text: String, to path: String) throws {
        let temporary = path + ".new"
        try text.write(toFile: temporary, atomically: false, encoding: .utf8)
        guard chmod(temporary, 0o600) == 0, rename(temporary, path) == 0 else {
            throw FixtureError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// `python3 -m http.server` serving `directory` on a free loopback port: an HTTP token endpoint that
    /// is not ours.
    final class FileServer {
        let process = SpawnedProcess()
        let port: Int

        init(directory: String) async throws {
            self.process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            self.process.arguments = ["-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", directory, "0"]
            let out = Pipe()
            self.process.standardOutput = out
            self.process.standardError = FileHandle.nullDevice
            try self.process.run()
            // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
            let line = await firstLine(of: out.fileHandleForReading.fileDescriptor) ?? ""
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: "port"), index + 1 < words.count, let port = Int(words[index + 1]) else {
                self.process.terminate()
                throw FixtureError("python3 -m http.server did not say its port: \(line)")
            }
            self.port = port
        }

        deinit {
            self.process.terminate()
            self.process.exitStatus()
        }
    }

    @Test(arguments: SourceKind.allCases)
    func anExpiredTokenAsksForSignInAndANewOneStartsTheChannelAgain(_ kind: SourceKind) async throws {
        let scratch = try Scratch()
        let keyFile = try scratch.write("signing-key", Self.key)
        let simulator = try await SimulatorDaemonTests.Simulator(["--signing-key-file", keyFile])
        defer { _ = simulator.stop() }
        let bus = try await PrivateBus()

        let secrets = scratch.path + "/secrets"
        try FileManager.default.createDirectory(atPath: secrets, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let tokenPath = secrets + "/sip-token"
        try Self.writeSecret(Self.token(lifetime: 3600, age: 7200), to: tokenPath)

        var server: FileServer?
        var environment: [String: String] = [:]
        let source: String
        switch kind {
        case .file:
            source = "token-file = \"\(tokenPath)\""
        case .command:
            source = "token-command = [\"/bin/cat\", \"\(tokenPath)\"]"
        case .credential:
            source = "token-credential = \"sip-token\""
            environment["CREDENTIALS_DIRECTORY"] = secrets
        case .url:
            server = try await FileServer(directory: secrets)
            source = "token-url = \"http://127.0.0.1:\(server!.port)/sip-token\""
        }
        let configuration = try scratch.write(
            "attendant.toml",
            """
            [[channel]]
            name = "phone"
            plugin = "sip-voice"
            \(source)

            [channel.sip-voice]
            registrar = "\(simulator.announcement["registrar_tcp"] as? String ?? "")"
            address-of-record = "sip:alice@\(simulator.announcement["domain"] as? String ?? "")"
            """
        )
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(scratch.path)/no-system-bus"
        let daemon = try DaemonProcess(["--config", configuration], scratch: scratch, environment: environment)
        #expect(await daemon.waitForLog("ready:"), "attendantd did not get ready:\n\(daemon.stderr)")

        // The source has only an expired token: sign-in needed, naming the expiry, not a missing source.
        let waiting = try await TokenDaemonTests.channel("phone", bus: bus) { $0["state"] as? String == "failed" }
        let detail = waiting["detail"] as? String ?? ""
        #expect(waiting["state"] as? String == "failed", "\(waiting)\n\(daemon.stderr)")
        #expect(detail.hasPrefix("sign-in needed: "), "\(waiting)")
        #expect(waiting["failure"] as? String == "sign-in-needed", "\(waiting)")
        #expect(detail.contains("expired"), "\(waiting)")
        #expect(!detail.contains("no token source"), "\(waiting)")
        #expect(!daemon.stderr.contains("has no token source"), "\(daemon.stderr)")
        let health = try await TokenDaemonTests.ctl(["health"], bus: bus)
        #expect(health.status == 2 && health.output.contains("sign-in needed"), "\(health)")

        // A valid token in the same place: the daemon picks it up on its own and the channel listens.
        try Self.writeSecret(Self.token(lifetime: 3600, age: 0), to: tokenPath)
        let listening = try await TokenDaemonTests.channel("phone", bus: bus) { $0["state"] as? String == "listening" }
        #expect(listening["state"] as? String == "listening", "\(listening)\n\(daemon.stderr)")
        let bindings = try await simulator.controlJSON("GET", "/control/bindings?user=alice")["bindings"] as? [[String: Any]] ?? []
        #expect(bindings.count == 1 && bindings.first?["authorization"] as? String == "Bearer", "\(bindings)")
        #expect(daemon.stderr.contains("a new token arrived: listening again"), "\(daemon.stderr)")

        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
        for output in [daemon.stdout, daemon.stderr] {
            #expect(!output.contains("eyJ"), "token material in the daemon's output:\n\(output.prefix(2000))")
        }
        _ = server
    }
}
