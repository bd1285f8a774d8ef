package import AttendantPluginAPI
import AttendantPluginKit

/// A history catch-up under way: the JWT asked for (by the getJwt's tracing id), then the pages fetched
/// newest first until one reaches a message already shown; the socket's messages wait meanwhile.
struct GenesysCatchUp: Sendable {
    /// The tracing id of the `getJwt` waiting for its answer; nil once the pages are fetched.
    var asked: String?
    /// What the pages brought that was not shown, newest first.
    var unseen: [GenesysStructuredMessage] = []
    /// The socket's messages, in order, shown once the history is.
    var held: [GenesysStructuredMessage] = []
}

// What came while the socket was closed (a sleep, a network loss, a restart): the history API, paged from
// the newest, with a JWT from getJwt, each message shown once and in order (SDK `HistoryHandlerImpl`,
// `WebMessagingApi.getMessages`, `JwtHandler`).
extension GenesysChatSession {
    /// Pages fetched at most in one catch-up: 400 of 25, 10,000 messages.
    static let maximumHistoryPages = 400

    /// Asks for a JWT (or reuses one valid for 5 s more, SDK `JwtHandler.isValid`) and fetches page 1.
    mutating func startCatchUp(now: UnixTime) -> [Action] {
        guard self.catchUp == nil, self.threadID != nil else { return [] }
        if let jwt = self.jwt, Double(jwt.expires - 5) > now.secondsSince1970 {
            self.catchUp = GenesysCatchUp()
            return self.fetch(page: 1, jwt: jwt.value)
        }
        let (actions, tracingIds) = (try? self.machineRequest(now: now) { $0.getJwt() }) ?? ([], [])
        guard let asked = tracingIds.first else { return actions }
        self.catchUp = GenesysCatchUp(asked: asked)
        return actions + [.setTimer(.catchUp, after: self.settings.requestTimeout)]
    }

    /// `JwtResponse`: kept in memory only, and the history's first page asked for.
    mutating func jwtArrived(_ jwt: String, expires: Int, now: UnixTime) -> [Action] {
        self.jwt = (jwt, expires)
        guard self.catchUp?.asked != nil else { return [] }
        self.catchUp?.asked = nil
        return self.fetch(page: 1, jwt: jwt)
    }

    func fetch(page: Int, jwt: String) -> [Action] {
        [.work(.fetchHistory(self.historyRequest(page: page, jwt: jwt), page: page)), .setTimer(.catchUp, after: self.settings.requestTimeout * 2)]
    }

    /// `GET …/api/v2/webmessaging/messages?pageNumber=&pageSize=25` with `Authorization: bearer <jwt>` and
    /// `Origin` (SDK `WebMessagingApi.getMessages`).
    func historyRequest(page: Int, jwt: String) -> NetworkRequest {
        let endpoints = self.settings.endpoints
        let origin = endpoints.customEndpoint.map { "http://\($0)" } ?? "https://\(endpoints.domain)"
        return NetworkRequest(
            url: endpoints.history(pageNumber: page),
            headers: [NetworkHeader("Authorization", "bearer \(jwt)"), NetworkHeader("Origin", origin)],
            timeout: self.settings.requestTimeout,
            maximumResponseSize: 8 << 20,
            usesCookies: false
        )
    }

    /// What a page brought (decoded outside the lock): its messages not shown yet are kept, newest first,
    /// until one was shown before (what is older was shown, or belongs to no one's news), the last page, or
    /// the limit; then they are shown oldest first, then the socket's held ones.
    package mutating func historyFetched(page: Int, _ outcome: Result<GenesysHistoryPage, ChannelError>, now: UnixTime) -> [Action] {
        guard self.catchUp != nil, self.catchUp?.asked == nil else { return [] }
        switch outcome {
        case .failure(let error):
            if error.code == .authentication { self.jwt = nil }
            return self.catchUpEnded(error.message, now: now)
        case .success(let history):
            var reachedShown = false
            for message in history.entities {
                if self.shown.contains(message.id) {
                    reachedShown = true
                    break
                }
                self.catchUp?.unseen.append(message)
            }
            let last = history.entities.isEmpty || page >= history.pageCount || page >= Self.maximumHistoryPages
            if reachedShown || last { return self.catchUpEnded(nil, now: now) }
            guard let jwt = self.jwt?.value else { return self.catchUpEnded("the JWT is gone", now: now) }
            return self.fetch(page: page + 1, jwt: jwt)
        }
    }

    /// The catch-up is over (`failure` says why it stopped early): what it found is shown oldest first,
    /// then what the socket brought meanwhile.
    mutating func catchUpEnded(_ failure: String?, now: UnixTime) -> [Action] {
        guard let catchUp = self.catchUp else { return [] }
        self.catchUp = nil
        var actions: [Action] = [.cancelTimer(.catchUp)]
        if let failure { actions.append(.log(.warning, "\(self.prefix): could not fetch what came meanwhile from \(self.server): \(failure)")) }
        let found = catchUp.unseen.reversed()
        if !found.isEmpty { actions.append(.log(.info, "\(self.prefix): \(found.count) messages came meanwhile")) }
        for message in found + catchUp.held { actions += self.show(message, now: now) }
        return actions
    }
}
