import AttendantPluginAPI
import AttendantPluginKit
import KarteCore
import Testing

/// The journal: every recorded event is handed to the driver to keep, and handed back as finished once
/// its request is answered, refused or given up; a later run sends the kept ones again as retries.
@Suite struct KarteJournalTests {
    @Test func eventsAreKeptUntilTheirRequestEnds() throws {
        var machine = tracking()
        let actions = try machine.track(KarteEvent(name: "buy", values: ["price": 3]), now: t0)
        let kept = machine.takeJournal().recorded
        #expect(kept.map(\.event.name) == ["buy"])
        #expect(kept[0].localID == "\(machine.originalPVID)-1")
        let request = try #require(machine.flushNow(actions).requests.first)
        #expect(machine.takeJournal().isEmpty, "sent is not answered")

        // A 5xx keeps it (a retry will carry it); the retry's 2xx finishes it.
        let armed = try #require(machine.requestCompleted(request.id, status: 503, body: []).armed.first)
        #expect(machine.takeJournal().isEmpty)
        let retry = try #require(machine.timerFired(armed.0).requests.first)
        #expect(retry.isRetry)
        _ = machine.requestCompleted(retry.id, status: 200, body: Array(#"{"success":1,"status":200,"response":{"messages":[]}}"#.utf8))
        #expect(machine.takeJournal().finished == [kept[0].localID])
    }

    @Test func refusedAndGivenUpEventsAreFinishedToo() throws {
        var machine = tracking()
        let refused = machine.flushNow(try machine.track(KarteEvent(name: "a"), now: t0)).requests[0]
        _ = machine.requestCompleted(refused.id, status: 400, body: [])
        #expect(machine.takeJournal().finished.count == 1)
        let fetch = machine.flushNow(try machine.track(KarteEvent(name: KarteEventName.fetchVariables), now: t0)).requests[0]
        _ = machine.takeJournal()
        _ = machine.requestFailed(fetch.id, reason: "connection refused")
        #expect(machine.takeJournal().finished.count == 1, "_fetch_variables is not retried, so not kept")
    }

    @Test func keptEventsRoundTripAndGoAgainAsRetries() throws {
        var first = tracking()
        _ = try first.track(KarteEvent(name: "buy", values: ["item": "tea"]), now: t0)
        _ = try first.view(name: "cart", now: t0 + .seconds(1))
        _ = try first.track(KarteEvent(name: KarteEventName.fetchVariables), now: t0 + .seconds(2))
        let kept = first.takeJournal().recorded.map { KarteRecordedEvent(persisted: $0.persisted) }
        #expect(kept.allSatisfy { $0 != nil })

        var second = Tracking(configuration: .init(appInfo: Fixtures.appInfo), visitorID: "VIS", random: CountingRandom(state: 99))
        let sent = second.resend(kept.compactMap { $0 })
        // Two pages, two requests, each a retry of the first run's keys; _fetch_variables dropped.
        #expect(sent.requests.map(\.eventNames) == [["buy"], ["view"]])
        #expect(sent.requests.allSatisfy { $0.isRetry && $0.keys.originalPVID == first.originalPVID })
        #expect(second.takeJournal().finished.count == 1)
        let body = try #require(sent.bodies.first)
        #expect(body["events"]?.arrayValue?.first?["values"]?["_retry"] == .bool(true))
    }
}
