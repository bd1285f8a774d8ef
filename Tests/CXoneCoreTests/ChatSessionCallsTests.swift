import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import CXoneCore
import Testing

/// The session's REST calls with no network (ChatSession+Calls): the call each piece of work is, the step
/// each outcome makes (the machine's input, a refusal, a transport failure, a body over the limit), the
/// analytics events one at a time; and the session made from what the channel read at start
/// (ChatSession+Stored).
@Suite struct ChatSessionCallsTests {
    typealias Action = ChatSession.Action
    static let now = ChatDriver().wallClock
    static let words = ChatSessionStepTests.words

    static func answer(_ status: Int, _ reason: String = "", _ body: String = "") -> Result<NetworkResponse, NetworkError> {
        .success(NetworkResponse(status: status, reason: reason, body: Array(body.utf8)))
    }

    /// The calls among `actions`, as the channel makes them.
    static func calls(_ actions: [Action]) throws -> [ChatCall] {
        try actions.compactMap { action in
            guard case .work(let work) = action else { return nil }
            return try work.call(ChatSessionStepTests.settings)?.get()
        }
    }

    /// A prepared session's first page view: VisitorVisit and PageView, as the machine sends them.
    static func viewing() throws -> (ChatSession, [Action]) {
        var session = ChatSessionStepTests.session()
        _ = try ChatSessionStepTests.prepare(&session)
        let viewed = try session.begin(.viewPage(title: "Desk", url: "https://example.com/desk", at: Self.now), id: 2)
        return (session, viewed)
    }

    static let configuration = #"{"isLiveChat": true, "isAuthorizationEnabled": false, "settings": {"hasMultipleThreadsPerEndUser": false}}"#

    static func event(_ call: ChatCall) -> String {
        String(decoding: call.request.body ?? [], as: UTF8.self)
    }

    @Test func analyticsGoOutOneAtATimeInTheMachinesOrder() throws {
        var (session, viewed) = try Self.viewing()
        let first = try Self.calls(viewed)
        #expect(first.count == 1, "the page view waits behind the visit: \(Self.words(viewed))")
        #expect(Self.event(try #require(first.first)).contains("\"VisitorVisit\""))

        // The visit's answer sends the page view; the page view's sends nothing more.
        let next = session.analyticsAnswered(nil)
        let second = try Self.calls(next)
        #expect(second.count == 1, "\(Self.words(next))")
        #expect(Self.event(try #require(second.first)).contains("\"PageView\""))
        #expect(session.analyticsAnswered(nil).isEmpty)

        // With none on the network, the next event goes at once.
        let ended = try session.begin(.viewPage(title: "Help", url: "https://example.com/help", at: Self.now + .seconds(5)), id: 3)
        #expect(try Self.calls(ended).count == 1)
    }

    @Test func aFailedAnalyticsEventIsAWarningAndTheNextGoesAllTheSame() throws {
        var (session, viewed) = try Self.viewing()
        let visit = try #require(try Self.calls(viewed).first)
        let read = visit.step(Self.answer(500, "Internal Server Error", "down"), now: Self.now)(&session)
        let words = Self.words(read)
        #expect(words.first?.hasPrefix("warning cxone-chat: could not send a VisitorVisit analytics event: POST https://") == true, "\(words)")
        #expect(words.first?.hasSuffix("answered 500 Internal Server Error (down)") == true, "\(words)")
        let retried = try Self.calls(read)
        #expect(retried.count == 1 && Self.event(retried[0]).contains("\"PageView\""), "not retried, the next goes: \(words)")

        // A transport failure reads the same way; an answer is no warning.
        let failed = retried[0].step(.failure(NetworkError(.connection, "POST https://x/events failed: refused")), now: Self.now)(&session)
        #expect(Self.words(failed) == ["warning cxone-chat: could not send a PageView analytics event: POST https://x/events failed: refused"])
        #expect(session.analyticsAnswered(nil).isEmpty, "nothing waits")
    }

    @Test func aFetchsAnswerIsTheMachinesInputAndAFailureFailsTheOperation() throws {
        var session = ChatSessionStepTests.session()
        let begun = try session.begin(.prepare(brandID: ChatDriver.brandID, channelID: ChatDriver.channelID, timeout: .seconds(30)), id: 1)
        let fetch = try #require(try Self.calls(begun).first)
        #expect(fetch.request.method == "GET" && fetch.request.url.hasSuffix("/channel/\(ChatDriver.channelID)"))
        let url = fetch.request.url
        let refused = Self.words(fetch.step(Self.answer(503, "Service Unavailable", "busy"), now: Self.now)(&session))
        #expect(
            refused.contains("failed 1 cxone-chat: could not fetch the channel configuration: GET \(url) answered 503 Service Unavailable (busy)"),
            "\(refused)"
        )

        // The next try: the version refused for good, with CXone's code.
        let again = try session.begin(.prepare(brandID: ChatDriver.brandID, channelID: ChatDriver.channelID, timeout: .seconds(30)), id: 2)
        let retry = try #require(try Self.calls(again).first)
        let body = #"{"error": {"errorCode": "SdkVersionNotSupported", "errorMessage": "too old"}}"#
        let words = Self.words(retry.step(Self.answer(400, "Bad Request", body), now: Self.now)(&session))
        let expected =
            "failed 2 cxone-chat: could not fetch the channel configuration: GET \(url) answered 400 Bad Request SdkVersionNotSupported: too old; the chat server does not accept this client's SDK version (test-1): update Attendant"
        #expect(words.contains(expected), "\(words)")

        // An answer goes on to the visitor.
        let third = try session.begin(.prepare(brandID: ChatDriver.brandID, channelID: ChatDriver.channelID, timeout: .seconds(30)), id: 3)
        let fetched = try #require(try Self.calls(third).first).step(Self.answer(200, "OK", Self.configuration), now: Self.now)(&session)
        let visitor = try #require(try Self.calls(fetched).first, "\(Self.words(fetched))")
        #expect(visitor.request.method == "PUT" && visitor.request.url.contains("/visitors/"), "\(Self.words(fetched))")
        let stored = Self.words(
            visitor.step(.failure(NetworkError(.connection, "PUT \(visitor.request.url) failed: reset")), now: Self.now)(&session)
        )
        #expect(stored.contains("failed 3 cxone-chat: could not send the visitor: PUT \(visitor.request.url) failed: reset"), "\(stored)")
    }

    @Test func aLargeEventsBodyOverTheLimitIsNamedAndIgnored() throws {
        let url = "https://s3.example/e1.json?X-Amz-Signature=secret"
        let work = ChatSession.Work.download(url: url, nil)
        let call = try #require(try work.call(ChatSessionStepTests.settings)?.get())
        #expect(call.request.url == url && call.request.method == "GET" && !call.request.usesCookies)
        #expect(call.request.maximumResponseSize == CXoneWireLimits().maxFrameSize + 1)
        guard case .failure(let error) = call.body(.failure(NetworkError(.tooLarge, "too large"))) else {
            Issue.record("a body over the limit is no body")
            return
        }
        let limit = CXoneWireLimits().maxFrameSize + 1
        #expect(error.message == "could not fetch a large chat event: GET https://s3.example/e1.json?… answered more than \(limit) bytes")
        // Without its notice (the socket it came on is gone), the body is not read.
        var session = ChatSessionStepTests.session()
        #expect(Self.words(call.step(Self.answer(200, "OK", "{}"), now: Self.now)(&session)).isEmpty)
        #expect(ChatSession.Work.machine(.removeFromOutbox(messageID: "m-1")).call(ChatSessionStepTests.settings) == nil, "not a call")
    }

    @Test func aVisitorThatCannotBeSentFailsThePreparation() throws {
        var session = ChatSessionStepTests.session()
        _ = try session.begin(.prepare(brandID: ChatDriver.brandID, channelID: ChatDriver.channelID, timeout: .seconds(30)), id: 1)
        _ = session.run { $0.handle(.channelConfigurationFetched(.init())) }
        let action = ChatStateMachine.Action.createOrUpdateVisitor(brandID: ChatDriver.brandID, visitorID: "v-1", customerID: "c-1")
        let words = Self.words(session.unsent(.machine(action), ChatError(.server, "could not encode the visitor: no")))
        #expect(words.contains("failed 1 cxone-chat: could not encode the visitor: no"), "\(words)")
    }

    @Test func theSessionIsMadeOfWhatWasStoredAndTheLogSaysWhatWasDropped() throws {
        let entry = ChatStateMachine.OutboxEntry(messageID: "M-1", threadID: "thread-1", text: "Hello", writtenAt: Self.now)
        struct Unreadable: Error, CustomStringConvertible { var description: String { "locked" } }
        let stored = ChatSession.Stored(
            values: ["visitor-id": "v-9", "customer-id": "c-9"],
            outbox: [ChatStorage.OutboxRecord(entry)],
            unreadable: [7],
            secret: .failure(Unreadable())
        )
        let (session, log) = ChatSession.loaded(stored, configuration: ChatDriver().machine.configuration, settings: ChatSessionStepTests.settings)
        #expect(
            log.map { "\($0.level) \($0.message)" } == [
                "warning cxone-chat: dropped an outbox entry that cannot be read (id 7)",
                "warning cxone-chat: cannot read the stored access token (locked); the customer is authorized afresh",
                "info cxone-chat: 1 message(s) wait in the outbox from before; they go out once connected",
            ]
        )
        #expect(session.machine.outbox.map(\.messageID) == ["M-1"])
        #expect(session.machine.stored.visitorID == "v-9")

        let token = #"{"value": "token-1"}"#
        let fresh = ChatSession.loaded(
            ChatSession.Stored(values: [:], outbox: [], unreadable: [], secret: .success(token)),
            configuration: ChatDriver().machine.configuration,
            settings: ChatSessionStepTests.settings
        )
        #expect(fresh.log.isEmpty)
        #expect(fresh.session.machine.accessToken?.value == "token-1")
    }
}
