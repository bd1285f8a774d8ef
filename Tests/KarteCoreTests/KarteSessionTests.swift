import AttendantPluginAPI
import AttendantPluginKit
import KarteCore
import Testing

/// ``KarteSession``, what the KarteActions driver runs on the kit's `SessionDriver`, with no host: when
/// requests are answered and with what, what is kept in the store, and what reaches the host.
@Suite struct KarteSessionTests {
    typealias Action = KarteSession.Action

    static let appKey = String(repeating: "k", count: 32)

    static func started(startView: String? = nil) -> (KarteSession, [Action]) {
        var session = KarteSession()
        let start = KarteSession.Start(
            appKey: Self.appKey,
            appInfo: Fixtures.appInfo,
            visitorID: "VIS",
            appVersion: "1.0",
            previousVersion: "1.0",
            suppressed: false,
            variables: nil,
            unanswered: [],
            startView: startView
        )
        let actions = session.start(start, trackURL: "https://karte.test/v0/native/track", now: t0)
        return (session, actions)
    }

    /// The requests a step sends, by the machine's id.
    static func sent(_ actions: [Action]) -> [UInt64] {
        actions.compactMap { if case .work(.send(let id, _, let key)) = $0, key == Self.appKey { id } else { nil } }
    }

    static func stored(_ actions: [Action]) -> [String: String?] {
        var stored: [String: String?] = [:]
        for case .write(let write) in actions { stored[write.key] = .some(write.value) }
        return stored
    }

    static func replies(_ actions: [Action]) -> [UInt64: ChannelReply] {
        var replies: [UInt64: ChannelReply] = [:]
        for case .replied(let id, .success(let reply)) in actions { replies[id] = reply }
        return replies
    }

    static func buy(_ tracking: inout KarteTrackingMachine, _ now: UnixTime) throws(KarteFieldError) -> [KarteTrackingMachine.Action] {
        try tracking.track(KarteEvent(name: "buy"), now: now)
    }

    static func badName(_ tracking: inout KarteTrackingMachine, _ now: UnixTime) throws(KarteFieldError) -> [KarteTrackingMachine.Action] {
        try tracking.track(KarteEvent(name: ""), now: now)
    }

    /// Ends the batching window: the requests it sends.
    static func flush(_ session: inout KarteSession) -> [Action] {
        session.timerFired(.tracking(.flush), now: t0)
    }

    @Test func trackingBeforeListeningIsRefusedAndAfterItAnsweredWithTheKeys() throws {
        var idle = KarteSession()
        #expect(throws: KarteSession.notListening) { try idle.track(1, now: t0, Self.buy, reply: { ["pv_id": $0.pvID] }) }

        var (session, launched) = Self.started()
        #expect(
            launched.contains { if case .setTimer(.tracking(.flush), _) = $0 { true } else { false } },
            "the launch events wait for the batching window"
        )
        #expect(Self.stored(launched).keys.contains { $0.hasPrefix(KarteSession.StoreKey.pendingEvent) }, "what is tracked is kept until answered")
        let tracked = try session.track(7, now: t0, Self.buy, reply: { ["pv_id": $0.pvID] })
        #expect(Self.replies(tracked)[7] == .fields(["pv_id": session.tracking!.keys.pvID]))
        #expect(throws: ChannelError.self) { try session.track(8, now: t0, Self.badName, reply: { _ in [:] }) }
    }

    @Test func aVariablesFetchWaitsForItsRequestAndHearsWhatItBrought() throws {
        var (session, _) = Self.started()
        _ = Self.flush(&session)
        let asked = session.variables(5, fetch: true, timeout: .seconds(11), now: t0)
        #expect(Self.replies(asked).isEmpty)
        let request = try #require(Self.sent(Self.flush(&session)).first)
        let answered = session.completed(request, .answer(status: 200, body: Array(Fixtures.responseText.utf8)), now: t0)
        #expect(Self.replies(answered)[5] != nil)
        guard case .fields(let fields)? = Self.replies(answered)[5] else {
            Issue.record("no fields: \(answered)")
            return
        }
        #expect(fields["fetched"] == "true")
        #expect(answered.contains { if case .cancelTimer(.fetch(5)) = $0 { true } else { false } })
        #expect(Self.stored(answered).values.contains(nil), "the answered events are forgotten in the store")

        // Without an answer, the deadline says "not fetched"; once.
        _ = session.variables(6, fetch: true, timeout: .seconds(11), now: t0)
        #expect(Self.replies(session.timerFired(.fetch(6), now: t0))[6] == .fields(["variables": "{}", "fetched": "false"]))
        #expect(session.timerFired(.fetch(6), now: t0).isEmpty)
    }

    @Test func anAnswersActionIsShownAndItsOpenTrackedInTheSameStep() throws {
        var (session, _) = Self.started()
        let request = try #require(Self.sent(Self.flush(&session)).first)
        let answered = session.completed(request, .answer(status: 200, body: Fixtures.response(Fixtures.message(id: "a1"))), now: t0)
        let shown = answered.compactMap { if case .emit(.actionReceived(let action)) = $0 { action.id } else { nil } }
        #expect(shown == ["a1"])
        #expect(session.counters.shown == 1)
        #expect(answered.contains { if case .setTimer(.tracking(.flush), _) = $0 { true } else { false } }, "message_open goes into the next batch")
        #expect(Self.replies(try session.dismiss(9, actionID: nil, now: t0))[9] == .fields(["dismissed": "1"]))
        #expect(throws: ChannelError(.illegalState, "no action a1 is shown; see attendantctl actions list")) {
            try session.dismiss(10, actionID: "a1", now: t0)
        }
    }

    @Test func aRefusedAppKeyStopsListeningAndFailedRequestsAreCounted() throws {
        var (session, _) = Self.started()
        let request = try #require(Self.sent(Self.flush(&session)).first)
        let refused = session.completed(request, .answer(status: 401, body: []), now: t0)
        let stopped = refused.compactMap { if case .emit(.stoppedListening(let error)) = $0 { error } else { nil } }
        #expect(stopped.map(\.code) == [.authentication])
        #expect(stopped.first?.message == "karte-actions: KARTE refused the app key (HTTP 401) at https://karte.test/v0/native/track")

        _ = try session.track(1, now: t0, Self.buy, reply: { _ in [:] })
        let again = try #require(Self.sent(Self.flush(&session)).first)
        _ = session.completed(again, .failure("connection refused"), now: t0)
        #expect(session.counters.failures == 1)
    }
}

/// Where the app key comes from, and what a wrong one or none says (never the key).
@Suite struct KarteAppKeyTests {
    static let key = String(repeating: "a1B2", count: 8)

    @Test func theTokenIsTheKeyAndWithoutATokenSourceTheSecretsAre() throws {
        #expect(try KarteAppKey.fromToken(.available(ChannelToken(value: Self.key, expiresAt: nil))) == Self.key)
        #expect(try KarteAppKey.fromToken(.noSource) == nil, "no token source: ask the secrets")
        #expect(try KarteAppKey.fromSecrets(Self.key, channelName: "app") == Self.key)
    }

    @Test func aWrongKeyOrNoneFailsSayingWhereItLookedAndNeverTheKey() {
        let short = #expect(throws: ChannelError.self) { try KarteAppKey.fromToken(.available(ChannelToken(value: "s3cret", expiresAt: nil))) }
        #expect(short?.code == .configuration && short?.message.contains("6 characters; an app key has 32") == true)
        #expect(short?.message.contains("s3cret") == false)
        let waiting = #expect(throws: ChannelError.self) { try KarteAppKey.fromToken(.unavailable(reason: "the token command failed")) }
        #expect(waiting?.code == .authentication)
        let none = #expect(throws: ChannelError.self) { try KarteAppKey.fromSecrets(nil, channelName: "app") }
        #expect(none?.message.contains(#"{"app": {"app-key": "…"}}"#) == true)
        #expect(!KarteAppKey.isValid(String(repeating: "a", count: 31) + " "), "a space cannot go into the header")
    }
}

/// What a KarteActions channel finds in its store at start, as the session wrote it.
@Suite struct KarteStoredStartTests {
    static func start(_ stored: [String: String]) -> KarteSession.Start {
        KarteSession.Start(
            appKey: KarteSessionTests.appKey,
            appInfo: Fixtures.appInfo,
            visitorID: "VIS",
            appVersion: "2.0",
            stored: stored,
            startView: nil
        )
    }

    @Test func eventsNeverAnsweredComeBackInTheOrderTheyWereRecorded() throws {
        var (session, launched) = KarteSessionTests.started()
        var store: [String: String] = [:]
        func keep(_ actions: [KarteSession.Action]) {
            for case .write(let write) in actions { store[write.key] = write.value }
        }
        keep(launched)
        for n in 0..<11 { keep(try session.perform(.track(KarteEvent(name: "e\(n)")), UInt64(n), now: t0)) }
        store[KarteSession.StoreKey.pendingEvent + "garbage"] = "{"
        store[KarteSession.StoreKey.appVersion] = "1.0"

        let start = Self.start(store)
        let names = start.unanswered.map(\.event.name).filter { $0.hasPrefix("e") }
        #expect(names == (0..<11).map { "e\($0)" }, "e10 after e9, though its id sorts before as text")
        #expect(
            start.unanswered.count == store.keys.filter { $0.hasPrefix(KarteSession.StoreKey.pendingEvent) }.count - 1,
            "what does not parse is left out"
        )
        #expect(start.previousVersion == "1.0")
    }

    @Test func suppressComesBackOnlyWhenItPersists() {
        let stored = [KarteSession.StoreKey.suppressed: "true", KarteSession.StoreKey.variables: #"{"a":1}"#]
        for persists in [true, false] {
            var session = KarteSession(settings: .init(suppressPersists: persists))
            _ = session.start(Self.start(stored), trackURL: "https://karte.test/v0/native/track", now: t0)
            #expect(session.actions.isSuppressed == persists)
        }
        #expect(Self.start(stored).variables == #"{"a":1}"#)
        #expect(Self.start([:]).previousVersion == nil)
    }
}

/// A stopping KarteActions channel: what is tracked goes out, and the stop waits for the answers.
@Suite struct KarteStopTests {
    static func stopReplies(_ actions: [KarteSession.Action]) -> [UInt64] {
        actions.compactMap { if case .replied(let id, .success(.done)) = $0 { id } else { nil } }
    }

    @Test func aStopSendsWhatIsTrackedAndIsOverOnceItIsAnswered() throws {
        var (session, _) = KarteSessionTests.started()
        _ = try session.perform(.track(KarteEvent(name: "buy")), 1, now: t0)
        let stopping = session.stop(9, grace: .seconds(3), now: t0)
        #expect(!session.listening)
        let sent = KarteSessionTests.sent(stopping)
        #expect(sent.count == 1, "the batch goes out without waiting for its window")
        #expect(Self.stopReplies(stopping).isEmpty)
        #expect(stopping.contains { if case .setTimer(.stopGrace, .seconds(3)) = $0 { true } else { false } })

        // The first answer shows an action: what that tracks (`message_open`, `_message_ready`) goes out at
        // once, and the stop waits for those requests too.
        var (pending, rounds, replied, last): ([UInt64], Int, [UInt64], [KarteSession.Action]) = (sent, 0, [], [])
        var body = Fixtures.response(Fixtures.message(id: "a1"))
        while let id = pending.first, rounds < 10 {
            #expect(replied.isEmpty, "over only once nothing is under way")
            pending.removeFirst()
            last = session.completed(id, .answer(status: 200, body: body), now: t0)
            body = Fixtures.response()
            replied += Self.stopReplies(last)
            pending += KarteSessionTests.sent(last)
            rounds += 1
        }
        #expect(rounds >= 2 && replied == [9])
        #expect(last.contains { if case .cancelTimer(.stopGrace) = $0 { true } else { false } })
        #expect(session.timerFired(.stopGrace, now: t0).isEmpty, "over once")
    }

    @Test func aStopWithNothingUnderWayIsOverAtOnceAndOneWithNoAnswerAfterItsGrace() throws {
        var (idle, _) = KarteSessionTests.started()
        let sent = KarteSessionTests.sent(KarteSessionTests.flush(&idle))
        for id in sent { _ = idle.completed(id, .answer(status: 200, body: Fixtures.response()), now: t0) }
        #expect(Self.stopReplies(idle.stop(1, grace: .seconds(3), now: t0)) == [1])

        var session = KarteSessionTests.started().0
        let stopping = session.stop(2, grace: .seconds(3), now: t0)
        #expect(!KarteSessionTests.sent(stopping).isEmpty && Self.stopReplies(stopping).isEmpty)
        let late = session.timerFired(.stopGrace, now: t0)
        #expect(Self.stopReplies(late) == [2])
        #expect(
            late.contains { if case .log(.notice, let line) = $0 { line.hasPrefix("stopped with 1 track request(s) unanswered") } else { false } }
        )
    }
}
