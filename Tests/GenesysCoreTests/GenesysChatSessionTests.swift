import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import GenesysCore
import Synchronization
import Testing

/// The chat session on the kit's driver, without the driver: what each step asks (the link, the store, the
/// host's events, the callers' replies), on frames shaped as the SDK's fixtures
/// (androidUnitTest/transport/util/Response.kt).
@Suite struct GenesysChatSessionTests {
    typealias Action = GenesysChatSession.Action

    static let token = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
    static let deployment = Array(
        #"{"id":"deploymentId","version":"1","status":"Active","messenger":{"enabled":true,"apps":{"conversations":{"messagingEndpoint":"wss://webmessaging.example.com","showUserTypingIndicator":true}}}}"#
            .utf8
    )
    static let configured = #"{"type":"response","class":"SessionResponse","code":200,"body":{"connected":true,"newSession":true}}"#

    static func agentSays(_ id: String, _ text: String, content: String = "[]", tracingId: String? = nil) -> String {
        #"{"type":"message","class":"StructuredMessage","code":200,"#
            + (tracingId.map { #""tracingId":"\#($0)","# } ?? "")
            + #""body":{"id":"\#(id)","type":"Structured","text":"\#(text)","direction":"Outbound","channel":{"time":"2022-08-22T19:24:26.704Z","messageId":"\#(id)","from":{"nickname":"Sam"}},"content":\#(content),"originatingEntity":"Human"}}"#
    }

    static func ours(_ id: String, _ text: String, tracingId: String) -> String {
        #"{"type":"message","class":"StructuredMessage","code":200,"tracingId":"\#(tracingId)","body":{"id":"\#(id)","type":"Text","text":"\#(text)","direction":"Inbound","channel":{"time":"2022-08-22T19:25:00.000Z","messageId":"\#(id)"}}}"#
    }

    static let disconnect =
        #"{"type":"message","class":"StructuredMessage","code":200,"body":{"direction":"Outbound","id":"disconnect-1","channel":{"time":"2022-03-09T13:35:31.104Z"},"type":"Event","metadata":{"readOnly":"true"},"events":[{"eventType":"Presence","presence":{"type":"Disconnect"}}]}}"#

    static let now = UnixTime(secondsSince1970: 1_700_000_000)

    /// A session fed what its actions lead to, recording what the host and the callers would see.
    struct Harness {
        var session: GenesysChatSession
        var actions: [Action] = []
        var threadCounter = 0

        init(stored: GenesysChatSession.Stored = GenesysChatSession.Stored(token: GenesysChatSessionTests.token), authenticated: Bool = false) {
            let counter = ThreadIDs()
            var settings = GenesysChatSession.Settings(
                endpoints: GenesysEndpoints(domain: "", deploymentId: "deploymentId", application: "test", customEndpoint: "127.0.0.1:9"),
                serverDescription: "the service",
                makeThreadID: { counter.next() },
                seed: 1
            )
            settings.authenticated = authenticated
            self.session = GenesysChatSession(settings: settings, stored: stored)
        }

        mutating func run(_ step: (inout GenesysChatSession) -> [Action]) -> [Action] {
            let actions = step(&self.session)
            self.actions += actions
            return actions
        }

        mutating func frame(_ text: String) -> [Action] {
            let decoded = Result { () throws(GenesysWireError) in try GenesysServerFrame(decoding: Array(text.utf8)) }
            return self.run { $0.received(decoded, now: GenesysChatSessionTests.now) }
        }

        /// listen(), the deployment fetched, the link opened, the session configured.
        mutating func listening() throws {
            let listen = self.run { $0.listen(1, timeout: .seconds(30), now: GenesysChatSessionTests.now) }
            #expect(listen.contains { if case .work(.fetchDeployment) = $0 { true } else { false } })
            let config = try GenesysDeploymentConfig(decoding: GenesysChatSessionTests.deployment)
            let fetched = self.run { $0.deploymentFetched(.success(config), now: GenesysChatSessionTests.now) }
            #expect(GenesysChatSessionTests.links(fetched) == ["ws://127.0.0.1:9/v1?deploymentId=deploymentId&application=test"])
            let opened = self.run { $0.linkOpened(now: GenesysChatSessionTests.now) }
            #expect(GenesysChatSessionTests.written(opened).map(\.action.name) == ["configureSession"])
            let answer = self.frame(GenesysChatSessionTests.configured)
            #expect(GenesysChatSessionTests.replies(answer)[1] == .success(.done))
        }
    }

    final class ThreadIDs: Sendable {
        let count = Mutex(0)
        func next() -> String {
            "thread-"
                + String(
                    self.count.withLock { count in
                        count += 1
                        return count
                    }
                )
        }
    }

    static func links(_ actions: [Action]) -> [String] {
        actions.compactMap { if case .openLink(let request) = $0 { request.url } else { nil } }
    }

    static func written(_ actions: [Action]) -> [GenesysRequest] {
        actions.compactMap { if case .writeLink(let bytes) = $0 { try? GenesysRequest(decoding: bytes) } else { nil } }
    }

    static func messages(_ actions: [Action]) -> [ChatMessage] {
        actions.compactMap { if case .emit(.messageReceived(let message)) = $0 { message } else { nil } }
    }

    static func replies(_ actions: [Action]) -> [UInt64: Result<ChannelReply, ChannelError>] {
        var replies: [UInt64: Result<ChannelReply, ChannelError>] = [:]
        for case .replied(let id, let outcome) in actions { replies[id] = outcome }
        return replies
    }

    static func stored(_ actions: [Action]) -> [String: String?] {
        var values: [String: String?] = [:]
        for case .write(let write) in actions where write.place == .store { values[write.key] = write.value }
        return values
    }

    // MARK: Messages

    @Test func anAgentMessageIsShownOnceWithItsSenderAndOurCopyConfirmsTheSend() throws {
        var harness = Harness()
        try harness.listening()
        let first = harness.frame(Self.agentSays("m1", "Hello, how can I help?"))
        let shown = Self.messages(first)
        #expect(shown.count == 1)
        let message = try #require(shown.first)
        #expect(message.text == "Hello, how can I help?" && message.direction == .fromAgent && message.kind == .message)
        #expect(message.sender == Party(displayName: "Sam", address: "agent") && message.threadID == "thread-1")
        #expect(message.sentAt == UnixTime(secondsSince1970: 1_661_196_266.704))
        #expect(first.contains { if case .emit(.incomingContact(let contact)) = $0 { contact.threadID == "thread-1" } else { false } })
        #expect(Self.stored(first)[GenesysChatSession.StoreKey.shown] == "m1")
        // The same message again (a reconnect, a server's second push): not shown twice.
        #expect(Self.messages(harness.frame(Self.agentSays("m1", "Hello, how can I help?"))).isEmpty)

        // Our message: written, and confirmed by the service's copy with the request's tracing id.
        let sending = try harness.session.send(.text("I need help"), 7, now: Self.now)
        let request = try #require(Self.written(sending).first)
        #expect(request.action == .onMessage(.text("I need help")))
        #expect(Self.replies(sending).isEmpty)
        let copy = harness.frame(Self.ours("m2", "I need help", tracingId: try #require(request.tracingId)))
        #expect(Self.replies(copy)[7] == .success(.fields(["delivery": "sent", "message": "m2", "thread": "thread-1"])))
        #expect(Self.messages(copy).map(\.direction) == [.toAgent])

        // The echo's answer (the health check's tracing id) is not a message.
        let echo =
            #"{"type":"response","class":"StructuredMessage","code":200,"tracingId":"SGVhbHRoQ2hlY2tNZXNzYWdlSWQ=","body":{"id":"ping-1","type":"Text","text":"ping","direction":"Inbound","channel":{}}}"#
        #expect(Self.messages(harness.frame(echo)).isEmpty)
    }

    /// A message of the history API, as `entities` carry it.
    static func entity(_ id: String, _ text: String, direction: String = "Outbound") -> String {
        #"{"id":"\#(id)","type":"Text","text":"\#(text)","direction":"\#(direction)","channel":{"time":"2022-08-22T19:24:26.704Z","from":{"nickname":"Sam"}},"originatingEntity":"Human"}"#
    }

    static func page(_ number: Int, of count: Int, _ entities: [String]) throws -> GenesysHistoryPage {
        let text =
            #"{"entities":[\#(entities.joined(separator: ","))],"pageSize":25,"pageNumber":\#(number),"total":\#(count * 25),"pageCount":\#(count)}"#
        return try GenesysHistoryPage(decoding: Array(text.utf8))
    }

    /// A restart: the same session, configured again, asks for a JWT and the history, newest page first,
    /// until a message shown before; what is new is shown once and oldest first, then what the socket
    /// brought meanwhile (held until then), without what the history showed already.
    @Test func aRestartCatchesUpWithTheHistoryAndShowsNoMessageTwice() throws {
        var before = Harness()
        try before.listening()
        _ = before.frame(Self.agentSays("m1", "one"))
        _ = before.frame(Self.agentSays("m2", "two"))
        // What the store holds after the writes, as the channel reads it on the next start.
        var values: [String: String] = [:]
        for case .write(let write) in before.actions where write.place == .store { values[write.key] = write.value }
        var after = Harness(stored: GenesysChatSession.Stored(store: values, token: Self.token))
        let listen = after.run { $0.listen(1, timeout: .seconds(30), now: Self.now) }
        #expect(!listen.isEmpty)
        _ = after.run { $0.deploymentFetched(.success(try! GenesysDeploymentConfig(decoding: Self.deployment)), now: Self.now) }
        _ = after.run { $0.linkOpened(now: Self.now) }
        // The same session, not a new one: the thread goes on, and the history is asked for with a JWT.
        let configured = after.frame(#"{"type":"response","class":"SessionResponse","code":200,"body":{"connected":true,"newSession":false}}"#)
        #expect(after.session.threadID == "thread-1")
        let getJwt = try #require(Self.written(configured).first)
        #expect(getJwt.action == .getJwt)
        // Live messages wait for the history: m2 again, and m5, newer than the history's newest.
        #expect(Self.messages(after.frame(Self.agentSays("m2", "two"))).isEmpty)
        #expect(Self.messages(after.frame(Self.agentSays("m5", "five"))).isEmpty)
        let jwtFrame =
            #"{"type":"response","class":"JwtResponse","code":200,"tracingId":"\#(try #require(getJwt.tracingId))","body":{"jwt":"JWT-SECRET","exp":\#(Int(Self.now.secondsSince1970) + 3600)}}"#
        let firstPage = after.frame(jwtFrame)
        let fetches = firstPage.compactMap { if case .work(.fetchHistory(let request, let page)) = $0 { (request, page) } else { nil } }
        let (request, number) = try #require(fetches.first)
        #expect(number == 1 && request.url == "http://127.0.0.1:9/api/v2/webmessaging/messages?pageNumber=1&pageSize=25")
        #expect(request.headers.contains(NetworkHeader("Authorization", "bearer JWT-SECRET")))
        // Page 1 (newest first) holds no message shown: page 2 is asked for.
        let second = after.run {
            $0.historyFetched(page: 1, .success(try! Self.page(1, of: 3, [Self.entity("m5", "five"), Self.entity("m4", "four")])), now: Self.now)
        }
        #expect(second.contains { if case .work(.fetchHistory(_, page: 2)) = $0 { true } else { false } })
        #expect(Self.messages(second).isEmpty)
        // Page 2 reaches m2, shown before: the catch-up ends there.
        let done = after.run {
            $0.historyFetched(
                page: 2,
                .success(try! Self.page(2, of: 3, [Self.entity("m3", "three"), Self.entity("m2", "two"), Self.entity("m1", "one")])),
                now: Self.now
            )
        }
        #expect(Self.messages(done).map(\.text) == ["three", "four", "five"])
        #expect(!done.contains { if case .work(.fetchHistory) = $0 { true } else { false } })
        #expect(Self.messages(after.frame(Self.agentSays("m6", "six"))).map(\.text) == ["six"])
        // The contact was told of before the restart: not again. The JWT is in no action but the request.
        #expect(!after.actions.contains { if case .emit(.incomingContact) = $0 { true } else { false } })
        for action in after.actions {
            if case .work = action { continue }
            #expect(!"\(action)".contains("JWT-SECRET"), "\(action)")
        }
    }

    /// A history that fails (the JWT refused) ends the catch-up: the socket's messages held are shown.
    @Test func aFailedCatchUpShowsWhatTheSocketBrought() throws {
        var harness = Harness()
        try harness.listening()
        _ = harness.run { $0.linkClosed("reset", now: Self.now) }
        _ = harness.run { $0.timerFired(.machine(.reconnect), now: Self.now) }
        _ = harness.run { $0.linkOpened(now: Self.now) }
        let getJwt = try #require(
            Self.written(harness.frame(#"{"type":"response","class":"SessionResponse","code":200,"body":{"connected":true,"newSession":false}}"#))
                .first
        )
        #expect(getJwt.action == .getJwt)
        #expect(Self.messages(harness.frame(Self.agentSays("m1", "live"))).isEmpty)
        let refused = harness.frame(
            #"{"type":"response","class":"string","code":403,"tracingId":"\#(try #require(getJwt.tracingId))","body":"Forbidden"}"#
        )
        #expect(Self.messages(refused).map(\.text) == ["live"])
    }

    @Test func quickRepliesAndCardButtonsAreChoicesAnsweredWithButtonResponse() throws {
        var harness = Harness()
        try harness.listening()
        let quick =
            #"[{"contentType":"QuickReply","quickReply":{"text":"Yes","payload":"yes","action":"Message"}},{"contentType":"QuickReply","quickReply":{"text":"No","payload":"no","action":"Message"}}]"#
        let offered = try #require(Self.messages(harness.frame(Self.agentSays("q1", "Continue?", content: quick))).first)
        #expect(offered.choices == [ChatChoice(id: "1", label: "Yes"), ChatChoice(id: "2", label: "No")])
        let answer = try #require(Self.written(try harness.session.choose(messageID: "q1", choiceID: "2", 3, now: Self.now)).first)
        // SDK MessageStore.prepareMessageWith: a Text message, empty text, the one ButtonResponse.
        #expect(
            answer.action
                == .onMessage(
                    .text(
                        "",
                        content: [.buttonResponse(GenesysButtonResponse(text: "No", payload: "no", type: "QuickReply", originatingMessageId: "q1"))]
                    )
                )
        )

        let card =
            #"[{"contentType":"Card","card":{"title":"Book","description":"A room","actions":[{"type":"Postback","text":"Book it","payload":"book"},{"type":"Link","text":"Site","url":"https://example.com"}]}}]"#
        let cardMessage = try #require(Self.messages(harness.frame(Self.agentSays("c1", "", content: card))).first)
        #expect(cardMessage.text == "Book\nA room")
        #expect(cardMessage.choices == [ChatChoice(id: "1", label: "Book it"), ChatChoice(id: "2", label: "Site", url: "https://example.com")])
        let postback = try #require(Self.written(try harness.session.choose(messageID: "c1", choiceID: "1", 4, now: Self.now)).first)
        // SDK preparePostbackMessage: a Structured message with the button's text.
        #expect(
            postback.action
                == .onMessage(.cardReply(GenesysButtonResponse(text: "Book it", payload: "book", type: "Button", originatingMessageId: "c1")))
        )
        #expect(throws: ChannelError.self) { try harness.session.choose(messageID: "c1", choiceID: "2", 5, now: Self.now) }
        #expect(throws: ChannelError.self) { try harness.session.choose(messageID: "c1", choiceID: "9", 5, now: Self.now) }
        #expect(throws: ChannelError.self) { try harness.session.choose(messageID: "nope", choiceID: "1", 5, now: Self.now) }
    }

    // MARK: The session's expiry

    /// SDK SessionDurationHandler: 300 s before `expirationDate` the person hears the session is about to
    /// expire (an echo 10 s before, to learn a moved expiry); a message in or out moves the expiry.
    @Test func theExpiryNoticeComes300SecondsBeforeTheExpiryUnlessAMessageMovedIt() throws {
        var harness = Harness()
        try harness.listening()
        let expires = Int(Self.now.secondsSince1970) + 302
        let configured = harness.frame(
            #"{"type":"response","class":"SessionResponse","code":200,"body":{"connected":true,"newSession":false,"durationSeconds":600,"expirationDate":\#(expires)}}"#
        )
        #expect(configured.contains { if case .setTimer(.expiryNotice, let delay) = $0 { delay == .seconds(2) } else { false } })
        #expect(configured.contains { if case .setTimer(.expiryEcho, let delay) = $0 { delay == .zero } else { false } })
        let echo = harness.run { $0.timerFired(.expiryEcho, now: Self.now) }
        #expect(Self.written(echo).map(\.action) == [.echo])
        let later = UnixTime(secondsSince1970: Self.now.secondsSince1970 + 2)
        let notice = try #require(Self.messages(harness.run { $0.timerFired(.expiryNotice, now: later) }).first)
        #expect(notice.kind == .idleAlert && notice.direction == .notice && notice.text.contains("expires in 5 minutes"), "\(notice)")
        // Once per expiry.
        #expect(Self.messages(harness.run { $0.timerFired(.expiryNotice, now: later) }).isEmpty)

        // An agent's message moves the expiry to now + 600 s: no notice at the old time.
        var active = Harness()
        try active.listening()
        _ = active.frame(
            #"{"type":"response","class":"SessionResponse","code":200,"body":{"connected":true,"newSession":false,"durationSeconds":600,"expirationDate":\#(expires)}}"#
        )
        let moved = active.frame(Self.agentSays("m1", "Still there?"))
        #expect(moved.contains { if case .setTimer(.expiryNotice, let delay) = $0 { delay == .seconds(300) } else { false } })
        #expect(Self.messages(active.run { $0.timerFired(.expiryNotice, now: later) }).isEmpty)
    }

    // MARK: Read-only and a new chat

    @Test func aDisconnectMakesTheConversationReadOnlyUntilANewChat() throws {
        var harness = Harness()
        try harness.listening()
        _ = harness.frame(Self.agentSays("m1", "Bye"))
        let disconnected = harness.frame(Self.disconnect)
        #expect(Self.messages(disconnected).map(\.kind) == [.left])
        #expect(
            disconnected.contains {
                if case .emit(.threadUpdated(let thread)) = $0 { thread.id == "thread-1" && thread.state == .closed } else { false }
            }
        )
        #expect(disconnected.contains { if case .emit(.contactEnded(contactID: "thread-1", outcome: .completed)) = $0 { true } else { false } })
        #expect(disconnected.contains { if case .emit(.chatStateChanged(.closed)) = $0 { true } else { false } })
        #expect(harness.session.isReadOnly)

        // A send is refused, saying why and what to do.
        do {
            _ = try harness.session.send(.text("still there?"), 5, now: Self.now)
            Issue.record("a send in a read-only conversation went out")
        } catch {
            #expect(error.code == .illegalState && error.message.contains("read-only") && error.message.contains("new chat"))
        }
        // A new chat: closeSession, then configureSession with startNew once the service answers.
        let closing = try harness.session.startNewChat(6, now: Self.now)
        #expect(Self.written(closing).map(\.action) == [.closeSession(closeAllConnections: true)])
        let closed = harness.frame(
            #"{"type":"response","class":"SessionResponse","code":200,"body":{"connected":false,"newSession":false,"readOnly":true}}"#
        )
        let configure = try #require(Self.written(closed).first)
        guard case .configureSession(_, let startNew, _) = configure.action else {
            Issue.record("not configureSession: \(configure.action)")
            return
        }
        #expect(startNew)
        let started = harness.frame(Self.configured)
        #expect(Self.replies(started)[6] == .success(.thread(ChatThread(id: "thread-2", name: "Chat with the service", state: .ready))))
        #expect(Self.stored(started)[GenesysChatSession.StoreKey.thread] == "thread-2")
        #expect(!Self.written(try harness.session.send(.text("hello again"), 8, now: Self.now)).isEmpty)
    }

    // MARK: Sleep, the keep-alive and the token

    @Test func sleepClosesTheSocketAndTheForegroundConfiguresTheSameSessionAgain() throws {
        var harness = Harness()
        try harness.listening()
        let sleeping = harness.run { $0.goToBackground(now: Self.now) }
        #expect(sleeping.contains { if case .closeLink = $0 { true } else { false } })
        #expect(harness.run { $0.keepAlive(now: Self.now) ?? [.log(.error, "over")] }.isEmpty)
        let back = harness.run { $0.comeToForeground(now: Self.now) }
        #expect(Self.links(back).count == 1)
        let configure = try #require(Self.written(harness.run { $0.linkOpened(now: Self.now) }).first)
        #expect(configure.token == Self.token)
        guard case .configureSession(_, let startNew, _) = configure.action else {
            Issue.record("not configureSession")
            return
        }
        #expect(!startNew)
    }

    @Test func theKeepAliveEchoesAtMostOncePer30Seconds() throws {
        var harness = Harness()
        try harness.listening()
        let first = harness.session.keepAlive(now: Self.now) ?? []
        #expect(Self.written(first).map(\.action) == [.echo])
        let soon = harness.session.keepAlive(now: UnixTime(secondsSince1970: Self.now.secondsSince1970 + 10)) ?? []
        #expect(Self.written(soon).isEmpty)
        #expect(soon.contains { if case .setTimer(.machine(.echo), let delay) = $0 { delay == .seconds(20) } else { false } })
    }

    @Test func theTokenIsOnlyEverWrittenOnTheSocket() throws {
        var harness = Harness()
        try harness.listening()
        _ = harness.frame(Self.agentSays("m1", "Hello"))
        _ = try harness.session.send(.text("hi"), 2, now: Self.now)
        _ = harness.frame(Self.disconnect)
        _ = harness.frame(#"{"type":"message","class":"string","code":4007,"body":"Session not found"}"#)
        _ = harness.frame("not json")
        for action in harness.actions {
            if case .writeLink = action { continue }
            #expect(!"\(action)".contains(Self.token), "\(action)")
        }
        #expect(!harness.session.status().values.contains { $0.contains(Self.token) })
        // The malformed frame was counted and named, not shown.
        #expect(harness.session.status()["frames-rejected"] == "1")
    }

    @Test func refusalsReachTheSendTheyAnswer() throws {
        var harness = Harness()
        try harness.listening()
        let sending = try harness.session.send(.text(String(repeating: "x", count: 10)), 9, now: Self.now)
        let tracingId = try #require(Self.written(sending).first?.tracingId)
        let refused = harness.frame(
            #"{"type":"response","class":"string","code":4011,"tracingId":"\#(tracingId)","body":"Message exceeds maximum length"}"#
        )
        let outcome = try #require(Self.replies(refused)[9])
        guard case .failure(let error) = outcome else {
            Issue.record("the send was not refused")
            return
        }
        #expect(error.code == .invalidArgument && error.message.contains("4011"))
    }
}
