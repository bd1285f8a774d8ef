import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import CXoneCore
import FoundationEssentials
import Testing

/// `markRead`: MessageSeenByCustomer for the thread, as the SDK's `ChatThreadService.markRead()` sends it.
@Suite struct ChatMarkReadTests {
    @Test func markReadSendsMessageSeenByCustomerForTheThreadOrTheWorkingOne() throws {
        var session = ChatSessionStepTests.session(ChatOutboxTests.ready().machine)
        for thread in ["thread-1", nil] {
            let actions = try session.begin(.markRead(thread), id: 1)
            let seen = try actions.compactMap { action -> CXoneWire.ThreadData? in
                guard case .writeLink(let bytes) = action, case .frame(let frame) = try CXoneOutbound.decode(bytes),
                    case .messageSeenByCustomer(let data) = frame.event
                else { return nil }
                return data
            }
            #expect(seen.map(\.thread.idOnExternalPlatform) == ["thread-1"], "\(thread ?? "the working thread")")
            #expect(ChatSessionStepTests.words(actions).last == "replied 1 done")
        }
        #expect(throws: ChannelError.self) { try session.begin(.markRead("nowhere"), id: 2) }
    }
}
