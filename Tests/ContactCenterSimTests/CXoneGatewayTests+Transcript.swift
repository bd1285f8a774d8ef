import CXoneCore
import Foundation
import NIOHTTP1
import Testing

@testable import ContactCenterSim

// SendTranscript answered with TranscriptSent (or SendingTranscriptFailed), the configuration's
// liveChatAllowTranscript, and the agent reading the customer's message pushed as MessageSeenChanged, as
// the CXone mobile SDK reads them (`SendTranscriptDataDTO`, `MessageSeenChangedDTO`).
extension CXoneGatewayTests {
    /// A customer on a test socket with one message in a new thread: the client, thread and contact ids.
    static func customerWithThread(_ simulator: ContactCenterSimulator) async throws -> (CXoneTestClient, CXoneID, CXoneID)? {
        let client = try await CXoneTestClient.connect(simulator)
        let threadId = CXoneID.random()
        let message = CXoneWire.SendMessage(
            thread: .init(idOnExternalPlatform: threadId),
            messageContent: .text("Hi"),
            idOnExternalPlatform: .random()
        )
        let (created, _) = try await client.request(.sendMessage(message))
        guard case .event(_, _, .messageCreated(let first)) = created else {
            Issue.record("got \(created)")
            return nil
        }
        return (client, threadId, first.contact.id)
    }

    @Test func aTranscriptIsSentForTheCustomersContactWhereTheChannelAllowsIt() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let (configuration, _) = try await Self.http(
            .GET,
            "http://127.0.0.1:\(simulator.httpPort)/chat/1.0/brand/\(Self.brand)/channel/\(Self.channel)"
        )
        #expect(configuration == 200)
        guard let (client, threadId, contactId) = try await Self.customerWithThread(simulator) else { return }

        let (sent, eventId) = try await client.request(.sendTranscript(.init(contactId: contactId, email: "grace@example.com")))
        #expect(sent == .postback(eventId: eventId, event: .transcriptSent), "\(sent)")
        #expect(
            simulator.cxone.transcripts == [
                .init(threadId: threadId.rawValue, contactId: contactId.rawValue, recipients: ["grace@example.com"], messages: 1)
            ]
        )

        let (unknown, _) = try await client.request(.sendTranscript(.init(contactId: .random(), email: "grace@example.com")))
        guard case .operationError(let error) = unknown else {
            Issue.record("got \(unknown)")
            return
        }
        #expect(error.errorCode == "SendingTranscriptFailed")
        #expect(simulator.cxone.transcripts.count == 1)
    }

    @Test func aChannelWithoutTranscriptsRefusesThemAndSaysSoInItsConfiguration() async throws {
        var settings = CXoneGatewaySettings()
        settings.allowsTranscript = false
        let simulator = try await Self.start(settings)
        defer { Task { await simulator.stop() } }
        let (_, body) = try await Self.http(.GET, "http://127.0.0.1:\(simulator.httpPort)/chat/1.0/brand/\(Self.brand)/channel/\(Self.channel)")
        #expect(try CXoneChannelConfiguration.decode(body).settings.liveChatAllowTranscript == false)
        guard let (client, _, contactId) = try await Self.customerWithThread(simulator) else { return }
        let (refused, _) = try await client.request(.sendTranscript(.init(contactId: contactId, email: "grace@example.com")))
        guard case .operationError(let error) = refused else {
            Issue.record("got \(refused)")
            return
        }
        #expect(error.errorCode == "SendingTranscriptFailed")
        #expect(simulator.cxone.transcripts.isEmpty)
    }

    @Test func theAgentReadingPushesMessageSeenChangedWithTheAgentsStatistics() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        guard let (client, threadId, _) = try await Self.customerWithThread(simulator) else { return }
        let read = try simulator.cxone.agentReads(threadID: threadId.rawValue)
        #expect(read != nil)
        guard case .event(_, _, .messageSeenChanged(let seen)) = try await client.receive() else {
            Issue.record("not MessageSeenChanged")
            return
        }
        #expect(seen.message.direction == .inbound)
        #expect(seen.message.idOnExternalPlatform.rawValue == read?.id)
        #expect(seen.message.userStatistics?.seenAt != nil && seen.message.userStatistics?.readAt != nil)
        // Read once: nothing new to read.
        #expect(try simulator.cxone.agentReads(threadID: threadId.rawValue) == nil)
    }
}
