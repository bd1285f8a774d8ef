package import AttendantPluginAPI
import AttendantPluginKit

// The "view page" diagram: visits, page views and the time spent on them.
extension ChatStateMachine {
    /// `viewPage(title:url:)`: starts a visit (VisitorVisit) or extends the current one by 30 minutes, ends
    /// the previous page view, and sends PageView. Legal once the chat is prepared.
    package mutating func viewPage(title: String, url: String, at now: UnixTime) throws(ChatError) -> [Action] {
        guard self.isPrepared, let brandID = self.brandID, let visitorID = self.persisted.visitorID else {
            throw .illegalState("view a page", self.state, expected: "prepare the chat first")
        }
        var actions: [Action] = []
        let visitID: String
        if let visit = self.visit, visit.active {
            visitID = visit.id
        } else {
            visitID = self.random.uuid()
            self.visit = (visitID, true)
            actions.append(.sendAnalytics(brandID: brandID, visitorID: visitorID, .visitorVisit(visitID: visitID, at: now)))
        }
        actions += self.arm(.visitExpiry, after: self.configuration.visitLifetime)
        actions += self.endPageView(at: now)
        self.lastPage = (title, url, now)
        actions.append(.sendAnalytics(brandID: brandID, visitorID: visitorID, .pageView(visitID: visitID, title: title, url: url, at: now)))
        return actions
    }

    /// A page view is under way in a visit that has not expired.
    package var isViewingPage: Bool {
        self.lastPage != nil && self.visit?.active == true
    }

    /// Prepared or later: analytics are available.
    var isPrepared: Bool {
        [.prepared, .offline, .connecting, .connected, .ready, .closed].contains(self.state)
    }

    /// Ends the page being viewed, if any (the diagrams' pageViewEnded, sent as TimeSpentOnPage).
    mutating func endPageView(at now: UnixTime) -> [Action] {
        guard let page = self.lastPage, let visit = self.visit, let brandID = self.brandID, let visitorID = self.persisted.visitorID else {
            return []
        }
        self.lastPage = nil
        let seconds = max(0, Int((now - page.at).components.seconds))
        return [
            .sendAnalytics(
                brandID: brandID,
                visitorID: visitorID,
                .pageViewEnded(visitID: visit.id, title: page.title, url: page.url, secondsSpent: seconds, at: now)
            )
        ]
    }
}
