import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import CXoneCore
import FoundationEssentials
import Testing

/// `loadOlderMessages`: LoadMoreMessages with the scroll token and the oldest message's time, the page
/// replied oldest first, and nothing more once a page is empty (the SDK's `processMoreMessagesLoaded`).
@Suite struct ChatOlderMessagesTests {
    static func message(_ id: String, _ text: String, at seconds: Double) -> CXoneWire.Message {
        var message = ChatChoicesTests.wireMessage(id, .text(text))
        message.createdAt = Date(timeIntervalSince1970: seconds)
        return message
    }

    /// The LoadMoreMessages among `actions`, with its `eventId`.
    static func loadMore(_ actions: [ChatSession.Action]) throws -> (CXoneID, CXoneWire.LoadMoreMessages)? {
        for case .writeLink(let bytes) in actions {
            if case .frame(let frame) = try CXoneOutbound.decode(bytes), case .loadMoreMessages(let data) = frame.event {
                return (frame.eventId, data)
            }
        }
        return nil
    }

    static func replied(_ actions: [ChatSession.Action]) -> [String]? {
        for case .replied(_, .success(.thread(let thread))) in actions { return thread.lastMessages.map(\.text) }
        return nil
    }

    @Test func olderPagesAreAskedWithTheScrollTokenUntilOneIsEmpty() throws {
        var session = ChatSessionStepTests.session(ChatOutboxTests.ready().machine)
        let recovered = CXoneWire.ThreadRecovered(
            messages: [Self.message("m-5", "Five", at: 500), Self.message("m-4", "Four", at: 400)],
            thread: CXoneWire.Thread(idOnExternalPlatform: "Thread-1"),
            messagesScrollToken: "token-1"
        )
        _ = session.received(.postback(eventId: "e-1", event: .threadRecovered(recovered)), now: UnixTime(secondsSince1970: 600))

        let asked = try session.loadOlder(threadID: nil, timeout: .seconds(5), id: 7)
        let (eventID, data) = try #require(try Self.loadMore(asked))
        #expect(data.scrollToken == "token-1")
        #expect(data.thread.idOnExternalPlatform == "thread-1")
        #expect(data.oldestMessageDatetime == Date(timeIntervalSince1970: 400))
        // An inactivity popup in an older page is over (the SDK's `ChatThread.updated` keeps it out).
        var popup = ChatChoicesTests.wireMessage("m-popup", ChatChoicesTests.popup)
        popup.createdAt = Date(timeIntervalSince1970: 350)
        let page = CXoneWire.MoreMessagesLoaded(
            messages: [popup, Self.message("m-3", "Three", at: 300), Self.message("m-2", "Two", at: 200)],
            scrollToken: "token-2"
        )
        #expect(
            Self.replied(session.received(.postback(eventId: eventID, event: .moreMessagesLoaded(page)), now: UnixTime(secondsSince1970: 600))) == [
                "Two", "Three",
            ]
        )

        let next = try #require(try Self.loadMore(try session.loadOlder(threadID: "thread-1", timeout: .seconds(5), id: 8)))
        #expect(next.1.scrollToken == "token-2" && next.1.oldestMessageDatetime == Date(timeIntervalSince1970: 200))
        let none = CXoneWire.MoreMessagesLoaded(messages: [], scrollToken: nil)
        #expect(
            Self.replied(session.received(.postback(eventId: next.0, event: .moreMessagesLoaded(none)), now: UnixTime(secondsSince1970: 600))) == []
        )

        // No token any more: answered at once, nothing asked.
        let done = try session.loadOlder(threadID: nil, timeout: .seconds(5), id: 9)
        #expect(try Self.loadMore(done) == nil)
        #expect(Self.replied(done) == [])
    }
}
