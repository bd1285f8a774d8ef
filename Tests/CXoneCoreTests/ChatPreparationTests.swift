import AttendantPluginAPI
import CXoneCore
import Testing

/// The "application becomes active" and "application enters background" diagrams.
@Suite struct ChatPreparationTests {
    @Test func prepareFetchesTheConfigurationCreatesAndStoresIDsAndRegistersTheVisitor() throws {
        var driver = ChatDriver()
        #expect(driver.state == .initial)
        driver.perform { try $0.prepare(brandID: 1386, channelID: "chat_1") }
        #expect(driver.state == .preparing)
        #expect(driver.states == [.preparing])
        #expect(driver.actions.last == .fetchChannelConfiguration(brandID: 1386, channelID: "chat_1"))
        let form = ChatStateMachine.PreChatForm(name: "Before we start", fields: [.init(ident: "email", label: "E-mail", isRequired: true)])
        driver.handle(.channelConfigurationFetched(.init(multiThread: true, preContactForm: form)))
        let visitorID = try #require(driver.stored.visitorID)
        let customerID = try #require(driver.stored.customerID)
        #expect(visitorID != customerID)
        #expect(visitorID.count == 36 && visitorID == visitorID.lowercased())
        #expect(driver.actions.last == .createOrUpdateVisitor(brandID: 1386, visitorID: visitorID, customerID: customerID))
        #expect(driver.state == .preparing)
        driver.handle(.visitorStored)
        #expect(driver.state == .prepared)
        #expect(driver.states == [.preparing, .prepared])
        #expect(driver.machine.mode == .multiThread)
        #expect(driver.machine.preChatForm == form)
    }

    @Test func storedIDsAreReused() {
        var driver = ChatDriver(stored: .init(visitorID: "visitor-9", customerID: "customer-9"))
        driver.perform { try $0.prepare(brandID: 1, channelID: "c") }
        driver.handle(.channelConfigurationFetched(.init()))
        #expect(!driver.actions.contains { if case .store = $0 { true } else { false } })
        #expect(driver.actions.last == .createOrUpdateVisitor(brandID: 1, visitorID: "visitor-9", customerID: "customer-9"))
    }

    @Test(arguments: [ChatState.preparing, .prepared, .connecting, .connected, .ready])
    func prepareIsIllegalOutsideInitialAndOffline(_ state: ChatState) throws {
        var driver = ChatDriver()
        driver.perform { try $0.prepare(brandID: 1, channelID: "c") }
        if state != .preparing {
            driver.handle(.channelConfigurationFetched(.init()))
            driver.handle(.visitorStored)
        }
        if state == .connecting || state == .connected || state == .ready {
            driver.perform { try $0.connect() }
            if state != .connecting {
                driver.handle(.socketOpened)
                driver.answerAuthorization()
            }
            if state == .ready { driver.handle(.threadRecoveryFailed(threadID: nil)) }
        }
        #expect(driver.state == state)
        let before = driver.actions.count
        let machine = driver.machine
        let error = try #require(driver.perform { try $0.prepare(brandID: 2, channelID: "d") })
        #expect(error.code == .illegalChatState)
        #expect(error.message.contains("\(state)"))
        #expect(driver.actions.count == before, "no side effects")
        #expect(driver.machine.brandID == machine.brandID)
    }

    @Test func prepareIsLegalWhenOffline() {
        var driver = ChatDriver()
        driver.prepare(.init(isLiveChat: true))
        driver.perform { try $0.connect() }
        driver.handle(.availabilityFetched(online: false))
        #expect(driver.state == .offline)
        #expect(driver.perform { try $0.prepare(brandID: 1, channelID: "c") } == nil)
        #expect(driver.state == .preparing)
    }

    @Test func aConfigurationServerErrorReturnsToInitial() {
        var driver = ChatDriver()
        driver.perform { try $0.prepare(brandID: 1, channelID: "c") }
        let error = ChatError(.server, "the chat server answered 500 to the channel configuration")
        driver.handle(.channelConfigurationFailed(error))
        #expect(driver.state == .initial)
        #expect(driver.states == [.preparing, .initial])
        #expect(driver.errors == [error])
        #expect(!driver.actions.contains { if case .createOrUpdateVisitor = $0 { true } else { false } })
        // A late visitor answer changes nothing.
        driver.handle(.visitorStored)
        #expect(driver.state == .initial)
    }

    @Test func aVisitorServerErrorReturnsToInitial() {
        var driver = ChatDriver()
        driver.perform { try $0.prepare(brandID: 1, channelID: "c") }
        driver.handle(.channelConfigurationFetched(.init()))
        driver.handle(.visitorFailed(ChatError(.server, "visitor refused")))
        #expect(driver.state == .initial)
        #expect(driver.errors.map(\.code) == [.server])
        // Prepare again: the ids stored the first time are kept.
        let visitorID = driver.stored.visitorID
        driver.prepare()
        #expect(driver.state == .prepared)
        #expect(driver.stored.visitorID == visitorID)
    }

    @Test func backgroundWhilePreparingReturnsToInitial() {
        var driver = ChatDriver()
        driver.perform { try $0.prepare(brandID: 1, channelID: "c") }
        driver.apply(driver.machine.background(at: driver.wallClock))
        #expect(driver.state == .initial)
        // The configuration that arrives afterwards is ignored.
        driver.handle(.channelConfigurationFetched(.init()))
        #expect(driver.state == .initial)
        #expect(driver.stored.visitorID == nil)
    }

    @Test func backgroundEndsThePageViewThenClosesTheSocketAndForegroundResumes() throws {
        var driver = ChatDriver()
        driver.readySingleThread()
        driver.perform { try $0.viewPage(title: "Home", url: "app://home", at: $1) }
        driver.advance(by: .seconds(9))  // within the first heartbeat: no pong needed yet
        let actionsBefore = driver.actions.count
        driver.apply(driver.machine.background(at: driver.wallClock))
        let after = Array(driver.actions[actionsBefore...])
        guard case .sendAnalytics(_, _, .pageViewEnded(_, "Home", "app://home", 9, _)) = after.first else {
            Issue.record("pageViewEnded must come first: \(after)")
            return
        }
        #expect(after.contains(.closeSocket))
        #expect(driver.state == .prepared)
        #expect(driver.timerKinds == [.visitExpiry], "no heartbeat while disconnected")
        driver.apply(driver.machine.foreground())
        #expect(driver.state == .connecting)
        #expect(driver.socketOpens == 2)
    }

    @Test func backgroundWhenOfflineGoesToPrepared() {
        var driver = ChatDriver()
        driver.prepare(.init(isLiveChat: true))
        driver.perform { try $0.connect() }
        driver.handle(.availabilityFetched(online: false))
        driver.apply(driver.machine.background(at: driver.wallClock))
        #expect(driver.state == .prepared)
        #expect(!driver.actions.contains(.closeSocket))
    }
}
