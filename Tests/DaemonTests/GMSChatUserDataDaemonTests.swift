import DaemonTestSupport
import Foundation
import TestSupport
import Testing

/// `[channel.gms-chat.user-data]` through the real `attendantd` and the real `attendant-sim` GMS server:
/// the chat it starts carries those pairs as requestChat's `userData` (chat API v2), which Genesys routing
/// and the agent's desktop read.
@Suite(.serialized, .timeLimit(.minutes(3))) struct GMSChatUserDataDaemonTests {
    typealias Simulator = SimulatorDaemonTests.Simulator

    @Test func theChatStartsWithTheConfiguredUserData() async throws {
        let simulator = try await Simulator(["--gms-greeting-delay", "0.2"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let configuration =
            GMSChatDaemonTests.configuration(simulator) + """

                [channel.gms-chat.user-data]
                Segment = "gold"
                TimeZone = "-480"
                """
        let daemon = try await TokenDaemonTests.daemon(configuration, scratch: scratch, bus: bus)
        try await CXoneChatDaemonTests.waitForListening(bus, daemon)
        var chats: [[String: Any]] = []
        try await eventually("the chat at GMS") {
            chats = try await GMSChatDaemonTests.gmsChats(simulator)
            return !chats.isEmpty
        }
        #expect(chats.count == 1)
        let userData = try #require(chats.first?["user_data"] as? [String: String], "\(chats)")
        #expect(userData == ["Segment": "gold", "TimeZone": "-480"], "\(userData)\n\(daemon.stderr.suffix(2000))")
        await CXoneChatDaemonTests.stop(daemon)
    }
}
