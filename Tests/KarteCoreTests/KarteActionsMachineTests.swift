import AttendantPluginAPI
import AttendantPluginKit
import KarteCore
import Testing

/// Both machines wired as the driver will wire them: responses go to the actions machine with the
/// tracking machine's current keys, page changes reset.
struct Pair {
    var tracking = KarteCoreTests.tracking()
    var actions = Actions()
    var now = t0

    /// Tracks `name` and sends it: the request that carries it.
    mutating func send(_ name: String) throws -> KarteTrackRequest {
        try self.tracking.flushNow(self.tracking.track(KarteEvent(name: name), now: self.now)).requests[0]
    }

    mutating func answer(_ request: KarteTrackRequest, _ messages: JSONValue...) -> [Actions.Action] {
        let body = JSONValue.object(["success": 1, "status": 200, "response": .object(["messages": .array(messages)])]).encoded()
        var out: [Actions.Action] = []
        for action in self.tracking.requestCompleted(request.id, status: 200, body: body) {
            if case .responseReceived(let request, let response, _) = action {
                out += self.actions.receive(response, for: request, current: self.tracking.keys, now: self.now)
            }
        }
        return out
    }

    mutating func view(_ name: String) throws -> [Actions.Action] {
        // The view event is sent (and never answered), so later events open a new batching window.
        try self.tracking.flushNow(self.tracking.view(name: name, now: self.now)).pageChanges.flatMap { self.actions.pageChanged($0) }
    }
}

func message(_ ref: (String, String)) -> JSONValue { ["campaign_id": .string(ref.0), "shorten_id": .string(ref.1)] }

@Suite struct KarteActionsMachineTests {
    @Test func showingSignalsTheWindowAndTracksMessageOpen() throws {
        var pair = Pair()
        let out = pair.answer(try pair.send("buy"), Fixtures.message(id: "a1", campaign: "c1"))
        let ref = Actions.ActionRef(actionID: "a1", campaignID: "c1", shortenID: "s-a1")
        guard case .show(let shown) = out[2] else {
            Issue.record("\(out)")
            return
        }
        #expect(
            out == [
                .willAppear(ref), .windowPresented, .show(shown), .didAppear(ref),
                .track(KarteEvent(name: "message_open", values: ["message": message(("c1", "s-a1"))])),
            ]
        )
        #expect(shown.inAppAction == InAppAction(id: "a1", campaignID: "c1", title: "T", body: "B"))
        let second = pair.answer(try pair.send("buy"), Fixtures.message(id: "a2"))
        #expect(!second.contains(.windowPresented) && second.shownIDs == ["a2"])
        #expect(pair.actions.shown.count == 2)
    }

    @Test func responsesToRetriesNeverShowAnything() throws {
        var pair = Pair()
        let request = try pair.send("buy")
        let timer = try #require(pair.tracking.requestCompleted(request.id, status: 503, body: []).armed.first).0
        let retry = pair.tracking.timerFired(timer).requests[0]
        #expect(retry.isRetry)
        let out = pair.answer(
            retry,
            Fixtures.message(id: "a1"),
            Fixtures.message(id: "v", serviceActionType: "remote_config", content: ["inlined_variables": [["name": "x", "value": 1]]])
        )
        #expect(out.isEmpty && pair.actions.shown.isEmpty && pair.actions.variables.isEmpty)
    }

    /// karte.md §3's timeline: the answer to `buy` (sent on P1) arrives after `view B` (P2): limited.
    @Test func displayLimitDropsAnswersFromAnEarlierScreen() throws {
        var pair = Pair()
        #expect(try pair.view("A").isEmpty, "the first view does not reset")
        let buy = try pair.send("buy")
        _ = try pair.view("B")
        let out = pair.answer(buy, Fixtures.message(id: "a1", campaign: "c1", limit: true), Fixtures.message(id: "a2", campaign: "c2"))
        #expect(
            out.tracked.first
                == KarteEvent(
                    name: "_message_suppressed",
                    values: ["reason": "The display is suppressed by native_app_display_limit_mode.", "message": message(("c1", "s-a1"))]
                )
        )
        #expect(out.shownIDs == ["a2"], "without the flag, a late answer is still shown")
    }

    @Test func displayLimitKeepsAnswersFromTheCurrentOrTheOriginalPage() throws {
        var pair = Pair()
        let beforeAnyView = try pair.send("open")  // on the original pv
        _ = try pair.view("A")
        let onA = try pair.send("buy")  // on P1, still current
        #expect(pair.answer(beforeAnyView, Fixtures.message(id: "o", limit: true)).shownIDs == ["o"])
        #expect(pair.answer(onA, Fixtures.message(id: "p", limit: true)).shownIDs == ["p"])
        _ = pair.tracking.markBoundary()
        let onA2 = try pair.send("buy")
        _ = pair.tracking.markBoundary()
        #expect(pair.answer(onA2, Fixtures.message(id: "q", limit: true)).shownIDs.isEmpty, "a marked boundary counts as a screen change")
    }

    @Test func suppressHoldsBackActionsUntilUnsuppress() throws {
        var pair = Pair()
        _ = pair.answer(try pair.send("buy"), Fixtures.message(id: "a1", campaign: "c1"))
        let suppressed = pair.actions.suppress()
        #expect(suppressed.closed.map(\.0) == ["a1"] && suppressed.closed.map(\.1) == [.hard])
        #expect(suppressed.tracked == [KarteEvent(name: "message_close", values: ["message": message(("c1", "s-a1"))])])
        #expect(suppressed.last == .windowDismissed && pair.actions.isSuppressed)
        let held = pair.answer(
            try pair.send("buy"),
            Fixtures.message(id: "a2", campaign: "c2"),
            Fixtures.message(id: "v", campaign: "cv", serviceActionType: "remote_config")
        )
        #expect(held.shownIDs.isEmpty)
        let reasons = held.tracked.filter { $0.name == "_message_suppressed" }
        #expect(
            reasons == [
                KarteEvent(
                    name: "_message_suppressed",
                    values: ["reason": "The display is suppressed by suppress mode.", "message": message(("c2", "s-a2"))]
                )
            ],
            "never for remote_config"
        )
        pair.actions.unsuppress()
        #expect(pair.answer(try pair.send("buy"), Fixtures.message(id: "a3")).shownIDs == ["a3"])
    }

    @Test func suppressComesBeforeTheDisplayLimitAsOniOS() throws {
        var pair = Pair()
        let buy = try pair.send("buy")
        _ = try pair.view("A")
        _ = try pair.view("B")
        _ = pair.actions.suppress()
        let out = pair.answer(buy, Fixtures.message(id: "a1", limit: true))
        #expect(out.tracked.map { $0.values["reason"] } == ["The display is suppressed by suppress mode."])
    }

    @Test func controlGroupActionsAreNeverShown() throws {
        var pair = Pair()
        let out = pair.answer(try pair.send("buy"), Fixtures.message(id: "a1", campaign: "c1", type: "control"))
        #expect(out == [.skipped(Actions.ActionRef(actionID: "a1", campaignID: "c1", shortenID: "s-a1"), reason: "control group")])
    }

    @Test func remoteConfigKeepsVariablesAndTracksMessageReady() throws {
        var pair = Pair()
        let content: [String: JSONValue] = ["inlined_variables": [["name": "color", "value": "red"], ["name": "n", "value": 2]]]
        let out = pair.answer(
            try pair.send("buy"),
            Fixtures.message(id: "v1", campaign: "cv", serviceActionType: "remote_config", timestamp: "2027-01-15T08:00:00.000Z", content: content),
            Fixtures.message(
                id: "ctl",
                campaign: "cc",
                type: "control",
                serviceActionType: "remote_config",
                content: ["inlined_variables": [["name": "color", "value": "blue"]]]
            )
        )
        #expect(pair.actions.variables.mapValues(\.value) == ["color": "red", "n": 2], "a control group's variables are not kept")
        #expect(pair.actions.variables["color"]?.campaignID == "cv")
        #expect(out.shownIDs.isEmpty)
        let ready = out.tracked.filter { $0.name == "_message_ready" }
        #expect(ready.count == 2, "also for the control group")
        #expect(
            ready[0].values["message"] == [
                "campaign_id": "cv", "shorten_id": "s-v1", "response_timestamp": "2027-01-15T08:00:00.000Z",
                "response_id": "2027-01-15T08:00:00.000Z_s-v1", "trigger": ["event_hashes": "h1"],
            ]
        )
        #expect(out.contains(.variablesChanged(pair.actions.variables)))
        // A request holding _fetch_variables clears them before its answer is applied.
        let cleared = pair.answer(try pair.send(KarteEventName.fetchVariables))
        #expect(cleared == [.variablesChanged([:])] && pair.actions.variables.isEmpty)
    }

    @Test func messageOpenIsDroppedAfter180Seconds() throws {
        var pair = Pair()
        pair.now = KarteTimestamp.parse("2027-01-15T08:03:00.000Z")!
        let fresh = pair.answer(try pair.send("buy"), Fixtures.message(id: "fresh", timestamp: "2027-01-15T08:00:00.000Z"))
        #expect(fresh.tracked.map(\.name) == ["message_open"], "exactly 180 s is not older than 180 s")
        let offset = pair.answer(try pair.send("buy"), Fixtures.message(id: "offset", timestamp: "2027-01-15T08:00:00+0000"))
        #expect(offset.tracked.map(\.name) == ["message_open"], "the same instant written with an offset")
        pair.now = pair.now + .milliseconds(1)
        let stale = pair.answer(try pair.send("buy"), Fixtures.message(id: "stale", campaign: "cs", timestamp: "2027-01-15T17:00:00+09:00"))
        #expect(stale.shownIDs == ["stale"], "still shown")
        #expect(stale.tracked.isEmpty)
        #expect(
            stale.contains(
                .messageOpenExpired(Actions.ActionRef(actionID: "stale", campaignID: "cs", shortenID: "s-stale"), age: .milliseconds(180_001))
            )
        )
    }

    @Test func aViewAfterTheFirstResetsSoftlyWithoutMessageClose() throws {
        var pair = Pair()
        _ = try pair.view("A")
        _ = pair.answer(try pair.send("buy"), Fixtures.message(id: "a1"), Fixtures.message(id: "a2"))
        let out = try pair.view("B")
        #expect(out.closed.map(\.0) == ["a1", "a2"] && out.closed.allSatisfy { $0.1 == .soft })
        #expect(out.tracked.isEmpty && out.last == .windowDismissed && pair.actions.shown.isEmpty)
        let ref = Actions.ActionRef(actionID: "a1", campaignID: "c-a1", shortenID: "s-a1")
        #expect(
            Array(out.prefix(3)) == [.willDisappear(ref, reason: .soft), .close(actionID: "a1", reason: .soft), .didDisappear(ref, reason: .soft)]
        )
    }

    @Test func markBoundaryResetsSoftly() throws {
        var pair = Pair()
        _ = pair.answer(try pair.send("buy"), Fixtures.message(id: "a1"))
        let out = pair.tracking.markBoundary().pageChanges.flatMap { pair.actions.pageChanged($0) }
        #expect(out.closed.map(\.1) == [.soft] && out.tracked.isEmpty)
    }

    @Test func aLinkClickTracksAndResetsUnlessBlank() throws {
        var pair = Pair()
        _ = pair.answer(try pair.send("buy"), Fixtures.message(id: "a1", campaign: "c1"))
        let blank = pair.actions.linkClicked(actionID: "a1", url: "https://example.com/x", target: "_blank")
        #expect(blank == [.track(KarteEvent(name: "message_click", values: ["message": message(("c1", "s-a1")), "url": "https://example.com/x"]))])
        #expect(pair.actions.shown.count == 1)
        let same = pair.actions.linkClicked(actionID: "a1", url: "https://example.com/y", target: nil)
        #expect(same.tracked.map(\.name) == ["message_click"], "no message_close: a click resets softly")
        #expect(same.closed.map(\.1) == [.click] && same.last == .windowDismissed)
        #expect(pair.actions.linkClicked(actionID: "a1", url: "https://example.com/y", target: nil).isEmpty, "no longer shown")
    }

    /// A link that is not `_blank` resets the overlay's page state, as the SDKs do: every shown action
    /// closes, not only the one clicked (iOS `IAMWebView.openURL(_:isReset:)`).
    @Test func aSelfLinkClosesEveryShownAction() throws {
        var pair = Pair()
        _ = pair.answer(try pair.send("buy"), Fixtures.message(id: "a1"), Fixtures.message(id: "a2"))
        let out = pair.actions.linkClicked(actionID: "a2", url: "https://example.com/y", target: "_self")
        #expect(out.tracked.map(\.name) == ["message_click"])
        #expect(out.closed.map(\.0) == ["a1", "a2"] && out.closed.allSatisfy { $0.1 == .click })
        #expect(pair.actions.shown.isEmpty && out.last == .windowDismissed)
    }

    @Test func dismissClosesHardWithMessageClose() throws {
        var pair = Pair()
        _ = pair.answer(try pair.send("buy"), Fixtures.message(id: "a1"), Fixtures.message(id: "a2"), Fixtures.message(id: "a3"))
        let one = pair.actions.dismiss(actionID: "a2")
        #expect(one.closed.map(\.0) == ["a2"] && one.tracked.map(\.name) == ["message_close"] && !one.contains(.windowDismissed))
        let all = pair.actions.dismiss()
        #expect(all.closed.map(\.0) == ["a1", "a3"] && all.closed.allSatisfy { $0.1 == .dismiss })
        #expect(all.tracked.map(\.name) == ["message_close", "message_close"] && all.last == .windowDismissed)
        #expect(pair.actions.dismiss().isEmpty && !pair.actions.isSuppressed)
    }

    @Test func theSameActionIsNotShownTwice() throws {
        var pair = Pair()
        _ = pair.answer(try pair.send("buy"), Fixtures.message(id: "a1"))
        let again = pair.answer(try pair.send("buy"), Fixtures.message(id: "a1"))
        #expect(again == [.skipped(Actions.ActionRef(actionID: "a1", campaignID: "c-a1", shortenID: "s-a1"), reason: "already shown")])
    }
}
