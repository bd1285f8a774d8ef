import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

// Secured sessions (CXone mobile SDK 3.2.0) through the real daemon, plugin and simulator: the channel's
// configuration has the feature securedSessions, so the daemon asks the token server for a transaction
// token, opens the socket with it (the simulator refuses one without), sends no AuthorizeCustomer, and
// asks for a new token when a reconnect finds the old one about to expire.
extension CXoneChatDaemonTests {
    @Test func aSecuredSessionOpensWithATransactionTokenAndRenewsItForALaterSocket() async throws {
        // 31-second tokens are dropped 30 s before they expire: every new socket needs a new one.
        let simulator = try await Simulator(["--cxone-secured-sessions", "--cxone-token-lifetime", "31"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        var status = try await simulator.controlJSON("GET", "/control/cxone/status")
        #expect(status["transaction_tokens_issued"] as? Int == 1, "\(status)")
        #expect(status["connections"] as? Int == 1, "\(status)")

        let sent = try await Self.chat(["send", "Hello from a secured session"], bus: bus)
        #expect(sent.status == 0, "\(sent.output)\n\(daemon.stderr.suffix(2000))")
        try await eventually("the message at the gateway") {
            Self.gatewayTexts(try await Self.gatewayThreads(simulator).first).contains("Hello from a secured session")
        }
        let events = try await Self.receivedEvents(simulator)
        #expect(!events.contains("AuthorizeCustomer") && !events.contains("ReconnectCustomer"), "\(events)")

        // The gateway drops the socket: the daemon reconnects with a new token.
        _ = try await simulator.control("POST", "/control/cxone/drop")
        try await eventually("a new token and a new socket") {
            status = try await simulator.controlJSON("GET", "/control/cxone/status")
            return status["transaction_tokens_issued"] as? Int == 2 && status["connections"] as? Int == 1
        }
        try await eventually("the chat ready again") { try await Self.status(bus: bus)["state"] == "ready" }
        #expect(!daemon.stderr.contains("transactionToken=tt-"), "the token is never logged")
        await Self.stop(daemon)
    }

    /// `token-url` names the token server: the daemon asks there, not at the server it derives from the
    /// chat URL (here the simulator's root, which would give it a token). The simulator has no token
    /// server under `/elsewhere`: the first connect fails naming that address, and no token is issued.
    @Test func aConfiguredTokenURLIsTheTokenServerAsked() async throws {
        let simulator = try await Simulator(["--cxone-secured-sessions"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let chat = try #require(URLComponents(string: simulator.announcement["cxone_chat"] as? String ?? ""))
        let elsewhere = "\(chat.scheme ?? "http")://\(chat.host ?? ""):\(chat.port ?? 0)/elsewhere"
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus, extra: "token-url = \"\(elsewhere)\"")
        try #require(await daemon.waitForLog("\(elsewhere)/oauth/token"), "\(daemon.stderr)")
        let status = try await simulator.controlJSON("GET", "/control/cxone/status")
        #expect(status["transaction_tokens_issued"] as? Int == 0, "\(status)")
        #expect(status["connections"] as? Int == 0, "\(status)")
        await Self.stop(daemon)
    }
}
