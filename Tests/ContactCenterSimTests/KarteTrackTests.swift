import ContactCenterSim
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import TestSupport
import Testing

/// The simulator's KARTE track endpoint over real HTTP on loopback: app key, gzip bodies, recorded events
/// and the campaigns' messages, with a client of the tests' own (AsyncHTTPClient and zlib).
@Suite struct KarteTrackTests {
    /// 2019-11-24T02:05:12.500Z, exact in binary, so timestamps can be compared as text.
    static let fixedNow = 1_574_561_112.5

    static func start(_ karte: KarteServerSettings = KarteServerSettings()) async throws -> (ContactCenterSimulator, KarteTestClient) {
        let simulator = try await ContactCenterSimulator.start(SimulatorConfiguration(karte: karte, now: { Self.fixedNow }))
        return (simulator, KarteTestClient(base: simulator.karte.baseURL, appKey: simulator.karte.appKey))
    }

    @Test func refusesAWrongAppKey() async throws {
        let (simulator, client) = try await Self.start()
        defer { Task { await simulator.stop() } }
        #expect(simulator.karte.baseURL == "http://127.0.0.1:\(simulator.httpPort)")
        #expect(simulator.karte.appKey == "demoappkey0000000000000000000001")
        let answer = try await client.track(try KarteTestClient.body([("view", ["view_name": "home"])]), appKey: "wrongkey00000000000000000000000x")
        #expect(answer.status == 401)
        let json = try answer.json()
        #expect(json["success"] as? Int == 0)
        #expect(json["status"] as? Int == 401)
        #expect(json["error"] as? String == "invalid app key")
        #expect(simulator.karte.events.isEmpty)
        let request = try #require(simulator.karte.requests.first)
        #expect(request.appKeyOK == false)
        #expect(request.status == 401)
    }

    @Test func readsAGzipBodyAndRecordsEventsWithKeysAndRetries() async throws {
        let (simulator, client) = try await Self.start(KarteServerSettings(campaigns: []))
        defer { Task { await simulator.stop() } }
        let answer = try await client.track([
            ("native_app_open", ["_local_event_date": 1_700_000_000.123]),
            ("buy", ["item": "tea", "_retry": true]),
        ])
        #expect(answer.status == 200)
        #expect(answer.headers["content-encoding"].isEmpty)
        let echoed = try #require(try answer.response["events"] as? [[String: Any]])
        #expect(echoed.map { $0["event_name"] as? String } == ["native_app_open", "buy"])
        #expect((echoed.last?["values"] as? [String: Any])?["item"] as? String == "tea")
        #expect(try answer.messages.isEmpty)
        let options = try #require(try answer.response["options"] as? [String: Any])
        #expect(options["user_id"] as? String == "vis-vis-1")
        #expect(options["session_id"] as? String == "vis-vis-1_1")
        #expect(options["response_timestamp"] as? String == "2019-11-24T02:05:12.500Z")

        let events = simulator.karte.events
        #expect(events.map(\.eventName) == ["native_app_open", "buy"])
        #expect(events.map(\.retry) == [false, true])
        #expect(events.allSatisfy { $0.gzip && $0.request == 1 })
        #expect(events.first?.keys.visitorID == "vis-1")
        #expect(events.first?.keys.pvID == "pv-2")
        #expect(events.first?.keys.originalPvID == "opv-3")
        #expect(events.last?.value("item") == "tea")
        #expect(simulator.karte.lastAppInfoJSON?.contains(#""karte_sdk_version":"2.33.0""#) == true)

        // The same through the control API.
        let (status, list) = try await client.control(.GET, "/control/karte/events")
        #expect(status == 200)
        let recorded = try #require(list as? [[String: Any]])
        #expect(recorded.count == 2)
        #expect(recorded.last?["retry"] as? Bool == true)
        #expect(recorded.last?["gzip"] as? Bool == true)
        #expect(recorded.last?["request"] as? Int == 1)
        #expect((recorded.last?["keys"] as? [String: Any])?["pv_id"] as? String == "pv-2")
        let (_, requests) = try await client.control(.GET, "/control/karte/requests")
        let request = try #require((requests as? [[String: Any]])?.first)
        #expect(request["status"] as? Int == 200)
        #expect(request["events"] as? Int == 2)
        #expect(request["app_key_ok"] as? Bool == true)
        #expect(request["gzip"] as? Bool == true)
        let (_, appInfo) = try await client.control(.GET, "/control/karte/app-info")
        #expect((appInfo as? [String: Any])?["version_name"] as? String == "1.0")
        #expect(try await client.control(.DELETE, "/control/karte/events").0 == 200)
        #expect(simulator.karte.events.isEmpty)
    }

    @Test func acceptsAPlainBodyAndRefusesBadOnes() async throws {
        let (simulator, client) = try await Self.start()
        defer { Task { await simulator.stop() } }
        let plain = try await client.track([("view", ["view_name": "home"])], gzip: false)
        #expect(plain.status == 200)
        #expect(simulator.karte.events.first?.gzip == false)

        func expectInvalid(_ body: [UInt8], gzip: Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            // With gzip: claims gzip but sends the bytes as they are.
            let request = try await client.send(body, contentEncoding: gzip ? "gzip" : nil)
            #expect(request.status == 400, sourceLocation: sourceLocation)
            let json = try request.json()
            #expect(json["error"] as? String == "invalid request", sourceLocation: sourceLocation)
            #expect(json["success"] as? Int == 0, sourceLocation: sourceLocation)
            #expect(json["status"] as? Int == 400, sourceLocation: sourceLocation)
        }
        try await expectInvalid(try KarteTestClient.body([("view", [:])]), gzip: true)
        try await expectInvalid(Array(TestGzip.compress(try KarteTestClient.body([("view", [:])])).dropLast(4)), gzip: true)  // truncated
        try await expectInvalid(Array("{not json".utf8), gzip: false)
        try await expectInvalid(Array(#"{"keys":{"visitor_id":"v"}}"#.utf8), gzip: false)
        try await expectInvalid(Array(#"{"events":[]}"#.utf8), gzip: false)
        try await expectInvalid(Array(#"{"keys":{},"events":[{"values":{}}]}"#.utf8), gzip: false)
        #expect(simulator.karte.requests.filter { $0.status == 400 }.count == 6)
    }

    @Test func aViewTriggersThePopupInKartesShape() async throws {
        let (simulator, client) = try await Self.start()
        defer { Task { await simulator.stop() } }
        let answer = try await client.track([("view", ["view_name": "home", "title": "Home"])])
        let messages = try answer.messages
        #expect(messages.count == 1)
        let message = try #require(messages.first)
        let action = try #require(message["action"] as? [String: Any])
        let campaign = try #require(message["campaign"] as? [String: Any])
        let trigger = try #require(message["trigger"] as? [String: Any])
        #expect(action["_id"] as? String == "welcome-popup-1")
        #expect(action["shorten_id"] as? String == "wlcm")
        #expect(action["campaign_id"] as? String == "welcome-popup")
        #expect(action["type"] as? String == "popup")
        #expect(action["plugin_type"] as? String == "webpopup")
        #expect(action["response_timestamp"] as? String == "2019-11-24T02:05:12.500Z")
        let content = try #require(action["content"] as? [String: Any])
        #expect(content["title"] as? String == "Welcome back")
        #expect(content["body"] as? String == "Your refund is on its way. Questions? Chat with us or call.")
        let links = try #require(content["links"] as? [[String: String]])
        #expect(
            links == [
                ["label": "Track refund", "url": "https://example.com/refund", "target": "_self"],
                ["label": "Open in new window", "url": "https://example.com/help", "target": "_blank"],
            ]
        )
        #expect(campaign["_id"] as? String == "welcome-popup")
        #expect(campaign["service_action_type"] as? String == "webpopup")
        #expect(campaign["native_app_display_limit_mode"] as? Bool == false)
        let echoed = try #require(try answer.response["events"] as? [[String: Any]])
        let hash = try #require(echoed.first?["event_hash"] as? String)
        #expect(UUID(uuidString: hash) != nil)
        #expect(trigger["event_hashes"] as? String == hash)

        // Action ids are unique per answer; the demo's variables answer native_app_open.
        let again = try await client.track([("view", ["view_name": "cart"]), ("native_app_open", [:])])
        let second = try again.messages
        #expect(second.count == 2)
        #expect((second.first?["action"] as? [String: Any])?["_id"] as? String == "welcome-popup-2")
        let variables = try #require(second.last?["action"] as? [String: Any])
        #expect(variables["type"] as? String == "remote_config")
        #expect(variables["plugin_type"] as? String == "remote_config")
        let inlined = (variables["content"] as? [String: Any])?["inlined_variables"] as? [[String: String]]
        #expect(inlined == [["name": "greeting", "value": "Hello from KARTE"], ["name": "theme", "value": "dark"]])
        #expect((second.last?["campaign"] as? [String: Any])?["service_action_type"] as? String == "remote_config")
    }

    @Test func limitModeControlGroupValuesTimesAndAge() async throws {
        var limited = KarteCampaign(id: "limited", kind: .popup, trigger: .init(eventName: "view", values: ["view_name": "home"]))
        limited.limitMode = true
        limited.title = "Only here"
        limited.html = "<p>Only <b>here</b></p>"
        limited.ageS = 200
        limited.times = 1
        var control = KarteCampaign(id: "control", shortenID: "ctl", kind: .popup, trigger: .init(eventName: "buy"))
        control.controlGroup = true
        let (simulator, client) = try await Self.start(KarteServerSettings(campaigns: [limited, control]))
        defer { Task { await simulator.stop() } }

        #expect(try await client.track([("view", ["view_name": "cart"])]).messages.isEmpty, "values must match exactly")
        // Two matching events, one message per campaign.
        let answer = try await client.track([("view", ["view_name": "home"]), ("buy", [:]), ("buy", [:])])
        let messages = try answer.messages
        #expect(messages.count == 2)
        let first = try #require(messages.first?["action"] as? [String: Any])
        #expect((messages.first?["campaign"] as? [String: Any])?["native_app_display_limit_mode"] as? Bool == true)
        #expect(first["type"] as? String == "popup")
        #expect(first["response_timestamp"] as? String == "2019-11-24T02:01:52.500Z")
        #expect((first["content"] as? [String: Any])?["html"] as? String == "<p>Only <b>here</b></p>")
        #expect((messages.last?["action"] as? [String: Any])?["type"] as? String == "control")
        #expect((messages.last?["action"] as? [String: Any])?["shorten_id"] as? String == "ctl")
        // times: 1 is used up; the control group answers again.
        let later = try await client.track([("view", ["view_name": "home"]), ("buy", [:])]).messages
        #expect(later.compactMap { ($0["action"] as? [String: Any])?["campaign_id"] as? String } == ["control"])
    }

    @Test func remoteConfigAnswersFetchVariables() async throws {
        var variables = KarteCampaign(id: "vars", kind: .remoteConfig, trigger: .init(eventName: "never_sent"))
        variables.variables = [.init(name: "color", value: "blue")]
        let popup = KarteCampaign(id: "popup", kind: .popup, trigger: .init(eventName: "view"))
        let (simulator, client) = try await Self.start(KarteServerSettings(campaigns: [variables, popup]))
        defer { Task { await simulator.stop() } }
        let answer = try await client.track([("identify", [:]), ("_fetch_variables", [:])])
        let messages = try answer.messages
        #expect(messages.count == 1)
        let action = try #require(messages.first?["action"] as? [String: Any])
        #expect(action["campaign_id"] as? String == "vars")
        #expect((action["content"] as? [String: Any])?["inlined_variables"] as? [[String: String]] == [["name": "color", "value": "blue"]])
        let fetchHash = (try answer.response["events"] as? [[String: Any]])?.last?["event_hash"] as? String
        #expect((messages.first?["trigger"] as? [String: Any])?["event_hashes"] as? String == fetchHash)
    }

    @Test func delayHoldsTheAnswerWhileALaterRequestOvertakesIt() async throws {
        var slow = KarteCampaign(id: "slow", kind: .popup, trigger: .init(eventName: "buy"))
        // Held long enough for the view's whole exchange to fit inside the hold on a busy machine: with
        // 1.5 s, a run under two CPU hogs answered the view after the held request (scripts/test-under-load).
        slow.delayMs = 8000
        let (simulator, client) = try await Self.start(KarteServerSettings(campaigns: [slow]))
        defer { Task { await simulator.stop() } }
        let clock = ContinuousClock()
        let start = clock.now
        let heldAnswered = Atomic<Bool>(false)
        let held = Task {
            defer { heldAnswered.store(true, ordering: .sequentiallyConsistent) }
            return try await client.track([("buy", [:])])
        }
        _ = try await poll(seconds: 10) { simulator.karte.requests.isEmpty ? nil : true }
        let view = try await client.track([("view", ["view_name": "next"])])
        #expect(view.status == 200)
        let overtaken = !heldAnswered.load(ordering: .sequentiallyConsistent)
        #expect(overtaken, "the view's answer overtakes the held one")
        let answer = try await held.value
        // A lower bound only: the hold is at least the campaign's delay, however slow the machine.
        #expect(clock.now - start >= .milliseconds(8000))
        #expect(try answer.messages.count == 1)
    }

    @Test func gzipsAnswersForClientsThatAcceptIt() async throws {
        let (simulator, client) = try await Self.start()
        defer { Task { await simulator.stop() } }
        let zipped = try await client.track([("view", ["view_name": "home"])], acceptGzip: true)
        #expect(zipped.headers["content-encoding"] == ["gzip"])
        #expect(zipped.bytes.starts(with: [0x1F, 0x8B]))
        #expect(try zipped.messages.count == 1)

        let (status, setting) = try await client.control(.POST, "/control/karte/gzip-answers", json: #"{"on":false}"#)
        #expect(status == 200)
        #expect((setting as? [String: Any])?["gzip_answers"] as? Bool == false)
        let plain = try await client.track([("view", ["view_name": "home"])], acceptGzip: true)
        #expect(plain.headers["content-encoding"].isEmpty)
        #expect(try plain.messages.count == 1)
    }

    @Test func campaignsAreScriptedThroughTheControlAPI() async throws {
        let (simulator, client) = try await Self.start()
        defer { Task { await simulator.stop() } }
        let (listed, list) = try await client.control(.GET, "/control/karte/campaigns")
        #expect(listed == 200)
        #expect((list as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["welcome-popup", "app-variables"])
        let script =
            #"[{"id":"c1","kind":"popup","trigger":{"event_name":"tap","values":{"button":"help"}},"title":"Help","links":[{"label":"FAQ","url":"https://example.com/faq","target":"_blank"}],"times":2}]"#
        #expect(try await client.control(.PUT, "/control/karte/campaigns", json: script).0 == 200)
        #expect(simulator.karte.campaigns.map(\.id) == ["c1"])
        #expect(simulator.karte.campaigns.first?.trigger?.values == ["button": "help"])
        let messages = try await client.track([("tap", ["button": "help"])]).messages
        #expect((messages.first?["action"] as? [String: Any])?["campaign_id"] as? String == "c1")

        let (refused, error) = try await client.control(.PUT, "/control/karte/campaigns", json: #"[{"id":"c2","kind":"popup"}]"#)
        #expect(refused == 400)
        #expect(((error as? [String: Any])?["error"] as? String)?.contains("trigger") == true)
        #expect(simulator.karte.campaigns.map(\.id) == ["c1"], "a refused script leaves the campaigns as they were")
    }
}
