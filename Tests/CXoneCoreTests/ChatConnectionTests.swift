import AttendantPluginAPI
import CXoneCore
import Testing

/// The "open chat" diagram: availability, WebSocket, OAuth.
@Suite struct ChatConnectionTests {
    @Test(arguments: [false, true])
    func connectIsIllegalInInitialAndPreparing(_ preparing: Bool) throws {
        var driver = ChatDriver()
        if preparing { driver.perform { try $0.prepare(brandID: 1, channelID: "c") } }
        let before = driver.actions.count
        let error = try #require(driver.perform { try $0.connect() })
        #expect(error.code == .illegalChatState)
        #expect(error.message == "cannot connect while the chat is \(preparing ? "preparing" : "initial"): prepare the chat first")
        #expect(driver.actions.count == before)
    }

    @Test func anOfflineLiveChatGoesOffline() {
        var driver = ChatDriver()
        driver.prepare(.init(isLiveChat: true))
        driver.perform { try $0.connect() }
        #expect(driver.actions.last == .fetchAvailability(brandID: ChatDriver.brandID, channelID: ChatDriver.channelID))
        #expect(driver.state == .prepared)
        driver.handle(.availabilityFetched(online: false))
        #expect(driver.state == .offline)
        #expect(driver.socketOpens == 0)
        // Connecting again asks again; now the agents are online.
        driver.perform { try $0.connect() }
        driver.handle(.availabilityFetched(online: true))
        #expect(driver.state == .connecting)
        #expect(driver.socketOpens == 1)
    }

    @Test func anAvailabilityErrorIsReportedAndLeavesThePreparedChat() {
        var driver = ChatDriver()
        driver.prepare(.init(isLiveChat: true))
        driver.perform { try $0.connect() }
        driver.handle(.availabilityFailed(ChatError(.server, "availability: 503")))
        #expect(driver.state == .prepared)
        #expect(driver.errors.map(\.code) == [.server])
    }

    @Test func withoutATokenTheCustomerIsAuthorizedAndTheTokenAndIdentityAreStored() throws {
        var driver = ChatDriver {
            $0.authorizationCode = "code-1"
            $0.codeVerifier = "verifier-1"
        }
        driver.prepare(.init(isAuthorizationEnabled: true))
        driver.perform { try $0.connect() }
        #expect(driver.state == .connecting)
        let visitorID = try #require(driver.stored.visitorID)
        #expect(driver.actions.last == .openSocket(brandID: ChatDriver.brandID, channelID: ChatDriver.channelID, visitorID: visitorID))
        driver.handle(.socketOpened)
        #expect(driver.lastCommand == .authorizeCustomer(code: "code-1", verifier: "verifier-1"))
        #expect(driver.state == .connecting)
        let token = ChannelToken(value: "access-1", expiresAt: UnixTime(secondsSince1970: 1_900_000_000))
        driver.handle(.authorized(.init(id: "server-identity", firstName: "Ada"), accessToken: token))
        #expect(driver.stored.customerID == "server-identity")
        #expect(driver.stored.accessToken == token)
        #expect(driver.states == [.preparing, .prepared, .connecting, .connected])
        #expect(driver.lastCommand == .recoverThread(threadID: nil), "single-thread: recover with no id")
    }

    @Test func withAStoredTokenTheCustomerIsReconnected() {
        var driver = ChatDriver(stored: .init(visitorID: "v", customerID: "c", accessToken: ChannelToken(value: "stored-token")))
        driver.prepare(.init(isAuthorizationEnabled: true))
        driver.perform { try $0.connect() }
        driver.handle(.socketOpened)
        #expect(driver.lastCommand == .reconnectCustomer(token: "stored-token"))
        driver.handle(.reconnected)
        #expect(driver.state == .connected)
    }

    @Test func aRefusedTokenIsForgottenAndTheCustomerAuthorizedAgain() {
        var driver = ChatDriver(stored: .init(visitorID: "v", customerID: "c", accessToken: ChannelToken(value: "old")))
        driver.prepare()
        driver.perform { try $0.connect() }
        driver.handle(.socketOpened)
        driver.handle(.operationError(code: "CustomerReconnectFailed", message: "token expired"))
        #expect(driver.stored.accessToken == nil)
        #expect(driver.lastCommand == .authorizeCustomer(code: nil, verifier: nil))
        #expect(driver.errors.isEmpty)
        driver.handle(.authorized(.init(id: "c"), accessToken: ChannelToken(value: "new")))
        #expect(driver.state == .connected)
        #expect(driver.stored.accessToken?.value == "new")
    }

    @Test func aRefusedAuthorizationIsATypedErrorAndTheChatStaysPrepared() throws {
        var driver = ChatDriver()
        driver.prepare()
        driver.perform { try $0.connect() }
        driver.handle(.socketOpened)
        driver.handle(.operationError(code: "ConsumerAuthorizationFailed", message: "bad code"))
        #expect(driver.state == .prepared)
        let error = try #require(driver.errors.last)
        #expect(error.code == .operation)
        #expect(error.serverCode == "ConsumerAuthorizationFailed")
        #expect(driver.actions.contains(.closeSocket))
        #expect(driver.timers.isEmpty)
    }

    @Test func aGatewayThatCannotBeReachedIsAnErrorNotAReconnectLoop() {
        var driver = ChatDriver()
        driver.prepare()
        driver.perform { try $0.connect() }
        driver.handle(.socketClosed(reason: "connection refused"))
        #expect(driver.state == .prepared)
        #expect(driver.errors.map(\.code) == [.connection])
        #expect(driver.timers.isEmpty)
    }

    @Test func connectWhileConnectingOrReadyIsIgnored() {
        var driver = ChatDriver()
        driver.prepare()
        driver.perform { try $0.connect() }
        #expect(driver.perform { try $0.connect() } == nil)
        #expect(driver.socketOpens == 1)
        driver.handle(.socketOpened)
        driver.answerAuthorization()
        driver.handle(.threadRecoveryFailed(threadID: nil))
        #expect(driver.perform { try $0.connect() } == nil)
        #expect(driver.socketOpens == 1)
    }

    @Test func anUnansweredAuthorizationIsRetriedOnANewSocket() {
        var driver = ChatDriver()
        driver.prepare()
        driver.perform { try $0.connect() }
        driver.handle(.socketOpened)
        driver.advance(by: .seconds(10))
        #expect(driver.actions.contains(.closeSocket))
        #expect(driver.state == .connecting)
        #expect(driver.timerKinds == [.reconnect])
    }

    /// The host asks to connect while the machine waits out its backoff after a lost socket (the
    /// keep-alive after a network change or a resume, `listen()` after the host's own wait): the socket
    /// opens again at once, as the same recovery (the thread is recovered, the customer reconnected).
    @Test func connectWhileWaitingToReconnectOpensTheSocketAtOnce() {
        var driver = ChatDriver()
        driver.readySingleThread(thread: ChatThread(id: "thread-1", state: .ready))
        driver.handle(.socketClosed(reason: "the gateway closed the connection"))
        #expect(driver.state == .connecting)
        #expect(driver.machine.isArmed(.reconnect), "waiting out the backoff")
        let before = driver.now

        #expect(driver.perform { try $0.connect() } == nil)
        #expect(driver.socketOpens == 2, "opened at once, not at the end of the backoff")
        #expect(driver.now == before)
        #expect(!driver.machine.isArmed(.reconnect), "the backoff's timer is cancelled")
        #expect(driver.machine.reconnectAttempt == 1)
        driver.handle(.socketOpened)
        driver.answerAuthorization()
        #expect(driver.lastCommand == .recoverThread(threadID: "thread-1"))
        driver.handle(.threadRecovered(ChatThread(id: "thread-1", state: .ready), caseID: "case-1", agent: nil))
        #expect(driver.state == .ready)
        #expect(driver.machine.reconnectAttempt == 0)
    }

    /// The keep-alive's check of a ready chat: the heartbeat goes out now, not at its time, with the
    /// pong timeout armed; its pong ends the check, and the heartbeats go on every 10 s from there.
    @Test func aConnectionCheckSendsTheHeartbeatNow() {
        var driver = ChatDriver()
        driver.readySingleThread(thread: ChatThread(id: "thread-1", state: .ready))
        driver.advance(by: .seconds(3))
        #expect(!driver.machine.awaitsPong)

        driver.perform { $0.checkConnection() }
        #expect(driver.lastCommand == .heartbeat)
        #expect(driver.sent.last?.at == .seconds(3))
        #expect(driver.machine.awaitsPong)
        #expect(driver.machine.isArmed(.pongTimeout) && !driver.machine.isArmed(.heartbeat))
        #expect(driver.perform { $0.checkConnection() } == nil)
        #expect(driver.commands.filter { $0 == .heartbeat }.count == 1, "a check while a heartbeat is out waits for its pong")

        driver.handle(.pong)
        #expect(!driver.machine.awaitsPong)
        #expect(driver.deadline(.heartbeat) == driver.now + .seconds(10))
    }

    /// A check whose pong does not come: the machine closes the socket after the pong timeout and waits
    /// to reconnect, where the keep-alive's connect() takes over at once.
    @Test func aConnectionCheckWithoutAPongLosesTheSocket() {
        var driver = ChatDriver()
        driver.readySingleThread(thread: ChatThread(id: "thread-1", state: .ready))
        driver.perform { $0.checkConnection() }
        driver.advance(by: .seconds(5))
        #expect(driver.actions.contains(.closeSocket))
        #expect(driver.state == .connecting)
        #expect(driver.perform { try $0.connect() } == nil)
        #expect(driver.socketOpens == 2)
    }

    /// Without an open socket there is nothing to check.
    @Test func aConnectionCheckWithoutASocketSendsNothing() {
        var driver = ChatDriver()
        driver.prepare()
        driver.perform { $0.checkConnection() }
        #expect(driver.sent.isEmpty)
        #expect(driver.timers.isEmpty)
    }

    /// While a pong is awaited, every frame that arrives is a sign of life and starts the pong timeout
    /// again (the pong is queued behind them); a socket silent for a whole timeout is lost.
    @Test func framesArrivingWhileAPongIsAwaitedKeepTheSocket() {
        var driver = ChatDriver()
        driver.readySingleThread(thread: ChatThread(id: "thread-1", state: .ready))
        driver.perform { $0.checkConnection() }
        for _ in 1...4 {
            driver.advance(by: .seconds(4))
            driver.perform { $0.frameArrived() }
        }
        #expect(driver.state == .ready, "16 s of frames without the pong")
        #expect(!driver.actions.contains(.closeSocket))
        #expect(driver.deadline(.pongTimeout) == driver.now + .seconds(5))
        driver.handle(.pong)
        #expect(!driver.machine.awaitsPong)

        driver.perform { $0.checkConnection() }
        driver.advance(by: .seconds(5))
        #expect(driver.actions.contains(.closeSocket), "5 s with nothing at all")
        #expect(driver.state == .connecting)
    }

    /// No pong awaited: a frame changes no timer.
    @Test func aFrameWithoutAPongAwaitedChangesNothing() {
        var driver = ChatDriver()
        driver.readySingleThread(thread: ChatThread(id: "thread-1", state: .ready))
        let before = driver.actions.count
        driver.perform { $0.frameArrived() }
        #expect(driver.actions.count == before)
    }
}
