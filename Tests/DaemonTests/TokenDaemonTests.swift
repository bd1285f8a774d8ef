import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// The token manager in the real `attendantd`, asked through the real `attendantctl` on a private
/// session bus: a token command printing a JWT minted here, one that hangs, one that prints nothing.
@Suite(.serialized, .timeLimit(.minutes(3))) struct TokenDaemonTests {
    static var attendantctl: String { BuildProducts.directory + "/attendantctl" }

    /// A JWT with a dummy signature (the daemon reads tokens without their key).
    static func jwt(issuedAt: Int64, lifetime: Int64) -> String {
        func part(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let claims = #"{"iss":"AC1","iat":\#(issuedAt),"exp":\#(issuedAt + lifetime),"scope":"scope:client:incoming?clientName=desk"}"#
        return part(#"{"alg":"HS256","typ":"JWT"}"#) + "." + part(claims) + ".ZGFlbW9uLXRlc3Qtc2lnbmF0dXJl"
    }

    /// attendantd with `configuration` on `bus`, ready.
    static func daemon(_ configuration: String, scratch: Scratch, bus: PrivateBus, environment: [String: String] = [:]) async throws -> DaemonProcess
    {
        let file = try scratch.write("attendant.toml", configuration)
        let daemon = try DaemonProcess(
            ["--config", file],
            scratch: scratch,
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(scratch.path)/no-system-bus"]
                .merging(environment) { $1 }
        )
        #expect(await daemon.waitForLog("ready:"), "attendantd did not get ready:\n\(daemon.stderr)")
        return daemon
    }

    static func ctl(_ arguments: [String], bus: PrivateBus) async throws -> (status: Int32, output: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        return try await run(Self.attendantctl, arguments, environment: environment)
    }

    static func channel(_ name: String, bus: PrivateBus) async throws -> [String: Any] {
        let (_, output) = try await Self.ctl(["channels", "--json"], bus: bus)
        let channels = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
        return channels.first { $0["name"] as? String == name } ?? [:]
    }

    /// Asks until `condition` holds for the channel's record (bounded).
    static func channel(_ name: String, bus: PrivateBus, until condition: ([String: Any]) -> Bool) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(60)
        var record = try await Self.channel(name, bus: bus)
        while !condition(record), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            record = try await Self.channel(name, bus: bus)
        }
        return record
    }

    @Test func aTokenCommandsJWTShowsItsExpiryAndHealthWarnsBeforeIt() async throws {
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let now = Int64(Date().timeIntervalSince1970)
        let token = Self.jwt(issuedAt: now, lifetime: 1200)
        let script = try scratch.write("mint-token", "#!/bin/sh\nprintf '%s\\n' '\(token)'\n")
        chmod(script, 0o700)
        let daemon = try await Self.daemon(
            """
            [[channel]]
            name = "desk"
            plugin = "loopback"
            token-command = ["\(script)", "--for", "desk"]
            """,
            scratch: scratch,
            bus: bus
        )

        let record = try await Self.channel("desk", bus: bus) { $0["tokenExpiresIn"] is Int }
        let expiresIn = try #require(record["tokenExpiresIn"] as? Int, "\(record)")
        #expect((1100...1200).contains(expiresIn), "\(record)")
        #expect(abs((record["tokenLastRenewal"] as? Int ?? 0) - Int(now)) <= 60)
        #expect(record["tokenLastError"] is NSNull && record["tokenFailures"] as? Int == 0, "\(record)")
        #expect(record["state"] as? String == "listening")

        let table = try await Self.ctl(["channels"], bus: bus)
        #expect(
            table.output.contains("desk  loopback  listening  expires in 19 min")
                || table.output.contains("desk  loopback  listening  expires in 20 min"),
            "\(table.output)"
        )

        let ok = try await Self.ctl(["health"], bus: bus)
        #expect(ok.status == 0 && ok.output.hasPrefix("ATTENDANT OK - 1 channel listening | "), "\(ok)")
        #expect(ok.output.contains(" desk_token_expiry="), "\(ok)")
        let warning = try await Self.ctl(["health", "--token-warning", "30m"], bus: bus)
        #expect(warning.status == 1, "\(warning)")
        #expect(warning.output.hasPrefix("ATTENDANT WARNING - desk token expires in "), "\(warning)")

        #expect(await daemon.waitForLog("got a new token for desk from token command \(script): expires at "))
        // Renewing on request runs the command again.
        let renew = try await Self.ctl(["token", "renew", "desk"], bus: bus)
        #expect(renew.status == 0, "\(renew)")

        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
        // DESIGN.md §7: the token is in no output and not in the state database.
        #expect(!daemon.stderr.contains(token) && !daemon.stdout.contains(token))
        #expect(!table.output.contains(token) && !ok.output.contains(token) && !renew.output.contains(token))
        for file in (try? FileManager.default.subpathsOfDirectory(atPath: scratch.path + "/state")) ?? [] {
            let data = (try? Data(contentsOf: URL(fileURLWithPath: scratch.path + "/state/" + file))) ?? Data()
            #expect(data.range(of: Data(token.utf8)) == nil, "the token is in \(file)")
            #expect(data.range(of: Data(token.split(separator: ".")[1].utf8)) == nil, "the token's payload is in \(file)")
        }
    }

    @Test func aHangingCommandIsKilledAndOnesThatPrintNothingOrGarbageAreNamedAndTheDaemonKeepsRunning() async throws {
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.daemon(
            """
            [[channel]]
            name = "hang"
            plugin = "loopback"
            token-command = ["/bin/sh", "-c", "echo $$ >> \(scratch.path)/hung; exec sleep 1000"]
            token-timeout = "1s"

            [[channel]]
            name = "empty"
            plugin = "loopback"
            token-command = ["/bin/sh", "-c", "echo 'not signed in: run get-token --login' >&2"]

            [[channel]]
            name = "garbage"
            plugin = "loopback"
            token-command = ["/bin/sh", "-c", "echo abc.def.ghi"]
            """,
            scratch: scratch,
            bus: bus
        )
        let killed = "token command /bin/sh did not finish within 1 s and was killed"
        let empty =
            "token command /bin/sh printed nothing on standard output (exit status 0); its standard error said: not signed in: run get-token --login"
        let garbage =
            "the token from token command /bin/sh looks like a JWT (three parts separated by dots), but its header is not JSON (unexpected character at byte 0)"

        #expect(await daemon.waitForLog("token renewal failed: \(killed); there is no token yet; trying again at "), "\(daemon.stderr)")
        #expect(await daemon.waitForLog("token renewal failed: \(empty); there is no token yet; trying again at "), "\(daemon.stderr)")
        #expect(await daemon.waitForLog("token renewal failed: \(garbage); there is no token yet; trying again at "), "\(daemon.stderr)")
        let hang = try await Self.channel("hang", bus: bus) { ($0["tokenFailures"] as? Int ?? 0) >= 2 }
        #expect(hang["tokenLastError"] as? String == killed, "\(hang)")
        #expect(hang["state"] as? String == "listening", "Loopback listens without a token")
        let emptyRecord = try await Self.channel("empty", bus: bus)
        #expect(emptyRecord["tokenLastError"] as? String == empty, "\(emptyRecord)")

        let health = try await Self.ctl(["health"], bus: bus)
        #expect(health.status == 1, "\(health)")
        #expect(health.output.contains("hang token renewal failed"), "\(health)")
        #expect(health.output.contains("empty token renewal failed"), "\(health)")
        #expect(health.output.contains("garbage token renewal failed"), "\(health)")
        #expect(!daemon.stderr.contains("abc.def.ghi") && !health.output.contains("abc.def.ghi"))

        let renew = try await Self.ctl(["token", "renew", "empty"], bus: bus)
        #expect(renew.status == 1 && renew.output.contains("channel empty: \(empty)"), "\(renew)")

        // Every hung command was killed: none of them is still there.
        let pids = (try? String(contentsOfFile: scratch.path + "/hung", encoding: .utf8))?.split(separator: "\n").compactMap { pid_t($0) } ?? []
        #expect(pids.count >= 2)
        // The newest one may still be within its second; the others are killed, on the daemon's own time.
        try await eventually("the hung token commands \(pids.dropLast()) to be killed") { pids.dropLast().allSatisfy { kill($0, 0) != 0 } }

        #expect(daemon.process.isRunning)
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
        for pid in pids { #expect(kill(pid, 0) != 0, "token command \(pid) outlived the daemon") }
    }
}
