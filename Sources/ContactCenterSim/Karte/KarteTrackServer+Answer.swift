import Foundation

/// The 200 answer: an echo of each event with its hash, one message per triggered campaign, and the
/// options, in the shape of KARTE's own answers (karte.md §1, "Response").
extension KarteTrackServer {
    /// The success body for `body`, and how long to hold it (the longest delay of the campaigns it
    /// triggered). Counts each triggered campaign's answer.
    static func answer(to body: TrackBody, now: Double, state: inout State) -> (json: GMSJSON, hold: Duration) {
        let hashes = body.events.map { _ in UUID().uuidString.lowercased() }
        var messages: [GMSJSON] = []
        var hold = Duration.zero
        for campaign in state.settings.campaigns {
            guard let index = body.events.firstIndex(where: { Self.triggers(campaign, $0) }) else { continue }
            if let times = campaign.times, state.answers[campaign.id, default: 0] >= times { continue }
            state.answers[campaign.id, default: 0] += 1
            state.actionsIssued += 1
            messages.append(Self.message(campaign, actionID: "\(campaign.id)-\(state.actionsIssued)", eventHash: hashes[index], now: now))
            hold = max(hold, .milliseconds(campaign.delayMs))
        }
        let events = zip(body.events, hashes).map { event, hash -> GMSJSON in
            ["event_name": .string(event.name), "event_hash": .string(hash), "values": event.values]
        }
        let visitor = "vis-\(body.keys.visitorID)"
        let response: GMSJSON = [
            "status": 200,
            "messages": .array(messages),
            "events": .array(events),
            "options": ["user_id": .string(visitor), "session_id": .string(visitor + "_1"), "response_timestamp": .string(Self.timestamp(now))],
        ]
        return (["success": 1, "status": 200, "response": response], hold)
    }

    /// Whether `event` triggers `campaign`: its name and every scripted value match; for remote_config,
    /// any `_fetch_variables` too (KARTE answers `Variables.fetch()` with every variables campaign).
    static func triggers(_ campaign: KarteCampaign, _ event: TrackBody.Event) -> Bool {
        if campaign.kind == .remoteConfig, event.name == "_fetch_variables" { return true }
        guard let trigger = campaign.trigger, trigger.eventName == event.name else { return false }
        return trigger.values.allSatisfy { key, value in event.values[key]?.string == value }
    }

    static func message(_ campaign: KarteCampaign, actionID: String, eventHash: String, now: Double) -> GMSJSON {
        let actionType: String
        let pluginType: String
        var content: GMSJSON = [:]
        switch campaign.kind {
        case .popup:
            actionType = "popup"
            pluginType = "webpopup"
            content["title"] = campaign.title.map { .string($0) }
            content["body"] = campaign.body.map { .string($0) }
            content["html"] = campaign.html.map { .string($0) }
            content["links"] = .array(campaign.links.map { ["label": .string($0.label), "url": .string($0.url), "target": .string($0.target)] })
        case .remoteConfig:
            actionType = "remote_config"
            pluginType = "remote_config"
            content["inlined_variables"] = .array(campaign.variables.map { ["name": .string($0.name), "value": .string($0.value)] })
        }
        let action: GMSJSON = [
            "_id": .string(actionID),
            "shorten_id": .string(campaign.shortenID),
            "campaign_id": .string(campaign.id),
            "type": .string(campaign.controlGroup ? "control" : actionType),
            "response_timestamp": .string(Self.timestamp(now - campaign.ageS)),
            "plugin_type": .string(pluginType),
            "content": content,
        ]
        let campaignJSON: GMSJSON = [
            "_id": .string(campaign.id), "service_action_type": .string(pluginType), "native_app_display_limit_mode": .bool(campaign.limitMode),
        ]
        return ["action": action, "campaign": campaignJSON, "trigger": ["event_hashes": .string(eventHash)]]
    }

    /// `2019-11-24T02:05:12.616Z`: UTC with milliseconds, as KARTE writes `response_timestamp`.
    static func timestamp(_ unixSeconds: Double) -> String {
        Date(timeIntervalSince1970: unixSeconds).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    // MARK: Faults

    /// Adds a popup message whose body is 10 MB of text: a client must refuse or cap it, not hang on it.
    static func withOversizeMessage(_ answer: GMSJSON, now: Double) -> GMSJSON {
        var huge = KarteCampaign(id: "oversize", kind: .popup, trigger: nil)
        huge.title = "Oversize"
        huge.body = String(repeating: "0123456789abcdef", count: 10 << 16)
        var answer = answer
        var messages = answer["response"]?["messages"]?.array ?? []
        messages.append(Self.message(huge, actionID: "oversize-1", eventHash: "oversize", now: now))
        answer["response"]?["messages"] = .array(messages)
        return answer
    }

    /// Adds an unknown key to every object, at every depth: clients must ignore what they do not know.
    static func withUnknownFields(_ value: GMSJSON) -> GMSJSON {
        switch value {
        case .object(let object):
            var decorated = object.mapValues(Self.withUnknownFields)
            decorated["x_simulator_unknown"] = ["added_by": "attendant-sim", "list": [1, "two", true]]
            return .object(decorated)
        case .array(let array):
            return .array(array.map(Self.withUnknownFields))
        default:
            return value
        }
    }
}
