import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import GMSCore
import Testing

/// Reading a GMS chat's thread back (``GMSChatSession/listThreads()``, `openThread`, `loadOlderMessages`):
/// its last 20 messages, older pages from what the session holds, and rows that are not held (after a
/// restart) fetched with v2 `requestNotifications` from an older position, which GMS answers by re-sending
/// every row from there.
@Suite struct GMSChatHistoryTests {
    typealias Tests = GMSChatSessionTests
    static let now = Tests.now

    /// What request `id` was answered with: the thread's messages' texts.
    static func texts(_ actions: [GMSChatSession.Action], id: UInt64) -> [String]? {
        for case .replied(id, .success(.thread(let thread))) in actions { return thread.lastMessages.map(\.text) }
        return nil
    }

    static func fetches(_ actions: [GMSChatSession.Action]) -> [Int] {
        actions.compactMap { action in
            if case .work(.fetchRows(_, let from)) = action { return from }
            return nil
        }
    }

    @Test func theThreadShowsItsLastTwentyMessagesAndOlderPagesUntilItsStart() throws {
        var session = try Tests.active()
        // Typing notices are events, not what the thread shows.
        var typing = Tests.rows([26])
        typing[0].type = GMSEventType("TypingStarted")
        _ = session.received(GMSChatV2Reply(secureKey: "key-1", messages: Tests.rows(Array(1...25)) + typing), now: Self.now)
        let threads = session.listThreads()
        #expect(threads.map(\.id) == ["gms-thread"])
        #expect(threads.first?.lastMessages.map(\.text) == (6...25).map { "m\($0)" })
        #expect(threads.first?.lastMessages.first?.transcriptPosition == 6)

        #expect(Self.texts(try session.openThread(2, threadID: "gms-thread"), id: 2) == (6...25).map { "m\($0)" })
        #expect(Self.texts(try session.loadOlderMessages(3, threadID: "gms-thread"), id: 3) == (1...5).map { "m\($0)" })
        #expect(Self.texts(try session.loadOlderMessages(4, threadID: nil), id: 4) == [], "the conversation's start")
        #expect(throws: ChannelError(.invalidArgument, "gms-chat: no thread gms-other here; the chat's thread is gms-thread")) {
            try session.openThread(5, threadID: "gms-other")
        }
    }

    @Test func afterARestartTheRowsShownAreFetchedFromGMSAgainAndNotShownAsNew() throws {
        let keys = GMSChatKeys(secureKey: "key-1", chatID: "chat-1")
        var session = Tests.session(stored: .init(position: 30, threadID: "gms-old", phase: .active, keys: keys))
        #expect(session.listThreads().first?.lastMessages == [], "nothing held yet")
        let opening = try session.openThread(2, threadID: "gms-old")
        #expect(Self.fetches(opening) == [1] && Self.texts(opening, id: 2) == nil, "\(opening)")
        #expect(Tests.words(session.historyFetchAsked(succeeded: true)) == [])

        // GMS re-sends every row from position 1, and one new row: only that one is news.
        let replay = Tests.words(session.received(GMSChatV2Reply(secureKey: "key-1", messages: Tests.rows(Array(1...31))), now: Self.now))
        #expect(replay.contains("replied 2") && replay.filter { $0.hasPrefix("message ") } == ["message m31"], "\(replay)")
        #expect(Self.texts(try session.loadOlderMessages(3, threadID: nil), id: 3) == (1...10).map { "m\($0)" })
        #expect(Self.texts(try session.loadOlderMessages(4, threadID: nil), id: 4) == [])
    }

    @Test func aFetchThatDoesNotComeOrFailsAnswersWithWhatIsHeld() throws {
        let keys = GMSChatKeys(secureKey: "key-1", chatID: "chat-1")
        var session = Tests.session(stored: .init(position: 30, threadID: "gms-old", phase: .active, keys: keys))
        _ = session.received(GMSChatV2Reply(secureKey: "key-1", messages: Tests.rows([31, 32])), now: Self.now)
        _ = session.listThreads()
        let older = try session.loadOlderMessages(2, threadID: nil)
        #expect(Self.fetches(older) == [1])
        #expect(Self.fetches(try session.loadOlderMessages(3, threadID: nil)) == [], "the fetch under way is waited for")
        let ended = session.timerFired(.historyFetch, now: Self.now)
        #expect(Self.texts(ended, id: 2) == [] && Self.texts(ended, id: 3) == [])

        _ = try session.openThread(4, threadID: "gms-old")
        #expect(Self.texts(session.historyFetchAsked(succeeded: false), id: 4) == ["m31", "m32"])
    }

    @Test func chatAPIv1PagesThroughWhatIsHeldOnly() throws {
        let keys = GMSChatKeys(secureKey: "key-1", chatID: "chat-1", serviceID: "service-1")
        var session = Tests.session(apiVersion: 1, stored: .init(position: 30, threadID: "gms-old", phase: .active, keys: keys))
        #expect(Self.texts(try session.openThread(2, threadID: "gms-old"), id: 2) == [])
        #expect(Self.texts(try session.loadOlderMessages(3, threadID: nil), id: 3) == [])
    }
}
