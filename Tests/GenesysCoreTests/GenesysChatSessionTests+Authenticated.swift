import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import GenesysCore
import Synchronization
import Testing

/// Authenticated sessions: the code exchange, JWT refreshes, a refused downgrade and a logout.
extension GenesysChatSessionTests {
    /// A JWT whose `exp` is `exp`, as the token API issues them (the signature is not read).
    static func jwt(exp: Int) -> String {
        func part(_ text: String) -> String {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            var out = ""
            var bits = 0
            var count = 0
            for byte in text.utf8 {
                bits = bits << 8 | Int(byte)
                count += 8
                while count >= 6 {
                    count -= 6
                    out.append(alphabet[(bits >> count) & 63])
                }
            }
            if count > 0 { out.append(alphabet[(bits << (6 - count)) & 63]) }
            return out
        }
        return part(#"{"alg":"HS256"}"#) + "." + part(#"{"sub":"grace","exp":\#(exp)}"#) + ".c2ln"
    }

    /// The code is exchanged before the socket opens; the JWT configures it (configureAuthenticatedSession);
    /// a configuration refused with 401 refreshes the JWT and tries again, at most 3 times in a row; a
    /// refused refresh falls back on a new code; the refresh token goes to the secrets.
    @Test func anAuthenticatedSessionExchangesTheCodeAndRefreshesARefusedJWT() throws {
        var harness = Harness(authenticated: true)
        _ = harness.run { $0.listen(1, timeout: .seconds(30), now: Self.now) }
        let fetched = harness.run { $0.deploymentFetched(.success(try! GenesysDeploymentConfig(decoding: Self.deployment)), now: Self.now) }
        #expect(fetched.contains { if case .work(.exchangeCode) = $0 { true } else { false } } && Self.links(fetched).isEmpty)
        let jwt = Self.jwt(exp: Int(Self.now.secondsSince1970) + 3600)
        let exchanged = harness.run { $0.authAnswered(.success(.init(jwt: jwt, refreshToken: "REFRESH-1")), refreshed: false, now: Self.now) }
        #expect(exchanged.contains { if case .write(let write) = $0 { write.place == .secrets && write.value == "REFRESH-1" } else { false } })
        #expect(Self.links(exchanged).count == 1)
        let configure = try #require(Self.written(harness.run { $0.linkOpened(now: Self.now) }).first)
        guard case .configureAuthenticatedSession(_, _, _, let sent) = configure.action else {
            Issue.record("not configureAuthenticatedSession: \(configure.action)")
            return
        }
        #expect(sent == jwt)
        // 401 while configuring: refresh with the refresh token, then configure again.
        let refused = harness.frame(
            #"{"type":"response","class":"string","code":401,"tracingId":"\#(configure.tracingId ?? "")","body":"User is unauthorized"}"#
        )
        #expect(refused.contains { if case .work(.refreshJWT("REFRESH-1")) = $0 { true } else { false } })
        #expect(!refused.contains { if case .emit(.stoppedListening) = $0 { true } else { false } })
        let fresh = Self.jwt(exp: Int(Self.now.secondsSince1970) + 7200)
        #expect(Self.links(harness.run { $0.authAnswered(.success(.init(jwt: fresh)), refreshed: true, now: Self.now) }).count == 1)
        let again = try #require(Self.written(harness.run { $0.linkOpened(now: Self.now) }).first)
        guard case .configureAuthenticatedSession(_, _, _, let second) = again.action else {
            Issue.record("not configureAuthenticatedSession")
            return
        }
        #expect(second == fresh)
        // A refused refresh: the refresh token is forgotten, and the code exchanged again.
        let failed = harness.run { $0.authAnswered(.failure(ChannelError(.authentication, "refused")), refreshed: true, now: Self.now) }
        #expect(
            failed.contains {
                if case .write(let write) = $0 { write.key == GenesysChatSession.refreshTokenSecret && write.value == nil } else { false }
            }
        )
        // The JWT is only ever written on the socket.
        for action in harness.actions {
            if case .writeLink = action { continue }
            #expect(!"\(action)".contains(jwt) && !"\(action)".contains(fresh), "\(action)")
        }

        // Three refusals in a row end it.
        var stubborn = Harness(authenticated: true)
        _ = stubborn.run { $0.listen(1, timeout: .seconds(30), now: Self.now) }
        _ = stubborn.run { $0.deploymentFetched(.success(try! GenesysDeploymentConfig(decoding: Self.deployment)), now: Self.now) }
        var outcome: Result<ChannelReply, ChannelError>?
        for attempt in 0...3 {
            _ = stubborn.run { $0.authAnswered(.success(.init(jwt: jwt, refreshToken: "REFRESH")), refreshed: attempt > 0, now: Self.now) }
            let configure = try #require(Self.written(stubborn.run { $0.linkOpened(now: Self.now) }).first)
            let answer = stubborn.frame(#"{"type":"response","class":"string","code":401,"tracingId":"\#(configure.tracingId ?? "")","body":"no"}"#)
            outcome = Self.replies(answer)[1]
            if outcome != nil { break }
        }
        guard case .failure(let error)? = outcome else {
            Issue.record("four refusals did not end the session")
            return
        }
        #expect(error.message.contains("401"), "\(error)")
    }

    static func secrets(_ actions: [Action]) -> [String: String?] {
        var values: [String: String?] = [:]
        for case .write(let write) in actions where write.place == .secrets { values[write.key] = write.value }
        return values
    }

    static func notices(_ actions: [Action]) -> [ChatMessage] {
        Self.messages(actions).filter { $0.direction == .notice }
    }

    /// 4017 CannotDowngradeToUnauthenticated (a guest configureSession on a signed-in user's session): as
    /// the SDK's `MessagingClientImpl.handleError`, the session token is dropped (`invalidateSessionToken`:
    /// a new one is kept in the secrets) and the session goes to its error state; the person hears why, and
    /// the next start configures a new guest session with the new token.
    @Test func cannotDowngradeDropsTheSessionTokenAndTheNextStartIsANewGuestSession() throws {
        var harness = Harness()
        _ = harness.run { $0.listen(1, timeout: .seconds(30), now: Self.now) }
        _ = harness.run { $0.deploymentFetched(.success(try! GenesysDeploymentConfig(decoding: Self.deployment)), now: Self.now) }
        let configure = try #require(Self.written(harness.run { $0.linkOpened(now: Self.now) }).first)
        #expect(configure.token == Self.token)
        let refused = harness.frame(
            #"{"type":"response","class":"string","code":4017,"tracingId":"\#(configure.tracingId ?? "")","body":"Cannot downgrade"}"#
        )
        let failure = try #require(Self.replies(refused)[1])
        guard case .failure(let error) = failure else {
            Issue.record("listen succeeded")
            return
        }
        #expect(error.message.contains("4017 CannotDowngradeToUnauthenticated"), "\(error)")
        #expect(refused.contains { if case .closeLink = $0 { true } else { false } })
        let kept = try #require(Self.secrets(refused)[GenesysChatSession.tokenSecret] ?? nil)
        #expect(kept != Self.token && kept.count == 36)
        #expect(harness.session.status()["session"] == "failed")
        #expect(harness.session.status()["last-error"]?.contains("4017") == true)
        // The next start: a guest configureSession with the new token.
        _ = harness.run { $0.listen(2, timeout: .seconds(30), now: Self.now) }
        let again = try #require(Self.written(harness.run { $0.linkOpened(now: Self.now) }).first)
        #expect(again.token == kept && again.action.name == "configureSession")
    }

    /// LogoutEvent (the user signed out, here or on another device: the service's answer to
    /// `DELETE …/token/revoke`): as the SDK's `performLogout`, the session token is dropped, the
    /// authentication forgotten (the JWT and the refresh token, `authHandler.clear()`), the socket closed and
    /// the app told (`Event.Logout`): the person gets a notice, the status says signed-out, and the host is
    /// asked for a new sign-in (an authentication error); the next start exchanges a new code.
    @Test func aLogoutEventSignsOutForgetsTheTokensAndTellsThePerson() throws {
        var stored = GenesysChatSession.Stored(token: Self.token)
        stored.refreshToken = "REFRESH-1"
        var harness = Harness(stored: stored, authenticated: true)
        _ = harness.run { $0.listen(1, timeout: .seconds(30), now: Self.now) }
        let fetched = harness.run { $0.deploymentFetched(.success(try! GenesysDeploymentConfig(decoding: Self.deployment)), now: Self.now) }
        #expect(fetched.contains { if case .work(.refreshJWT("REFRESH-1")) = $0 { true } else { false } })
        let jwt = Self.jwt(exp: Int(Self.now.secondsSince1970) + 3600)
        _ = harness.run { $0.authAnswered(.success(.init(jwt: jwt)), refreshed: true, now: Self.now) }
        _ = harness.run { $0.linkOpened(now: Self.now) }
        _ = harness.frame(Self.configured)
        #expect(harness.session.isConfigured)

        let logout = harness.frame(#"{"type":"message","class":"LogoutEvent","code":200,"body":{}}"#)
        #expect(logout.contains { if case .closeLink = $0 { true } else { false } })
        let secrets = Self.secrets(logout)
        #expect(secrets.keys.contains(GenesysChatSession.refreshTokenSecret) && secrets[GenesysChatSession.refreshTokenSecret] == .some(nil))
        let kept = try #require(secrets[GenesysChatSession.tokenSecret] ?? nil)
        #expect(kept != Self.token)
        let notice = try #require(Self.notices(logout).first)
        #expect(notice.text.contains("signed out"), "\(notice.text)")
        let stopped = logout.compactMap { if case .emit(.stoppedListening(let error)) = $0 { error } else { nil } }
        #expect(stopped.map(\.code) == [.authentication], "\(stopped)")
        #expect(harness.session.status()["session"] == "signed-out")
        // The next start signs in afresh: the code is exchanged (no refresh token, no JWT), then the new token.
        let listen = harness.run { $0.listen(2, timeout: .seconds(30), now: Self.now) }
        #expect(listen.contains { if case .work(.exchangeCode) = $0 { true } else { false } } && Self.links(listen).isEmpty, "\(listen)")
        _ = harness.run { $0.authAnswered(.success(.init(jwt: jwt, refreshToken: "REFRESH-2")), refreshed: false, now: Self.now) }
        let configure = try #require(Self.written(harness.run { $0.linkOpened(now: Self.now) }).first)
        #expect(configure.token == kept && configure.action.name == "configureAuthenticatedSession")
    }
}
