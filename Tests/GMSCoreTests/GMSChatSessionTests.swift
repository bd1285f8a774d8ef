import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import GMSCore
import Testing

/// ``GMSChatSession``, what the GMSChat driver runs on the kit's `SessionDriver`, with no host: starting
/// a chat and who hears what, the transcript's gaps and replays, an interrupted or stopped session, and
/// what is resumed after a restart.
@Suite struct GMSChatSessionTests {
    typealias Action = GMSChatSession.Action

    static let now = UnixTime(secondsSince1970: 1_800_000_000)

    static func session(apiVersion: Int = 2, stored: GMSChatSession.Stored = .init()) -> GMSChatSession {
        let settings = GMSChatSession.Settings(
            apiVersion: apiVersion,
            service: "customer-support",
            serverDescription: "GMS at https://gms.test (chat API v\(apiVersion))",
            networkDelay: .seconds(4),
            makeThreadID: { "gms-thread" }
        )
        return GMSChatSession(settings: settings, transport: BayeuxTransport.Configuration(url: "https://gms.test/genesys/cometd"), stored: stored)
    }

    static func rows(_ positions: [Int], agent: Bool = true) -> [GMSTranscriptEvent] {
        positions.map {
            GMSTranscriptEvent(
                position: $0,
                type: GMSEventType("Message"),
                party: GMSParty(nickname: agent ? "Ann" : "Me", type: agent ? "Agent" : "Client"),
                text: "m\($0)"
            )
        }
    }

    /// Each action in a few words, for comparing in order.
    static func words(_ actions: [Action]) -> [String] {
        actions.compactMap { action -> String? in
            switch action {
            case .work(.requestNotifications(_, let position)): "ask after \(position)"
            case .work(.requestChat): "request chat"
            case .work(.createV1Interaction(let serviceID)): "create \(serviceID)"
            case .work(.fetchRows(_, let from)): "fetch from \(from)"
            case .write(let write) where write.key == GMSChatSession.StoreKey.position: "store position \(write.value ?? "nil")"
            // The keys in a few words: the secure key (the other four go with it).
            case .write(let write) where write.place == .secrets:
                write.key == GMSChatKeys.SecretKey.secureKey ? "store keys \(write.value ?? "nil")" : nil
            case .write(let write): "store \(write.key)=\(write.value ?? "nil")"
            case .setTimer(.gap, let delay): "gap in \(delay.components.seconds) s"
            case .setTimer(.request(let id), _): "deadline \(id)"
            case .cancelTimer(.gap): "cancel gap"
            case .setTimer(.historyFetch, _): "history fetch timer"
            case .cancelTimer(.historyFetch): "end history fetch timer"
            case .cancelTimer(.request(let id)): "end deadline \(id)"
            case .emit(.messageReceived(let message)): "message \(message.text)"
            case .emit(let event): "emit \(event)".prefix { $0 != "(" }.description
            case .log(let level, let message): "\(level) \(message)"
            case .replied(let id, .success): "replied \(id)"
            case .replied(let id, .failure(let error)): "failed \(id) \(error.message)"
            // The CometD session's own (GMSChatSessionBayeuxTests).
            case .work(.post(let post)): "post \(post.ids)"
            case .setTimer(.bayeux(let id), _): "bayeux timer \(id.kind)"
            case .cancelTimer(.bayeux(let id)): "end bayeux timer \(id.kind)"
            case .openLink, .writeLink, .closeLink, .cancelOperations: "\(action)"
            @unknown default: "\(action)"
            }
        }
    }

    /// A listening session whose chat GMS started with secure key `key-1`.
    static func active() throws -> GMSChatSession {
        var session = Self.session()
        _ = session.connected(over: "websocket")
        session.listened()
        _ = try session.startChat(1, timeout: .seconds(8))
        _ = session.received(GMSChatV2Reply(chatID: "chat-1", userID: "user-1", secureKey: "key-1"), now: Self.now)
        return session
    }

    @Test func aChatStartsOnceGMSGivesItsKeysAndEveryCallerWaitingHearsIt() throws {
        var session = Self.session()
        #expect(throws: ChannelError(.illegalState, "gms-chat: not connected to GMS at https://gms.test (chat API v2) yet")) {
            try session.startChat(1, timeout: .seconds(8))
        }
        _ = session.connected(over: "websocket")
        #expect(Self.words(try session.startChat(1, timeout: .seconds(8))) == ["request chat", "deadline 1"])
        #expect(Self.words(try session.startChat(2, timeout: .seconds(8))) == ["deadline 2"], "a start under way is waited for, not repeated")
        let started = Self.words(session.received(GMSChatV2Reply(chatID: "chat-1", secureKey: "key-1", messages: Self.rows([1])), now: Self.now))
        #expect(
            Array(started.prefix(7)) == [
                "store keys key-1", "store thread-id=gms-thread", "store position 0", "store chat-phase=active",
                "emit chatStateChanged", "emit threadUpdated", "info gms-chat: the chat with GMS at https://gms.test (chat API v2) started",
            ]
        )
        #expect(started.contains("end deadline 1") && started.contains("replied 1") && started.contains("replied 2"))
        #expect(Array(started.suffix(4)) == ["emit incomingContact", "message m1", "store position 1", "cancel gap"], "\(started)")
        #expect(session.phase == .active)
        #expect(Self.words(try session.startChat(3, timeout: .seconds(8))) == ["replied 3"])
    }

    @Test func whatAChatWroteIsReadBackAsTheChatToResume() throws {
        var session = Self.session()
        _ = session.connected(over: "websocket")
        _ = try session.startChat(1, timeout: .seconds(8))
        var (store, secrets): ([String: String], [String: String]) = ([:], [:])
        let started = session.received(
            GMSChatV2Reply(chatID: "chat-1", userID: "user-1", secureKey: "key-1", messages: Self.rows([1, 2])),
            now: Self.now
        )
        for case .write(let write) in started {
            if write.place == .store { store[write.key] = write.value } else { secrets[write.key] = write.value }
        }
        let stored = GMSChatSession.Stored(store: store, secrets: secrets)
        #expect(stored.position == 2 && stored.threadID == "gms-thread" && stored.phase == .active)
        #expect(stored.keys.secureKey == "key-1" && stored.keys.userID == "user-1" && stored.keys.chatID == "chat-1")
        #expect(Self.session(stored: stored).phase == .active)

        let unreadable = GMSChatSession.Stored(store: [GMSChatSession.StoreKey.position: "x", GMSChatSession.StoreKey.phase: "?"], secrets: [:])
        #expect(unreadable.position == 0 && unreadable.phase == .none && unreadable.keys.secureKey == nil)
    }

    @Test func aRefusedOrLateStartFailsEveryCallerAndLeavesNoChat() throws {
        var session = Self.session()
        _ = session.connected(over: "websocket")
        _ = try session.startChat(1, timeout: .seconds(8))
        let refused = Self.words(session.received(GMSChatV2Reply(statusCode: 2, errors: ["no agents"]), now: Self.now))
        #expect(refused.contains("failed 1 gms-chat: GMS at https://gms.test (chat API v2) did not start the chat: no agents"))
        #expect(session.phase == .none)
        #expect(session.statusFields()["last-error"] == "GMS refused an operation: no agents")

        _ = try session.startChat(2, timeout: .seconds(8))
        _ = try session.startChat(3, timeout: .seconds(8))
        let late = Self.words(session.timerFired(.request(2), now: Self.now))
        #expect(late.filter { $0.hasPrefix("failed") }.count == 2, "\(late)")
        #expect(session.phase == .none)
        #expect(session.timerFired(.request(3), now: Self.now).isEmpty, "the other caller heard it already")
    }

    @Test func theLastErrorBelongsToTheChatThatFailedAndANewChatClearsIt() throws {
        var session = try Self.active()
        // GMS refuses an operation and ends the chat: `chat status` says why.
        _ = session.received(
            GMSChatV2Reply(secureKey: "key-1", statusCode: 2, chatEnded: true, errors: ["updateNickname needs a nickname"]),
            now: Self.now
        )
        #expect(session.phase == .ended)
        #expect(session.statusFields()["last-error"] == "GMS refused an operation: updateNickname needs a nickname")
        // Still the same connection: a new chat starts, and the error was the other chat's.
        _ = try session.startChat(2, timeout: .seconds(8))
        #expect(session.statusFields()["last-error"] != nil, "nothing has started yet")
        _ = session.received(GMSChatV2Reply(chatID: "chat-2", userID: "user-1", secureKey: "key-2"), now: Self.now)
        #expect(session.phase == .active)
        #expect(session.statusFields()["last-error"] == nil, "\(session.statusFields())")
    }

    @Test func rowsBehindAGapWaitThenAreAskedForThenTheGapIsSkipped() throws {
        var session = try Self.active()
        let first = Self.words(session.received(GMSChatV2Reply(secureKey: "key-1", messages: Self.rows([1, 3])), now: Self.now))
        #expect(first.contains("message m1") && !first.contains("message m3"))
        #expect(first.last == "gap in 1 s")
        #expect(session.statusFields()["waiting-for-position"] == "2")

        let asked = Self.words(session.timerFired(.gap, now: Self.now))
        #expect(asked == ["gap in 4 s", "ask after 1"])
        let replayed = Self.words(session.received(GMSChatV2Reply(secureKey: "key-1", messages: Self.rows([3])), now: Self.now))
        #expect(!replayed.contains("gap in 1 s"), "a replay without the gap does not put off giving it up: \(replayed)")
        let skipped = Self.words(session.timerFired(.gap, now: Self.now))
        #expect(
            skipped == [
                "warning gms-chat: transcript rows from position 2 never came, even replayed; going on after them", "message m3", "store position 3",
            ]
        )
        #expect(session.ledger.shown == 3)

        // A row that fills a gap in time ends the wait.
        _ = session.received(GMSChatV2Reply(secureKey: "key-1", messages: Self.rows([5])), now: Self.now)
        #expect(
            Self.words(session.received(GMSChatV2Reply(secureKey: "key-1", messages: Self.rows([4])), now: Self.now)) == [
                "message m4", "message m5", "store position 5", "cancel gap",
            ]
        )
    }

    @Test func anInterruptedSessionAsksForTheChatsEventsAtOnceAndAgainOnceConnectedIfThatFailed() throws {
        var session = try Self.active()
        let interrupted = Self.words(session.interrupted("connection reset"))
        #expect(interrupted.last == "ask after 0")
        #expect(Self.words(session.interrupted("again")).count == 1, "not while the request is under way")
        _ = session.notificationsAsked(succeeded: false)
        #expect(Self.words(session.connected(over: "long-polling")).last == "ask after 0")
        _ = session.notificationsAsked(succeeded: true)
        #expect(!Self.words(session.connected(over: "long-polling")).contains("ask after 0"), "asked and answered")
        #expect(Self.words(session.handshook()) == ["ask after 0"], "a new client id is not bound to the chat")
    }

    @Test func aSessionTheServerStopsIsToldToTheHostOnceUnlessInTheBackground() throws {
        var session = try Self.active()
        let stopped = Self.words(session.stopped("402::Unknown client"))
        #expect(stopped == ["emit stoppedListening"])
        #expect(session.listening == false)
        #expect(session.stopped("again").isEmpty, "once")

        var background = try Self.active()
        _ = background.enterBackground()
        #expect(background.stopped("402::Unknown client").isEmpty)

        // A caller waiting for the first connect hears why it will not come.
        var connecting = Self.session()
        _ = connecting.awaitConnect(7, timeout: .seconds(12))
        #expect(
            Self.words(connecting.stopped(nil)) == [
                "end deadline 7", "failed 7 gms-chat: GMS at https://gms.test (chat API v2) ended the session: disconnected",
            ]
        )
    }

    @Test func theChatsEndClosesItsThreadAndContactAndForgetsTheKeys() throws {
        var session = try Self.active()
        _ = session.received(GMSChatV2Reply(secureKey: "key-1", messages: Self.rows([1])), now: Self.now)
        let ended = Self.words(session.received(GMSChatV2Reply(secureKey: "key-1", chatEnded: true), now: Self.now))
        #expect(
            ended == [
                "cancel gap", "store keys nil", "store chat-phase=ended", "emit threadUpdated", "emit contactEnded", "emit chatStateChanged",
                "info gms-chat: the chat with GMS at https://gms.test (chat API v2) ended",
            ]
        )
        #expect(session.phase == .ended && session.keys == nil)
        #expect(session.listThreads().map(\.state) == [.closed])
    }

    @Test func aStoredChatResumesOnlyWithTheKeysItsAPIVersionNeeds() {
        let keys = GMSChatKeys(secureKey: "key-1", chatID: "chat-1")
        var v2 = Self.session(stored: .init(position: 12, threadID: "gms-old", phase: .active, keys: keys))
        #expect(v2.phase == .active && v2.ledger.shown == 12 && v2.listThreads().map(\.id) == ["gms-old"])
        let v1 = Self.session(apiVersion: 1, stored: .init(position: 12, threadID: "gms-old", phase: .active, keys: keys))
        #expect(v1.phase == .none, "v1 needs the chat's service too")
        #expect(v1.ledger.shown == 12, "the position shown is kept all the same")
        #expect(Self.session(stored: .init(position: 3, phase: .ended, keys: keys)).phase == .none)
    }

    @Test func v1CreatesTheInteractionOnlyOnceConnectedAndStartsWithItsRows() throws {
        var session = Self.session(apiVersion: 1)
        session.listened()
        _ = try session.startChat(1, timeout: .seconds(8))
        #expect(session.v1ServiceMade("svc-1").isEmpty, "not before the session connected")
        #expect(Self.words(session.connected(over: "websocket")).last == "create svc-1")
        #expect(Self.words(session.connected(over: "websocket")).allSatisfy { !$0.hasPrefix("create") }, "once")
        let event = GMSChatV1Event(
            serviceID: "svc-1",
            chatSessionID: "chat-1",
            state: nil,
            transcriptPosition: 1,
            startedAt: nil,
            rows: Self.rows([1])
        )
        let created = Self.words(session.v1Created(GMSChatKeys(secureKey: "key-1", chatID: "chat-1", serviceID: "svc-1"), event, now: Self.now))
        #expect(created.contains("message m1") && created.last == "replied 1")

        // Another chat's events on /_genesys are not this one's.
        let other = GMSChatV1Event(
            serviceID: "svc-2",
            chatSessionID: "chat-2",
            state: nil,
            transcriptPosition: 2,
            startedAt: nil,
            rows: Self.rows([2])
        )
        #expect(Self.words(session.received(other, now: Self.now)) == ["debug gms-chat: ignored a /_genesys event of another chat"])
    }
}
