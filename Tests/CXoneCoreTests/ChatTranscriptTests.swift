import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import CXoneCore
import Foundation
import Testing

/// SendTranscript and MessageSeenChanged (issue 33 part 5), as the mobile SDK sends and reads them:
/// `ChatThreadService.sendTranscript(to:)` with `SendTranscriptDataDTO`, answered by TranscriptSent, and
/// `MessageSeenChangedDTO` merged into its thread (`ChatThreadListService.processMessageSeenChangedEvent`).
@Suite struct ChatTranscriptTests {
    /// A ready single-thread session whose thread has case `case-1`, on a channel that allows transcripts
    /// or not.
    static func session(allowsTranscript: Bool) -> ChatSession {
        var configuration = ChatStateMachine.ChannelConfiguration()
        configuration.allowsTranscript = allowsTranscript
        var driver = ChatDriver()
        driver.prepare(configuration)
        driver.connect()
        driver.handle(.threadRecovered(ChatThread(id: "thread-1", state: .loaded), caseID: "case-1", agent: nil))
        return ChatSessionStepTests.session(driver.machine)
    }

    /// The SendTranscript frame among `actions`.
    static func transcript(_ actions: [ChatSession.Action]) throws -> (frame: CXoneClientFrame, text: String)? {
        for case .writeLink(let bytes) in actions {
            if case .frame(let frame) = try CXoneOutbound.decode(bytes), case .sendTranscript = frame.event {
                return (frame, String(decoding: bytes, as: UTF8.self))
            }
        }
        return nil
    }

    static func outcome(_ actions: [ChatSession.Action]) -> ChatOperation.Outcome? {
        for case .replied(_, let outcome) in actions { return outcome }
        return nil
    }

    @Test func theTranscriptGoesOutAsTheSDKSendsItAndTranscriptSentAnswersIt() throws {
        var session = Self.session(allowsTranscript: true)
        let asked = try session.sendTranscript(threadID: nil, email: "grace.hopper@example.com", timeout: .seconds(5), id: 3)
        let (frame, text) = try #require(try Self.transcript(asked))
        #expect(frame.event == .sendTranscript(CXoneWire.SendTranscript(contactId: "case-1", email: "grace.hopper@example.com")))
        #expect(text.contains(#""eventType":"SendTranscript""#), "\(text)")
        #expect(
            text.contains(#""data":{"consumerContact":{"id":"case-1"},"consumerRecipients":[{"idOnExternalPlatform":"grace.hopper@example.com"}]}"#),
            "\(text)"
        )
        #expect(text.contains(#""consumerIdentity":{"#), "SendTranscript names the customer consumerIdentity (EventPayloadDTO): \(text)")
        #expect(Self.outcome(asked) == nil, "not answered before TranscriptSent")

        let answered = session.received(.postback(eventId: frame.eventId, event: .transcriptSent), now: UnixTime(secondsSince1970: 1))
        #expect(Self.outcome(answered) == .success(.done))
        #expect(!ChatSessionStepTests.words(answered).contains { $0.contains("ignored") })
    }

    @Test func theServersRefusalIsTheRequestsFailure() throws {
        var session = Self.session(allowsTranscript: true)
        let asked = try session.sendTranscript(threadID: "thread-1", email: "a@example.org", timeout: .seconds(5), id: 4)
        let (frame, _) = try #require(try Self.transcript(asked))
        let refused = session.received(
            .operationError(.init(errorCode: "SendingTranscriptFailed", errorMessage: "mail server down", transactionId: frame.eventId)),
            now: UnixTime(secondsSince1970: 1)
        )
        guard case .failure(let error)? = Self.outcome(refused) else {
            Issue.record("not refused: \(refused)")
            return
        }
        #expect(error.code == .server)
        #expect(error.message.contains("SendingTranscriptFailed") && error.message.contains("mail server down"), "\(error.message)")
    }

    @Test func aChannelThatDoesNotAllowTranscriptsOrABadAddressSendsNothing() throws {
        var closed = Self.session(allowsTranscript: false)
        let off = #expect(throws: ChannelError.self) { try closed.sendTranscript(threadID: nil, email: "a@example.org", timeout: .seconds(5), id: 1) }
        #expect(off?.code == .unsupported && off?.message.contains("liveChatAllowTranscript") == true, "\(off?.message ?? "")")

        var open = Self.session(allowsTranscript: true)
        for address in ["grace", "grace@example", "grace@@example.com", "gr ace@example.com", ".grace@example.com", "grace@example.c0m", ""] {
            let bad = #expect(throws: ChannelError.self) { try open.sendTranscript(threadID: nil, email: address, timeout: .seconds(5), id: 2) }
            #expect(bad?.code == .invalidArgument, "\(address): \(bad?.message ?? "accepted")")
        }
        for address in ["grace_hopper+desk@mail.example.co.uk", "a.b-c%d@x-y.museum"] {
            #expect(throws: Never.self, "\(address)") { _ = try open.sendTranscript(threadID: nil, email: address, timeout: .seconds(5), id: 3) }
        }
        let none = #expect(throws: ChannelError.self) {
            try open.sendTranscript(threadID: "thread-9", email: "a@example.org", timeout: .seconds(5), id: 4)
        }
        #expect(none?.code == .illegalState)
    }

    @Test func theChannelConfigurationSaysWhetherTranscriptsAreAllowed() throws {
        func allows(_ settings: String) throws -> Bool {
            let body =
                #"{"isLiveChat":false,"isAuthorizationEnabled":false,"settings":{"hasMultipleThreadsPerEndUser":false,\#(settings)"features":{}}}"#
            let configuration = try CXoneChannelConfiguration.decode(Array(body.utf8))
            return configuration.settings.liveChatAllowTranscript ?? false
        }
        #expect(try allows(#""liveChatAllowTranscript":true,"#))
        #expect(try !allows(#""liveChatAllowTranscript":false,"#))
        #expect(try !allows(""))
    }

    @Test func messageSeenChangedMarksTheCustomersMessageSeenByTheAgent() throws {
        func input(_ direction: String, _ statistics: String) throws -> (ChatStateMachine.Input?, String?) {
            let frame =
                #"{"eventId":"e6","eventType":"MessageSeenChanged","createdAt":"2026-11-24T22:00:00Z","data":{"message":{"idOnExternalPlatform":"M-1","threadIdOnExternalPlatform":"T-1","messageContent":{"type":"TEXT","payload":{"text":"Hi"}},"createdAt":"2026-11-24T21:59:00Z","direction":"\#(direction)",\#(statistics)}}}"#
            return ChatWireInput.input(for: try CXoneInbound.decode(Array(frame.utf8)), now: UnixTime(secondsSince1970: 1_800_000_100))
        }
        let seen = try input("inbound", #""userStatistics":{"seenAt":"2026-11-24T22:00:00Z","readAt":null}"#)
        guard case .messageRead(let message)? = seen.0 else {
            Issue.record("not a read receipt: \(seen)")
            return
        }
        #expect(message.id == "m-1" && message.threadID == "t-1" && message.direction == .toAgent)
        #expect(message.readByAgentAt == UnixTime(secondsSince1970: try #require(CXoneTimestamp.parse("2026-11-24T22:00:00Z")).timeIntervalSince1970))
        // The agent's message seen by the customer: nothing the host shows, and not an unknown event.
        let theirs = try input("outbound", #""customerStatistics":{"seenAt":"2026-11-24T22:00:00Z"}"#)
        #expect(theirs.0 == nil && theirs.1 != nil)

        // Through the machine: the thread's message shows it read.
        var driver = ChatReliabilityTests.ready()
        driver.handle(.messageCreated(driver.message("m-1", thread: "t-1", from: false, "Hi"), caseID: "case-1"))
        var mine = driver.message("c1", from: false, "mine", at: 5)
        driver.handle(.messageCreated(mine, caseID: "case-1"))
        mine.readByAgentAt = UnixTime(secondsSince1970: 1_800_000_200)
        driver.handle(.messageRead(mine))
        #expect(driver.machine.thread("thread-1")?.lastMessages.last?.readByAgentAt == UnixTime(secondsSince1970: 1_800_000_200))
    }
}
