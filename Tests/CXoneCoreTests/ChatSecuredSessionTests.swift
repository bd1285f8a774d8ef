import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import CXoneCore
import Foundation
import Testing

/// Secured sessions as the CXone mobile SDK 3.2.0 connects (`ConnectionService.connectToSocket`,
/// `getAndStoreTransactionTokenIfNeeded`, `checkForAuthorization`; `TransactionTokenService`): the feature
/// `securedSessions` (on when not listed), a transaction token from the token server before the socket, in
/// its URL, no AuthorizeCustomer, and the token kept until 30 s before it expires.
@Suite struct ChatSecuredSessionTests {
    static func secured() -> ChatDriver {
        var configuration = ChatStateMachine.ChannelConfiguration()
        configuration.securedSessions = true
        var driver = ChatDriver()
        driver.prepare(configuration)
        return driver
    }

    static func tokenRequests(_ driver: ChatDriver) -> [ChatStateMachine.TransactionTokenRequest] {
        driver.actions.compactMap { if case .fetchTransactionToken(let request) = $0 { request } else { nil } }
    }

    static func socketTokens(_ driver: ChatDriver) -> [String?] {
        driver.actions.compactMap { if case .openSocket(_, _, _, let token) = $0 { .some(token) } else { nil } }
    }

    @Test func theFeatureIsOnUnlessTheConfigurationSaysOff() throws {
        func secured(_ features: String) throws -> Bool {
            let body =
                #"{"isLiveChat":false,"isAuthorizationEnabled":false,"settings":{"hasMultipleThreadsPerEndUser":false,"features":\#(features)}}"#
            return try CXoneChannelConfiguration.decode(Array(body.utf8)).hasSecuredSessions
        }
        #expect(try secured(#"{}"#), "an absent toggle is on (ChannelSettingsDTO.isEnabled(feature:))")
        #expect(try secured(#"{"securedSessions":true}"#))
        #expect(try !secured(#"{"securedSessions":false,"other":true}"#))
    }

    @Test func theTokenComesBeforeTheSocketWhichCarriesItAndNeedsNoAuthorization() throws {
        var driver = Self.secured()
        #expect(driver.perform { try $0.connect() } == nil)
        #expect(driver.state == .connecting)
        let request = try #require(Self.tokenRequests(driver).first)
        #expect(request.brandID == ChatDriver.brandID && request.channelID == ChatDriver.channelID)
        #expect(request.visitorID == driver.stored.visitorID)
        #expect(request.grant == .anonymous(customerID: driver.stored.customerID))
        #expect(driver.socketOpens == 0, "no socket before the token")

        driver.handle(.transactionTokenFetched(.init(value: "tt-1", lifetime: .seconds(600), customerID: driver.stored.customerID)))
        #expect(Self.socketTokens(driver) == ["tt-1"])
        driver.handle(.socketOpened)
        #expect(!driver.commands.contains { if case .authorizeCustomer = $0 { true } else if case .reconnectCustomer = $0 { true } else { false } })
        #expect(driver.lastCommand == .recoverThread(threadID: nil), "straight to the threads: \(driver.commands)")
        driver.handle(.threadRecoveryFailed(threadID: nil))
        #expect(driver.state == .ready)

        // A lost socket opens again with the same token while it lasts: no second request.
        driver.handle(.socketClosed(reason: "dropped"))
        driver.advance(by: .seconds(40))
        #expect(Self.tokenRequests(driver).count == 1)
        #expect(Self.socketTokens(driver) == ["tt-1", "tt-1"])
        driver.handle(.socketOpened)
        driver.handle(.threadRecoveryFailed(threadID: nil))

        // 30 s before it expires it is dropped: the next socket asks for a new one.
        let expiry = try #require(driver.timers.first { $0.key.kind == .transactionTokenExpiry })
        #expect(expiry.value == .seconds(570))
        driver.apply(driver.machine.timerFired(expiry.key))
        #expect(driver.machine.transactionToken == nil)
        driver.handle(.socketClosed(reason: "dropped"))
        driver.advance(by: .seconds(40))
        #expect(Self.tokenRequests(driver).count == 2)
        #expect(Self.socketTokens(driver).count == 2)
        driver.handle(.transactionTokenFetched(.init(value: "tt-2", lifetime: .seconds(600))))
        #expect(Self.socketTokens(driver).last == "tt-2")
    }

    @Test func aRefusedTokenFailsTheFirstConnectAndIsAskedAgainOnAReconnect() throws {
        var driver = Self.secured()
        _ = driver.perform { try $0.connect() }
        driver.handle(.transactionTokenFailed(ChatError(.server, "could not send a transaction token: POST … answered 401 Unauthorized")))
        #expect(driver.state == .prepared)
        #expect(driver.errors.last?.message.contains("401 Unauthorized") == true, "\(driver.errors)")
        #expect(driver.socketOpens == 0)

        // Connected with a token that has since been dropped, a refusal while reconnecting is retried.
        _ = driver.perform { try $0.connect() }
        driver.handle(.transactionTokenFetched(.init(value: "tt-1", lifetime: .seconds(40))))
        driver.handle(.socketOpened)
        driver.handle(.threadRecoveryFailed(threadID: nil))
        driver.advance(by: .seconds(20))
        driver.handle(.socketClosed(reason: "dropped"))
        driver.advance(by: .seconds(40))
        #expect(Self.tokenRequests(driver).count == 3)
        driver.handle(.transactionTokenFailed(ChatError(.server, "could not send a transaction token: the network is down")))
        #expect(driver.state == .connecting, "retried with backoff")
        driver.advance(by: .seconds(40))
        #expect(Self.tokenRequests(driver).count == 4)
    }

    @Test func anOAuthChannelAsksWithItsCodeAndMessagesCarryTheThirdPartyToken() throws {
        var configuration = ChatStateMachine.ChannelConfiguration(isAuthorizationEnabled: true)
        configuration.securedSessions = true
        var driver = ChatDriver()
        driver.machine.setAuthorization(code: "code-1", verifier: "verifier-1")
        driver.prepare(configuration)
        _ = driver.perform { try $0.connect() }
        #expect(Self.tokenRequests(driver).first?.grant == .authorizationCode(code: "code-1", verifier: "verifier-1"))
        driver.handle(.transactionTokenFetched(.init(value: "tt-1", lifetime: .seconds(600), customerID: "oauth-7", accessToken: "at-9")))
        #expect(driver.stored.customerID == "oauth-7", "the token's customer is the one frames name")
        #expect(driver.machine.messageToken == "at-9")

        var cookie = ChatStateMachine.ChannelConfiguration()
        cookie.securedSessions = true
        cookie.isSecuredCookieEnabled = true
        var other = ChatDriver()
        other.prepare(cookie)
        _ = other.perform { try $0.connect() }
        #expect(Self.tokenRequests(other).first?.grant == .securedCookie)
    }

    @Test func theRequestAndTheSocketAreTheSDKs() throws {
        let endpoints = CXoneEndpoints.region("eu1")
        #expect(endpoints.token == "https://digital-oauth-de-eu1.niceincontact.com")
        #expect(
            endpoints.transactionToken(brandId: 1386, channelId: "chat_1", visitorId: "v-1")
                == "https://digital-oauth-de-eu1.niceincontact.com/oauth/token?channelId=chat_1&brandId=1386&visitorId=v-1"
        )
        #expect(
            CXoneEndpoints(socket: "wss://gw", chat: "https://channels-eu1-qa.brandembassy.com/chat").token
                == "https://digital-oauth-eu1-qa.brandembassy.com"
        )
        let socket = endpoints.webSocket(brandId: 1386, channelId: "chat_1", visitorId: "v-1", sdkVersion: "3.2.0", transactionToken: "tt+1")
        #expect(socket.hasSuffix("&sdkVersion=3.2.0&transactionToken=tt%2B1"), "\(socket)")
        #expect(!CXoneEndpoints.redacted(socket).contains("tt"), "the token is never logged")

        func body(_ request: CXoneTransactionTokenRequest) throws -> String { String(decoding: try request.encoded(), as: UTF8.self) }
        #expect(try body(.anonymous(customerID: "c-1")) == #"{"customerIdentity":{"idOnExternalPlatform":"c-1"},"type":"anonymous"}"#)
        #expect(try body(.securedCookie) == "{}")
        #expect(
            try body(.authorizationCode(CXoneSecret("code"), verifier: CXoneSecret("ver")))
                == #"{"thirdParty":{"authorization_code":"code","code_verifier":"ver","grant_type":"authorization_code"}}"#
        )

        // The call and its answer (TransactionTokenDTO).
        var driver = Self.secured()
        _ = driver.perform { try $0.connect() }
        let action = try #require(driver.actions.first { if case .fetchTransactionToken = $0 { true } else { false } })
        let call = try #require(ChatCall.making(action, settings: ChatSessionStepTests.settings)).get()
        #expect(call.request.method == "POST")
        #expect(call.request.url.hasPrefix("https://chat.example.com/oauth/token?channelId="), "\(call.request.url)")
        let answer =
            #"{"accessToken":"tt-5","expiresIn":600,"customerIdentity":{"idOnExternalPlatform":"Cust-1"},"createdDate":"2026-11-24T22:00:00Z"}"#
        var session = ChatSessionStepTests.session(driver.machine)
        let actions = call.step(.success(NetworkResponse(status: 200, body: Array(answer.utf8))), now: UnixTime(secondsSince1970: 0))(&session)
        let opened = actions.compactMap { if case .openLink(let request) = $0 { request.url } else { nil } }
        #expect(opened.count == 1 && opened.first?.hasSuffix("&transactionToken=tt-5") == true, "\(opened)")
        #expect(session.machine.transactionToken?.customerID == "cust-1")
        let refused = call.step(.success(NetworkResponse(status: 401, reason: "Unauthorized", body: [])), now: UnixTime(secondsSince1970: 0))
        var other = ChatSessionStepTests.session(Self.connecting().machine)
        _ = refused(&other)
        #expect(other.machine.state == .prepared)
        #expect(other.presence.lastError?.message.contains("401 Unauthorized") == true, "\(String(describing: other.presence.lastError))")
    }

    static func connecting() -> ChatDriver {
        var driver = Self.secured()
        _ = driver.perform { try $0.connect() }
        return driver
    }
}
