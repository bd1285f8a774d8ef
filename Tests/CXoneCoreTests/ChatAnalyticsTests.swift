import AttendantPluginAPI
import CXoneCore
import Testing

/// The "view page" diagram.
@Suite struct ChatAnalyticsTests {
    @Test(arguments: [false, true])
    func viewPageIsIllegalUntilPrepared(_ preparing: Bool) throws {
        var driver = ChatDriver()
        if preparing { driver.perform { try $0.prepare(brandID: 1, channelID: "c") } }
        let before = driver.actions.count
        let error = try #require(driver.perform { try $0.viewPage(title: "Home", url: "app://home", at: $1) })
        #expect(error.code == .illegalChatState)
        #expect(driver.actions.count == before)
    }

    @Test func aFirstPageViewStartsAVisit() throws {
        var driver = ChatDriver()
        driver.prepare()
        driver.perform { try $0.viewPage(title: "Home", url: "app://home", at: $1) }
        let events = driver.analytics
        #expect(events.count == 2)
        guard case .visitorVisit(let visitID, let at) = events.first, case .pageView(visitID, "Home", "app://home", at) = events.last else {
            Issue.record("VisitorVisit then PageView expected: \(events)")
            return
        }
        #expect(at == driver.epoch)
        #expect(driver.deadline(.visitExpiry) == .seconds(1800))
        let visitorID = try #require(driver.stored.visitorID)
        #expect(driver.actions.contains { if case .sendAnalytics(_, visitorID, _) = $0 { true } else { false } })
    }

    @Test func aLaterPageViewExtendsTheVisitAndEndsThePreviousPage() {
        var driver = ChatDriver()
        driver.prepare()
        driver.perform { try $0.viewPage(title: "Home", url: "app://home", at: $1) }
        driver.advance(by: .seconds(20 * 60))
        driver.perform { try $0.viewPage(title: "Help", url: "app://help", at: $1) }
        let events = driver.analytics
        #expect(events.count == 4, "no second VisitorVisit within the visit")
        guard case .visitorVisit(let visitID, _) = events[0],
            case .pageViewEnded(visitID, "Home", "app://home", 1200, _) = events[2],
            case .pageView(visitID, "Help", "app://help", _) = events[3]
        else {
            Issue.record("unexpected analytics: \(events)")
            return
        }
        #expect(driver.deadline(.visitExpiry) == .seconds(20 * 60 + 1800), "the visit slides forward")
    }

    @Test func aPageViewAfterTheVisitExpiredStartsANewVisit() {
        var driver = ChatDriver()
        driver.prepare()
        driver.perform { try $0.viewPage(title: "Home", url: "app://home", at: $1) }
        driver.advance(by: .seconds(1800))
        driver.perform { try $0.viewPage(title: "Home", url: "app://home", at: $1) }
        let visits = driver.analytics.compactMap { if case .visitorVisit(let id, _) = $0 { id } else { nil } }
        #expect(visits.count == 2)
        #expect(Set(visits).count == 2)
    }
}
