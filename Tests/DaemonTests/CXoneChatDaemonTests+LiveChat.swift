import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

// The seed's live-chat and pre-chat-form branches.
extension CXoneChatDaemonTests {
    // MARK: Live chat

    @Test func aLiveChatWithoutAgentsIsOfflineUntilOneIsAvailable() async throws {
        let simulator = try await Simulator(["--cxone-live-chat", "--cxone-offline"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.daemon(simulator, scratch: scratch, bus: bus)
        let offline = try await TokenDaemonTests.channel("chat", bus: bus) { ($0["detail"] as? String ?? "").contains("offline") }
        #expect(offline["state"] as? String == "recovering", "\(offline)\n\(daemon.stderr)")
        #expect(
            (offline["detail"] as? String ?? "").contains("the live chat of brand 1386, channel chat_sim is offline: no agent is available"),
            "\(offline)"
        )
        await #expect(try Self.receivedEvents(simulator).isEmpty)

        // An agent comes online: the next attempt connects and recovers the live chat.
        _ = try await simulator.control("POST", "/control/cxone/availability?online=1")
        try await Self.waitForListening(bus, daemon)
        await #expect(try Self.receivedEvents(simulator).contains("RecoverLivechat"))
        await #expect(try Self.status(bus: bus)["mode"] == "live-chat")
        await Self.stop(daemon)
    }

    // MARK: Pre-chat form and custom fields

    @Test func thePreChatFormIsShownAndItsAnswersGoWithTheFirstMessage() async throws {
        let simulator = try await Simulator(["--cxone-pre-chat-form", "--cxone-multi-thread"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        let (status, output) = try await Self.chat(["form", "--json"], bus: bus)
        #expect(status == 0, "\(output)")
        let form = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String] ?? [:]
        #expect(
            form == ["form": "Before we start", "field.email": "Your email (required)", "field.topic": "Topic: billing | delivery | other"],
            "\(form)"
        )
        let human = try await Self.chat(["form"], bus: bus).output
        #expect(human.contains("Before we start (answer with: attendantctl chat create --field ID=VALUE):"), "\(human)")

        let created = try await Self.chat(["create", "--field", "email=grace@example.org", "--field", "topic=billing", "--json"], bus: bus)
        #expect(created.status == 0, "\(created.output)")
        let thread = try JSONSerialization.jsonObject(with: Data(created.output.utf8)) as? [String: Any] ?? [:]
        #expect(thread["state"] as? String == "pending")
        let id = try #require(thread["id"] as? String)
        await #expect(try Self.chat(["send", "About my invoice"], bus: bus).status == 0)
        try await eventually("the fields at the gateway") {
            let fields = try await simulator.controlJSON("GET", "/control/cxone/status")["contact_fields"] as? [String: [String: String]] ?? [:]
            return fields[id] == ["email": "grace@example.org", "topic": "billing"]
        }
        await Self.stop(daemon)
    }
}
