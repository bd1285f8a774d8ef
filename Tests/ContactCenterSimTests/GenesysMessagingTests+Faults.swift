import ContactCenterSim
import Foundation
import NIOHTTP1
import Testing

extension GenesysMessagingTests {
    // MARK: Authenticated sessions

    @Test func authenticatedSessionsExchangeACodeForAJWT() async throws {
        let simulator = try await Self.start(GenesysMessagingSettings(authEnabled: true))
        defer { Task { await simulator.stop() } }
        let api = simulator.genesysEndpoints.api + "/api/v2/webdeployments/token"
        let deployment = simulator.genesysEndpoints.deploymentId
        let code = try #require(try await Self.control(simulator, "oauth-code?subject=grace")["code"] as? String)
        // AuthJwtRequest.kt: {deploymentId, oauth: {code, redirectUri, codeVerifier}}.
        let request = Array(
            #"{"deploymentId":"\#(deployment)","oauth":{"code":"\#(code)","redirectUri":"https://example.org/cb","codeVerifier":"v"}}"#.utf8
        )
        let exchanged = try await Self.http(.POST, "\(api)/oauthcodegrantjwtexchange", headers: [("content-type", "application/json")], body: request)
        #expect(exchanged.status == 200)
        let auth = try Self.object(exchanged.body)
        let jwt = try #require(auth["jwt"] as? String)
        let refreshToken = try #require(auth["refreshToken"] as? String)
        // A code is good once.
        #expect(try await Self.http(.POST, "\(api)/oauthcodegrantjwtexchange", body: request).status == 400)

        let client = try await GenesysTestClient.connect(simulator)
        client.send(
            #"{"token":"\#(client.token)","deploymentId":"\#(deployment)","startNew":false,"data":{"code":"not-a-jwt"},"action":"configureAuthenticatedSession"}"#
        )
        #expect(try await client.frame()["code"] as? Int == 401)
        client.send(
            #"{"token":"\#(client.token)","deploymentId":"\#(deployment)","startNew":false,"data":{"code":"\#(jwt)"},"action":"configureAuthenticatedSession"}"#
        )
        let session = try #require(try await client.frame()["body"] as? [String: Any])
        #expect(session["connected"] as? Bool == true)
        #expect(simulator.genesys.sessions.first?.subject == "grace")
        // An authenticated session cannot go back to a guest one (4017 CannotDowngradeToUnauthenticated).
        client.send(#"{"token":"\#(client.token)","deploymentId":"\#(deployment)","startNew":false,"action":"configureSession"}"#)
        #expect(try await client.frame()["code"] as? Int == 4017)

        _ = try await client.say("signed in")
        let history = try await Self.http(
            .GET,
            "\(simulator.genesysEndpoints.api)/api/v2/webmessaging/messages",
            headers: [("Authorization", "bearer \(jwt)")]
        )
        #expect(try Self.object(history.body)["total"] as? Int == 1)

        // RefreshToken.kt: {refreshToken} → {jwt}.
        let refreshed = try await Self.http(.POST, "\(api)/refresh", body: Array(#"{"refreshToken":"\#(refreshToken)"}"#.utf8))
        #expect(refreshed.status == 200)
        let newJWT = try #require(try Self.object(refreshed.body)["jwt"] as? String)
        #expect(newJWT != jwt)

        // Revoke: DELETE with the bearer JWT; the user's sockets get LogoutEvent.
        #expect(try await Self.http(.DELETE, "\(api)/revoke", headers: [("Authorization", "bearer \(newJWT)")]).status == 200)
        #expect(try await client.frame()["class"] as? String == "LogoutEvent")
        #expect(try await Self.http(.POST, "\(api)/refresh", body: Array(#"{"refreshToken":"\#(refreshToken)"}"#.utf8)).status == 400)
        client.send(
            #"{"token":"\#(client.token)","deploymentId":"\#(deployment)","startNew":false,"data":{"code":"\#(jwt)"},"action":"configureAuthenticatedSession"}"#
        )
        #expect(try await client.frame()["code"] as? Int == 401)
    }

    // MARK: Expiry

    @Test func sessionsExpireByTheConfigurationsClock() async throws {
        let clock = ManualWallClock()
        let simulator = try await Self.start(clock: clock)
        defer { Task { await simulator.stop() } }
        let client = try await GenesysTestClient.connect(simulator)
        let session = try await client.configure()
        #expect(session["durationSeconds"] as? Int == 2_592_000)
        #expect(session["expirationDate"] as? Int == Int(clock.now) + 2_592_000)

        // The expiration moves near: echo answers carry it, from which the SDK raises SessionExpirationNotice.
        _ = try await Self.control(simulator, "expiry?in=120")
        client.send(#"{"token":"\#(client.token)","tracingId":"\#(Self.healthCheckID)","action":"echo","message":{"text":"ping","type":"Text"}}"#)
        let metadata = (try await client.frame()["body"] as? [String: Any])?["metadata"] as? [String: Any]
        #expect(metadata?["expirationDate"] as? String == String(Int(clock.now) + 120))

        clock.advance(by: 121)
        client.send(#"{"token":"\#(client.token)","action":"onMessage","message":{"text":"still there?","type":"Text"}}"#)
        let expired = try await client.frame()
        #expect(expired["class"] as? String == "string")
        #expect(expired["code"] as? Int == 4006)
        // Configuring the token again starts a new session.
        #expect(try await client.configure()["newSession"] as? Bool == true)

        _ = try await Self.control(simulator, "expire")
        let event = try await client.frame()
        #expect(event["class"] as? String == "SessionExpiredEvent")
        #expect(event["type"] as? String == "response")
    }

    // MARK: Faults

    @Test func faultsRateLimitRefusalsMalformedFramesDropAndDown() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let client = try await GenesysTestClient.connect(simulator)

        _ = try await Self.control(simulator, "fault?kind=refuse-configure")
        client.send(#"{"token":"\#(client.token)","deploymentId":"\#(client.deploymentId)","startNew":false,"action":"configureSession"}"#)
        let refused = try await client.frame()
        #expect(refused["class"] as? String == "string")
        #expect(refused["code"] as? Int == 5000)
        _ = try await client.configure()

        _ = try await Self.control(simulator, "fault?kind=rate-limit&retry-after=7")
        client.send(#"{"token":"\#(client.token)","tracingId":"r1","action":"onMessage","message":{"text":"fast","type":"Text"}}"#)
        let limited = try await client.frame()
        #expect(limited["class"] as? String == "TooManyRequestsErrorMessage")
        #expect(limited["code"] as? Int == 429)
        let limitBody = try #require(limited["body"] as? [String: Any])
        #expect(limitBody["retryAfter"] as? Int == 7)
        #expect(limitBody["errorCode"] as? Int == 4029)
        #expect(try await client.say("slower")["text"] as? String == "slower")

        _ = try await Self.control(simulator, "fault?kind=malformed")
        let malformed = try await client.socket.next()
        #expect((try? JSONSerialization.jsonObject(with: Data(malformed))) == nil)

        #expect(try await Self.control(simulator, "drop")["dropped"] as? Int == 1)
        try await client.socket.waitForClose()

        let second = try await GenesysTestClient.connect(simulator, token: client.token)
        _ = try await Self.control(simulator, "fault?kind=down")
        try await second.socket.waitForClose()
        await #expect(throws: TestWebSocket.Refused.self) {
            _ = try await GenesysTestClient.connect(simulator)
        }
        #expect(try await Self.http(.GET, simulator.genesysEndpoints.deploymentConfig).status == 503)

        _ = try await Self.control(simulator, "clear-faults")
        let back = try await GenesysTestClient.connect(simulator, token: client.token)
        #expect(try await back.configure()["newSession"] as? Bool == false)
        let status = try Self.object(try await Self.http(.GET, "http://127.0.0.1:\(simulator.httpPort)/control/genesys/status").body)
        #expect(status["messages_received"] as? Int == 1)
        #expect((status["sessions"] as? [[String: Any]])?.count == 1)
    }
}
