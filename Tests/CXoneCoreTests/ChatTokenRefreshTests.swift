import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import CXoneCore
import Testing

/// The customer's access token (OAuth channels) refreshed with RefreshToken before it expires, and the
/// new one kept in the secrets.
@Suite struct ChatTokenRefreshTests {
    static let start = UnixTime(secondsSince1970: 1000)

    static func session() -> ChatSession {
        var driver = ChatDriver(stored: .init(accessToken: ChannelToken(value: "token-1", expiresAt: UnixTime(secondsSince1970: 5000))))
        driver.readySingleThread(thread: ChatThread(id: "thread-1", state: .loaded))
        return ChatSessionStepTests.session(driver.machine)
    }

    static func refreshed(_ token: String, expiresIn: Int) -> CXoneInbound {
        .postback(eventId: CXoneID("e-\(token)"), event: .tokenRefreshed(.init(accessToken: .init(token: CXoneSecret(token), expiresIn: expiresIn))))
    }

    static func refreshDelay(_ actions: [ChatSession.Action]) -> Duration? {
        for case .setTimer(.refreshToken, let delay) in actions { return delay }
        return nil
    }

    /// The token of the RefreshToken frames among `actions`.
    static func refreshTokens(_ actions: [ChatSession.Action]) throws -> [String] {
        try actions.compactMap { action in
            guard case .writeLink(let bytes) = action, case .frame(let frame) = try CXoneOutbound.decode(bytes),
                case .refreshToken(let data) = frame.event
            else { return nil }
            return data.accessToken.token.value
        }
    }

    @Test func theTokenIsRefreshedATenthOfItsLifeBeforeItExpiresAndTheNewOneIsKept() throws {
        var session = Self.session()
        // The first frame that meets the token sets the timer: 4000 s left, refreshed 400 s before.
        let first = session.received(Self.refreshed("token-2", expiresIn: 4000), now: Self.start)
        #expect(Self.refreshDelay(first) == .seconds(3600))
        #expect(first.contains { if case .write(let write) = $0 { write.place == .secrets } else { false } }, "the new token is kept")
        #expect(session.machine.accessToken?.value == "token-2")

        let due = session.timerFired(.refreshToken, now: UnixTime(secondsSince1970: 4600))
        #expect(try Self.refreshTokens(due) == ["token-2"])

        // The answer's token replaces it; a short life is refreshed a minute before it ends.
        let next = session.received(Self.refreshed("token-3", expiresIn: 300), now: UnixTime(secondsSince1970: 4601))
        #expect(Self.refreshDelay(next) == .seconds(240))
        #expect(session.machine.accessToken?.value == "token-3")
        // Frames that bring no new token set no timer.
        #expect(Self.refreshDelay(session.received(Self.refreshed("token-3", expiresIn: 300), now: UnixTime(secondsSince1970: 4602))) == nil)
    }

    @Test func aChannelWithoutATokenNeverRefreshes() throws {
        var driver = ChatDriver()
        driver.prepare()
        driver.connect(token: nil)
        driver.handle(.threadRecoveryFailed(threadID: nil))
        var session = ChatSessionStepTests.session(driver.machine)
        #expect(Self.refreshDelay(session.received(Self.refreshed("token-9", expiresIn: 600), now: Self.start)) == nil)
        #expect(try Self.refreshTokens(session.timerFired(.refreshToken, now: Self.start)).isEmpty)
        #expect(session.machine.accessToken == nil, "a TokenRefreshed without a token of ours is not taken")
    }
}
