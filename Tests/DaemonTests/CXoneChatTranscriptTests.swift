import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

// Issue 33 part 5 through the real daemon, plugin and simulator: `attendantctl chat transcript EMAIL`
// sends SendTranscript for the thread's contact and succeeds on TranscriptSent, a bad address or a
// channel that does not allow transcripts is refused with what is wrong; and the agent reading the
// customer's message (MessageSeenChanged) shows as the message's readByAgentAt.
extension CXoneChatDaemonTests {
    @Test func aTranscriptIsEMailedWhereTheChannelAllowsIt() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "Please send me this conversation"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let gatewayThread = try #require(try await Self.gatewayThreads(simulator).first)
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(gatewayThread["id"] as? String ?? "")&text=Sure")
        try await eventually("the agent's answer in the thread") { Self.texts(try await Self.threads(bus: bus).first).contains("Sure") }

        let sent = try await Self.chat(["transcript", "grace.hopper@example.com"], bus: bus)
        #expect(sent.status == 0, "\(sent.output)\n\(daemon.stderr.suffix(2000))")
        #expect(sent.output.contains("e-mail the transcript to grace.hopper@example.com"), "\(sent.output)")
        let transcripts = try await simulator.controlJSON("GET", "/control/cxone/status")["transcripts"] as? [[String: Any]] ?? []
        #expect(transcripts.count == 1, "\(transcripts)")
        #expect(transcripts.first?["to"] as? [String] == ["grace.hopper@example.com"], "\(transcripts)")
        #expect(transcripts.first?["messages"] as? Int == 2, "\(transcripts)")

        let bad = try await Self.chat(["transcript", "grace@localhost"], bus: bus)
        #expect(bad.status != 0)
        #expect(bad.output.contains("'grace@localhost' is not an e-mail address"), "\(bad.output)")
        let after = try await simulator.controlJSON("GET", "/control/cxone/status")["transcripts"] as? [[String: Any]] ?? []
        #expect(after.count == 1, "a refused address sends nothing: \(after)")
        await Self.stop(daemon)
    }

    @Test func aChannelThatDoesNotAllowTranscriptsSaysSo() async throws {
        let simulator = try await Simulator(["--cxone-no-transcript"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "Hello"], bus: bus).status == 0)
        let refused = try await Self.chat(["transcript", "grace.hopper@example.com"], bus: bus)
        #expect(refused.status != 0)
        #expect(refused.output.contains("the channel does not allow transcripts"), "\(refused.output)")
        let events = try await Self.receivedEvents(simulator)
        #expect(!events.contains("SendTranscript"), "\(events)")
        await Self.stop(daemon)
    }

    @Test func theAgentReadingTheCustomersMessageShowsAsReadByAgentAt() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "Is my order on its way?"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let thread = try #require(try await Self.gatewayThreads(simulator).first?["id"] as? String)
        let read = try Self.json(try await simulator.control("POST", "/control/cxone/agent-read?thread=\(thread)"))
        let message = try #require(read["message_id"] as? String).lowercased()
        #expect(!message.isEmpty)
        var shown: [String: Any] = [:]
        try await eventually("the customer's message read by the agent") {
            let messages = try await Self.threads(bus: bus).first?["lastMessages"] as? [[String: Any]] ?? []
            shown = messages.first { ($0["id"] as? String)?.lowercased() == message } ?? [:]
            return shown["readByAgentAt"] != nil
        }
        #expect(shown["text"] as? String == "Is my order on its way?")
        #expect(!daemon.stderr.contains("ignored an event of unknown type MessageSeenChanged"), "\(daemon.stderr.suffix(2000))")
        await Self.stop(daemon)
    }
}
