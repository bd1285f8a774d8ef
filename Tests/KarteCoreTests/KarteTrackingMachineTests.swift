import AttendantPluginAPI
import AttendantPluginKit
import KarteCore
import Testing

@Suite struct KarteTrackingMachineTests {
    @Test func eventsWaitForTheWindowThenGoInOneRequest() throws {
        var machine = tracking()
        let first = try machine.track(KarteEvent(name: "a"), now: t0)
        #expect(first.armed.map(\.1) == [.milliseconds(100)])
        #expect(first.requests.isEmpty)
        let second = try machine.track(KarteEvent(name: "b"), now: t0)
        #expect(second.isEmpty, "the window is already open")
        let sent = machine.timerFired(first.armed[0].0)
        #expect(sent.requests.map(\.eventNames) == [["a", "b"]])
        #expect(sent.requests[0].keys == KarteKeys(visitorID: "VIS", pvID: machine.originalPVID, originalPVID: machine.originalPVID))
        #expect(machine.timerFired(first.armed[0].0).isEmpty, "a fired timer is stale")
    }

    @Test func aRequestHoldsAtMostTenEvents() throws {
        var machine = tracking()
        var actions: [Tracking.Action] = []
        for index in 0..<25 { actions += try machine.track(KarteEvent(name: "e\(index)"), now: t0) }
        // Each full group of ten goes at once; the rest waits for the window.
        #expect(actions.requests.map(\.events.count) == [10, 10])
        #expect(machine.pendingEventCount == 5)
        let rest = machine.timerFired(actions.armed[0].0)
        #expect(rest.requests.map(\.events.count) == [5])
        #expect(rest.requests[0].eventNames.first == "e20")
    }

    @Test func eventsAreGroupedByThePageTheyWereTrackedOn() throws {
        var machine = tracking()
        var actions = try machine.track(KarteEvent(name: "before"), now: t0)
        actions += try machine.view(name: "home", now: t0)
        actions += try machine.track(KarteEvent(name: "after"), now: t0)
        let sent = machine.flushNow(actions).requests
        #expect(sent.map(\.eventNames) == [["before"], ["view", "after"]])
        #expect(sent[0].keys.pvID == machine.originalPVID)
        #expect(sent[1].keys.pvID == machine.pvID && sent[1].keys.pvID != machine.originalPVID)
    }

    /// karte.md §3: launch O,O; view A → P1 without reset; buy on P1; view B → P2 with reset.
    @Test func pvTimelineAsTheSDK() throws {
        var machine = tracking()
        let o = machine.originalPVID
        var actions = machine.launch(version: "1.0", previousVersion: nil, now: t0)
        let viewA = try machine.view(name: "A", now: t0)
        let p1 = machine.pvID
        #expect(viewA.pageChanges == [KartePageChange(previousPVID: o, pvID: p1, originalPVID: o, isReset: false)])
        let buy = try machine.track(KarteEvent(name: "buy"), now: t0)
        let viewB = try machine.view(name: "B", title: "Bee", now: t0)
        let p2 = machine.pvID
        #expect(viewB.pageChanges == [KartePageChange(previousPVID: p1, pvID: p2, originalPVID: o, isReset: true)])
        #expect(Set([o, p1, p2]).count == 3 && machine.originalPVID == o)
        actions = machine.flushNow(actions + viewA + buy + viewB)
        #expect(actions.requests.map(\.eventNames) == [["native_app_install", "native_app_open"], ["view", "buy"], ["view"]])
        #expect(actions.requests.map(\.keys.pvID) == [o, p1, p2])
        let bodies = actions.bodies
        #expect(bodies[1]["events"]?.arrayValue?[0]["values"] == ["view_name": "A", "title": "A", "_local_event_date": .number(t0.secondsSince1970)])
        #expect(bodies[2]["events"]?.arrayValue?[0]["values"]?["title"] == "Bee")
    }

    @Test func markBoundaryRenewsThePVAndResetsWithoutAnEvent() {
        var machine = tracking()
        let before = machine.pvID
        let actions = machine.markBoundary()
        #expect(actions.pageChanges == [KartePageChange(previousPVID: before, pvID: machine.pvID, originalPVID: machine.originalPVID, isReset: true)])
        #expect(actions.requests.isEmpty && machine.pendingEventCount == 0)
    }

    @Test func launchTracksInstallUpdateOrOnlyOpen() {
        func names(_ previous: String?) -> [String] {
            var machine = tracking()
            return machine.flushNow(machine.launch(version: "2.0", previousVersion: previous, now: t0)).requests.flatMap(\.eventNames)
        }
        #expect(names(nil) == ["native_app_install", "native_app_open"])
        #expect(names("1.0") == ["native_app_update", "native_app_open"])
        #expect(names("2.0") == ["native_app_open"])
        var machine = tracking()
        let update = machine.flushNow(machine.launch(version: "2.0", previousVersion: "1.0", now: t0)).bodies[0]
        #expect(update["events"]?.arrayValue?[0]["values"]?["prev_version_name"] == "1.0")
    }

    @Test func identifyAttributeForegroundBackground() throws {
        var machine = tracking()
        var actions = try machine.identify(userID: "u1", values: ["plan": "gold"], now: t0)
        actions += try machine.attribute(["age": 30], now: t0)
        actions += machine.foreground(now: t0)
        actions += machine.background(now: t0)
        let sent = machine.flushNow(actions)
        #expect(sent.requests[0].eventNames == ["identify", "attribute", "native_app_foreground", "native_app_background"])
        #expect(sent.bodies[0]["events"]?.arrayValue?[0]["values"]?["user_id"] == "u1")
    }

    @Test func refusedFieldsChangeNothing() {
        var machine = tracking()
        let pv = machine.pvID
        let error = #expect(throws: KarteFieldError.self) { try machine.view(name: "home", values: ["count": 1], now: t0) }
        #expect(error?.field == "count")
        #expect(machine.pvID == pv && machine.pendingEventCount == 0)
        #expect(throws: KarteFieldError.self) { try machine.identify(userID: "u", values: ["a.b": 1], now: t0) }
    }

    @Test func serverErrorsAndNetworkFailuresRetryWithBackoffAndRetryFlag() throws {
        var machine = tracking()
        let request = machine.flushNow(try machine.track(KarteEvent(name: "buy"), now: t0)).requests[0]
        var delays: [Duration] = []
        var current = request
        for attempt in 1...3 {
            let failed =
                attempt == 2
                ? machine.requestFailed(current.id, reason: "connection refused") : machine.requestCompleted(current.id, status: 503, body: [])
            let (timer, delay) = try #require(failed.armed.first)
            delays.append(delay)
            let again = machine.timerFired(timer)
            current = try #require(again.requests.first)
            #expect(current.attempt == attempt && current.isRetry)
            #expect(again.bodies[0]["events"]?.arrayValue?[0]["values"]?["_retry"] == true)
            #expect(current.events[0].keys == request.keys && current.events[0].date == t0, "a retry keeps the tracked keys and date")
        }
        #expect(delays == [.milliseconds(500), .seconds(2), .seconds(8)])
        let last = machine.requestCompleted(current.id, status: 500, body: [])
        guard case .dropped(let dropped, let reason)? = last.first else {
            Issue.record("not dropped: \(last)")
            return
        }
        #expect(dropped.id == request.id && reason == "HTTP status 500, after 3 retries")
        #expect(machine.requestsOutstanding == 0)
    }

    /// A sending that got no answer (the network, not the server) spends no retry: it goes again after the
    /// backoff, which stops growing at its cap, as often as it takes, and each time marked `_retry`.
    @Test func sendingsWithoutAnAnswerSpendNoRetry() throws {
        var machine = tracking()
        let request = machine.flushNow(try machine.track(KarteEvent(name: "buy"), now: t0)).requests[0]
        var current = request
        var delays: [Duration] = []
        for attempt in 1...8 {
            let failed = machine.requestUnanswered(current.id, reason: "No route to host", now: t0 + .seconds(attempt * 60))
            let (timer, delay) = try #require(failed.armed.first, "attempt \(attempt): \(failed)")
            delays.append(delay)
            current = try #require(machine.timerFired(timer).requests.first)
            #expect(current.isRetry && current.retriesSpent == 0)
        }
        #expect(delays == [.milliseconds(500), .seconds(2), .seconds(8), .seconds(32), .seconds(60), .seconds(60), .seconds(60), .seconds(60)])
        // An error answer afterwards spends the first of its three.
        let answered = machine.requestCompleted(current.id, status: 503, body: [])
        #expect(answered.armed.count == 1 && machine.requestsOutstanding == 1)
    }

    /// The network coming back sends at once what got no answer; a request waiting after an error answer
    /// keeps its backoff.
    @Test func aNetworkChangeSendsAtOnceWhatGotNoAnswer() throws {
        var machine = tracking()
        let unanswered = machine.flushNow(try machine.track(KarteEvent(name: "a"), now: t0)).requests[0]
        let refused = machine.flushNow(try machine.markBoundary() + machine.track(KarteEvent(name: "b"), now: t0)).requests[0]
        _ = machine.requestUnanswered(unanswered.id, reason: "No route to host", now: t0)
        _ = machine.requestCompleted(refused.id, status: 502, body: [])
        let sent = machine.networkChanged().requests
        #expect(sent.map(\.id) == [unanswered.id] && sent[0].isRetry)
        #expect(machine.networkChanged().isEmpty, "nothing is waiting for the network any more")
        #expect(machine.requestsOutstanding == 2)
    }

    /// Events that got no answer for a day are given up: a track URL that never answers keeps nothing
    /// forever.
    @Test func aRequestWithoutAnAnswerForADayIsGivenUp() throws {
        var machine = tracking()
        let request = machine.flushNow(try machine.track(KarteEvent(name: "buy"), now: t0)).requests[0]
        let late = machine.requestUnanswered(request.id, reason: "No route to host", now: t0 + .seconds(86_401))
        #expect(late == [.dropped(request: request, reason: "No route to host; no answer for 24 h, given up")])
        #expect(machine.requestsOutstanding == 0 && machine.takeJournal().finished.count == 1)
    }

    @Test func clientErrorsAreDroppedNotRetried() throws {
        var machine = tracking()
        let request = machine.flushNow(try machine.track(KarteEvent(name: "buy"), now: t0)).requests[0]
        let actions = machine.requestCompleted(request.id, status: 400, body: Array(#"{"success":0,"status":400,"error":"invalid request"}"#.utf8))
        #expect(actions == [.dropped(request: request, reason: "HTTP status 400: the request is refused and not retried")])
        #expect(machine.requestsOutstanding == 0)
    }

    @Test func fetchVariablesIsNeverRetried() throws {
        var machine = tracking()
        let request = machine.flushNow(try machine.track(KarteEvent(name: KarteEventName.fetchVariables), now: t0)).requests[0]
        let actions = machine.requestFailed(request.id, reason: "timed out")
        #expect(actions == [.dropped(request: request, reason: "timed out; _fetch_variables is not retried")])
    }

    @Test func responsesAreReportedWithTheirRequestAndRetryFlag() throws {
        var machine = tracking()
        let request = machine.flushNow(try machine.track(KarteEvent(name: "buy"), now: t0)).requests[0]
        let body = Fixtures.response(Fixtures.message(id: "a1"))
        let first = machine.requestCompleted(request.id, status: 200, body: body)
        guard case .responseReceived(let answered, let response, let isRetry)? = first.first else {
            Issue.record("\(first)")
            return
        }
        #expect(answered == request && !isRetry && response.messages.count == 1)

        let second = machine.flushNow(try machine.track(KarteEvent(name: "buy"), now: t0)).requests[0]
        let retry = machine.timerFired(try #require(machine.requestCompleted(second.id, status: 502, body: []).armed.first).0).requests[0]
        let late = machine.requestCompleted(retry.id, status: 200, body: body)
        guard case .responseReceived(_, _, let lateIsRetry)? = late.first else {
            Issue.record("\(late)")
            return
        }
        #expect(lateIsRetry)
    }

    @Test func unreadableResponsesAreReportedWithoutContent() throws {
        var machine = tracking()
        let request = machine.flushNow(try machine.track(KarteEvent(name: "buy"), now: t0)).requests[0]
        let actions = machine.requestCompleted(request.id, status: 200, body: Array("not json".utf8))
        #expect(
            actions == [
                .responseUnreadable(
                    request: request,
                    error: KarteDecodeError(problem: "the response (8 bytes) is not JSON: unexpected character at byte 0")
                )
            ]
        )
    }
}
