import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

// The customer's access token on an OAuth channel, refreshed before it expires through the real daemon,
// plugin and simulator: RefreshToken goes out, the new token replaces the old one in the secrets file, and
// after a restart the refreshed token reconnects the customer (the simulator forgets a token once it is
// refreshed, so an old one would be refused and the customer authorized afresh).
extension CXoneChatDaemonTests {
    @Test func anOAuthAccessTokenIsRefreshedBeforeItExpiresAndTheNewOneReconnectsAfterARestart() async throws {
        // A 62-second token is refreshed a minute before it ends: every 2 seconds.
        let simulator = try await Simulator(["--cxone-oauth", "--cxone-token-lifetime", "62"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let configuration = try Self.oauthConfiguration(simulator, scratch: scratch, code: "oauth-code-77", verifier: "verifier-77")
        let secretsPath = scratch.path + "/state/attendant/secrets.json"
        var daemon = try await TokenDaemonTests.daemon(configuration, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        let first = try String(contentsOfFile: secretsPath, encoding: .utf8)
        try await eventually("two RefreshTokens answered, the newest token kept") {
            let refreshes = try await Self.receivedEvents(simulator).filter { $0 == "RefreshToken" }.count
            return refreshes >= 2 && (try? String(contentsOfFile: secretsPath, encoding: .utf8)) != first
        }
        #expect(!daemon.stderr.contains("TokenRefreshingFailed"), "\(daemon.stderr.suffix(2000))")
        let state = try await Self.status(bus: bus)["state"]
        #expect(state == "ready", "the chat stays ready while its token is refreshed: \(state ?? "none")")
        await Self.stop(daemon)

        // The token kept last reconnects the customer: no second AuthorizeCustomer.
        daemon = try await TokenDaemonTests.daemon(configuration, scratch: scratch, bus: bus)
        try await Self.waitForListening(bus, daemon)
        let events = try await Self.receivedEvents(simulator)
        #expect(events.filter { $0 == "AuthorizeCustomer" }.count == 1, "\(events)")
        #expect(events.last { $0 == "ReconnectCustomer" || $0 == "AuthorizeCustomer" } == "ReconnectCustomer", "\(events)")
        await Self.stop(daemon)
    }
}
