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
}
