import AttendantPluginAPI
import CXoneCore
import Testing

/// What the host hears of the chat after each step: a lost connection being retried, for the log, and the
/// loss once the machine gives up, unless the desktop is in the background.
@Suite struct ChatPresenceTests {
    /// Ready, listening, followed by a presence; then the connection is lost and every reconnection is
    /// refused until the machine gives up.
    static func loseForGood(background: Bool) -> ChatDriver {
        var driver = ChatReliabilityTests.ready()
        var presence = ChatPresence()
        presence.connected()
        presence.background = background
        driver.presence = presence
        _ = ChatReliabilityTests.losePong(&driver)
        while let deadline = driver.deadline(.reconnect) {
            driver.advance(by: deadline - driver.now)
            driver.handle(.socketClosed(reason: "connection refused"))
        }
        return driver
    }

    @Test func aLostConnectionIsNoticedOnceAndGivingUpIsTheLossWithTheLastError() throws {
        let driver = Self.loseForGood(background: false)
        let attempts = driver.notices.compactMap { if case .reconnecting(let attempt, _) = $0 { attempt } else { nil } }
        #expect(attempts == [1], "once for the loss, not again for each refused attempt")
        #expect(driver.notices.first == .reconnecting(attempt: 1, reason: "no pong within 5 s"), "\(driver.notices.first.map { "\($0)" } ?? "none")")
        let losses = driver.notices.compactMap { if case .lost(let reason) = $0 { reason } else { nil } }
        #expect(losses.count == 1)
        let lastError = try #require(driver.errors.last)
        #expect(losses.first == lastError.message)
        #expect(driver.presence?.lastError == lastError)
        #expect(driver.presence?.listening == false)
    }

    @Test func inTheBackgroundGivingUpIsNoLoss() {
        let driver = Self.loseForGood(background: true)
        #expect(!driver.notices.contains { if case .lost = $0 { true } else { false } })
        #expect(driver.presence?.listening == true)
    }

    @Test func connectingAgainClearsTheLastError() {
        var presence = ChatPresence()
        let driver = Self.loseForGood(background: false)
        _ = presence.after([.error(driver.errors.last!)], machine: driver.machine)
        #expect(presence.lastError != nil)
        presence.connected()
        #expect(presence.lastError == nil)
        #expect(presence.listening)
    }

    @Test func aNewChatClearsTheLastErrorAndErrorsOfItsOwnStepStay() throws {
        var driver = ChatDriver()
        driver.prepare(.init(multiThread: true))
        driver.connect()
        driver.handle(.threadListFetched([]))
        var presence = ChatPresence()
        presence.connected()
        driver.presence = presence
        // A failure of the chat before: the last error, until a new chat starts.
        driver.perform { try $0.createThread() }
        driver.handle(.serverError(message: "internal error, request 42"))
        #expect(driver.presence?.lastError?.message == "the chat server failed: internal error, request 42")
        driver.perform { try $0.createThread() }
        #expect(driver.presence?.lastError == nil)
        // An error in the step that starts the chat is that chat's.
        var same = driver.presence!
        let error = ChatError(.operation, "refused")
        _ = same.after([.threadUpdated(ChatThread(id: "t9", state: .pending)), .error(error)], machine: driver.machine)
        #expect(same.lastError == error)
    }
}
