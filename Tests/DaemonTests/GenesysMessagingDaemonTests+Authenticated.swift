import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// Authenticated sessions: the code exchanged once, the JWT refreshed, a logout, a guest session dropped.
extension GenesysMessagingDaemonTests {
    /// With a token source, the token is an OAuth code: exchanged once for a JWT and a refresh token, and
    /// the socket configured with configureAuthenticatedSession, so the session is the signed-in user's. A
    /// restart refreshes the JWT with the refresh token kept in the secrets file (no new code), and the
    /// refresh token is in no log, D-Bus reply or database.
    @Test func anAuthenticatedSessionExchangesTheCodeOnceAndRefreshesAfterARestart() async throws {
        let simulator = try await Simulator(["--genesys-auth"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        // The sign-in: each run makes a new single-use code for "grace".
        let script = try scratch.write(
            "sign-in",
            "#!/bin/sh\ncurl -s -X POST 'http://127.0.0.1:\(simulator.httpPort)/control/genesys/oauth-code?subject=grace' | sed 's/.*\"code\":\"\\([^\"]*\\)\".*/\\1/'\n"
        )
        chmod(script, 0o700)
        let config = try scratch.write(
            "attendant.toml",
            Self.configuration(simulator).replacingOccurrences(
                of: "plugin = \"genesys-messaging\"",
                with: "plugin = \"genesys-messaging\"\ntoken-command = [\"\(script)\"]"
            )
        )
        let first = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await first.waitForLog("ready: chat listening"), "\(first.stderr)")
        var status = try await Self.status(simulator)
        let sessions = status["sessions"] as? [[String: Any]] ?? []
        #expect(sessions.count == 1 && sessions.first?["subject"] as? String == "grace", "\(sessions)")
        #expect((status["received"] as? [String] ?? []).contains("configureAuthenticatedSession"), "\(status)")
        #expect(status["code_exchanges"] as? Int == 1)
        try await Self.agentSays("Hello Grace", simulator, desktop)
        #expect(try await Self.ctl(["chat", "send", "Hi"], desktop).status == 0)
        await CXoneChatDaemonTests.stop(first)

        let second = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await second.waitForLog("ready: chat listening"), "\(second.stderr)")
        status = try await Self.status(simulator)
        #expect(status["code_exchanges"] as? Int == 1 && status["refreshes"] as? Int == 1, "\(status)")
        #expect((status["sessions"] as? [[String: Any]] ?? []).count == 1)
        try await Self.agentSays("Welcome back", simulator, desktop)
        let outputs = [first.stderr, try await Self.ctl(["chat", "status", "--json"], desktop).output]
        await CXoneChatDaemonTests.stop(second)
        let secrets = try String(contentsOfFile: scratch.path + "/state/attendant/secrets.json", encoding: .utf8)
        let stored = try JSONSerialization.jsonObject(with: Data(secrets.utf8)) as? [String: [String: String]]
        let refreshToken = try #require(stored?["chat"]?["refresh-token"])
        var everything = outputs + [second.stderr, "\(desktop.sessionBus.signals("ChannelEvent").map(\.raw))"]
        for name in ["state.sqlite", "state.sqlite-wal"] {
            if let data = FileManager.default.contents(atPath: scratch.path + "/state/attendant/" + name) {
                everything.append(String(decoding: data, as: UTF8.self))
            }
        }
        for output in everything { #expect(!output.contains(refreshToken), "the refresh token leaked") }
    }

    /// An authenticated channel: the sign-in script makes a new single-use code for "grace" each run.
    static func signedIn(_ simulator: Simulator, scratch: Scratch) throws -> String {
        let script = try scratch.write(
            "sign-in",
            "#!/bin/sh\ncurl -s -X POST 'http://127.0.0.1:\(simulator.httpPort)/control/genesys/oauth-code?subject=grace' | sed 's/.*\"code\":\"\\([^\"]*\\)\".*/\\1/'\n"
        )
        chmod(script, 0o700)
        return Self.configuration(simulator).replacingOccurrences(
            of: "plugin = \"genesys-messaging\"",
            with: "plugin = \"genesys-messaging\"\ntoken-command = [\"\(script)\"]"
        )
    }

    static func sessionToken(_ scratch: Scratch) throws -> String? {
        let secrets = try String(contentsOfFile: scratch.path + "/state/attendant/secrets.json", encoding: .utf8)
        return (try JSONSerialization.jsonObject(with: Data(secrets.utf8)) as? [String: [String: String]])?["chat"]?["session-token"]
    }

    /// Grace signs out on another device (its own code exchange, then `DELETE …/token/revoke` with that
    /// JWT): the service sends LogoutEvent to her sessions' sockets. As the SDK's `performLogout`, the
    /// channel drops the session token and the refresh token, closes the socket and tells the person (a
    /// notice in dunst, `chat status` signed-out); the host's sign-in (the token command) then signs in
    /// afresh, a new session with a new token.
    @Test func aLogoutEventSignsOutWithANoticeAndTheNextSignInIsANewSession() async throws {
        let simulator = try await Simulator(["--genesys-auth"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let config = try scratch.write("attendant.toml", try Self.signedIn(simulator, scratch: scratch))
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("ready: chat listening"), "\(daemon.stderr)")
        try await Self.agentSays("Hello Grace", simulator, desktop)
        let before = try #require(try Self.sessionToken(scratch))

        let api = "http://127.0.0.1:\(simulator.httpPort)/api/v2/webdeployments/token/"
        let code = try await simulator.controlJSON("POST", "/control/genesys/oauth-code?subject=grace")["code"] as? String ?? ""
        let deployment = simulator.announcement["genesys_deployment"] as? String ?? ""
        let (_, exchanged) = try await run(
            "/usr/bin/curl",
            [
                "-s", "-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"deploymentId":"\#(deployment)","oauth":{"code":"\#(code)"}}"#,
                api + "oauthcodegrantjwtexchange",
            ]
        )
        let jwt = try #require((try JSONSerialization.jsonObject(with: Data(exchanged.utf8)) as? [String: Any])?["jwt"] as? String, "\(exchanged)")
        let (revoked, _) = try await run("/usr/bin/curl", ["-s", "-f", "-X", "DELETE", "-H", "Authorization: bearer \(jwt)", api + "revoke"])
        #expect(revoked == 0)

        try await eventually("the sign-out notice") { Self.messages(desktop).contains { $0.text.contains("You were signed out") } }
        try await eventually("the notice in dunst") { desktop.printed.contains { $0.body.contains("You were signed out") } }
        // The host signs in again with a new code: a third exchange, and a new session with a new token.
        try await eventually("a new sign-in") { (try await Self.status(simulator)["code_exchanges"] as? Int ?? 0) >= 3 }
        try await eventually("configured again") { try await Self.chatStatus(desktop)["session"] == "configured" }
        let after = try #require(try Self.sessionToken(scratch))
        #expect(after != before)
        let sessions = try await Self.status(simulator)["sessions"] as? [[String: Any]] ?? []
        #expect(sessions.count == 2 && sessions.allSatisfy { $0["subject"] as? String == "grace" }, "\(sessions)")
        #expect(daemon.stderr.contains("LogoutEvent"), "\(daemon.stderr.suffix(2000))")
        await CXoneChatDaemonTests.stop(daemon)
    }

    /// A signed-in user's session started again as a guest (the token command removed): the service answers
    /// 4017 CannotDowngradeToUnauthenticated. As the SDK's `handleError`, the channel drops the session
    /// token (a new one in the secrets file) and the person hears why; the next try is a new guest session.
    @Test func aSignedInSessionStartedAsAGuestIsDroppedForANewGuestSession() async throws {
        let simulator = try await Simulator(["--genesys-auth"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let config = try scratch.write("attendant.toml", try Self.signedIn(simulator, scratch: scratch))
        let first = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await first.waitForLog("ready: chat listening"), "\(first.stderr)")
        try await Self.agentSays("Hello Grace", simulator, desktop)
        await CXoneChatDaemonTests.stop(first)
        let before = try #require(try Self.sessionToken(scratch))

        let guest = try scratch.write("attendant.toml", Self.configuration(simulator))
        let second = try DaemonProcess(["--config", guest], scratch: scratch, environment: desktop.environment)
        try await eventually("the notice") { Self.messages(desktop).contains { $0.text.contains("cannot go on as a guest") } }
        try await eventually("the notice in dunst") { desktop.printed.contains { $0.body.contains("cannot go on as a guest") } }
        try await eventually("a new guest session") { try await Self.chatStatus(desktop)["session"] == "configured" }
        #expect(second.stderr.contains("4017"), "\(second.stderr.suffix(2000))")
        let after = try #require(try Self.sessionToken(scratch))
        #expect(after != before)
        let sessions = try await Self.status(simulator)["sessions"] as? [[String: Any]] ?? []
        #expect(sessions.count == 2 && sessions.last?["subject"] as? String == nil, "\(sessions)")
        try await Self.agentSays("Hello guest", simulator, desktop)
        #expect(try await Self.ctl(["chat", "send", "Hi"], desktop).status == 0)
        await CXoneChatDaemonTests.stop(second)
    }
}
