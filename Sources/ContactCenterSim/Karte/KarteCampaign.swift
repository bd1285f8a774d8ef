import Foundation

/// A scripted KARTE campaign: which events trigger it and what its message carries. The simulator has no
/// segments or frequency rules; a campaign answers every request holding a matching event (at most
/// ``times`` times), which is what the plugin's tests need to drive it.
///
/// As JSON (`--karte-campaigns FILE`, `PUT /control/karte/campaigns`), keys in snake case:
/// `{"id", "shorten_id", "kind": "popup"|"remote_config", "trigger": {"event_name", "values": {…}},
/// "limit_mode", "control_group", "title", "body", "html", "links": [{"label","url","target"}],
/// "variables": [{"name","value"}], "delay_ms", "age_s", "times"}`; only `id`, `kind` and (for popups)
/// `trigger` are required.
package struct KarteCampaign: Sendable, Hashable, Codable {
    package enum Kind: String, Sendable, Hashable, Codable {
        /// An in-app message (`service_action_type` and `plugin_type` `webpopup`).
        case popup
        /// KARTE Variables (`remote_config`): the message carries `content.inlined_variables`.
        case remoteConfig = "remote_config"
    }

    /// The event a campaign answers: its name, and string values it must carry exactly.
    package struct Trigger: Sendable, Hashable, Codable {
        package var eventName: String
        package var values: [String: String]

        package init(eventName: String, values: [String: String] = [:]) {
            self.eventName = eventName
            self.values = values
        }

        enum CodingKeys: String, CodingKey {
            case eventName = "event_name"
            case values
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.eventName = try container.decode(String.self, forKey: .eventName)
            self.values = try container.decodeIfPresent([String: String].self, forKey: .values) ?? [:]
        }
    }

    package struct Link: Sendable, Hashable, Codable {
        package var label: String
        package var url: String
        /// `_blank` keeps the message shown after a click; `_self` hides it (karte.md §2, "Link clicks").
        package var target: String

        package init(label: String, url: String, target: String = "_self") {
            self.label = label
            self.url = url
            self.target = target
        }
    }

    package struct Variable: Sendable, Hashable, Codable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    package var id: String
    package var shortenID: String
    package var kind: Kind
    /// Nil only for a remote_config campaign that answers `_fetch_variables` alone.
    package var trigger: Trigger?
    /// `campaign.native_app_display_limit_mode`: show only on the screen the event was sent from.
    package var limitMode: Bool = false
    /// A control-group answer: `action.type` `"control"`, never shown.
    package var controlGroup: Bool = false
    package var title: String?
    package var body: String?
    package var html: String?
    package var links: [Link] = []
    package var variables: [Variable] = []
    /// Hold the whole answer this long, so that a later `view` overtakes it.
    package var delayMs: Int = 0
    /// Date the message's `response_timestamp` this many seconds back (the 180 s `message_open` expiry).
    package var ageS: Double = 0
    /// Answer at most this many times; nil: always.
    package var times: Int?

    package init(id: String, shortenID: String? = nil, kind: Kind, trigger: Trigger?) {
        self.id = id
        self.shortenID = shortenID ?? id
        self.kind = kind
        self.trigger = trigger
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, trigger, title, body, html, links, variables, times
        case shortenID = "shorten_id"
        case limitMode = "limit_mode"
        case controlGroup = "control_group"
        case delayMs = "delay_ms"
        case ageS = "age_s"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decode(String.self, forKey: .id)
        self.shortenID = try container.decodeIfPresent(String.self, forKey: .shortenID) ?? self.id
        self.kind = try container.decode(Kind.self, forKey: .kind)
        self.trigger = try container.decodeIfPresent(Trigger.self, forKey: .trigger)
        if self.trigger == nil, self.kind == .popup {
            throw DecodingError.keyNotFound(
                CodingKeys.trigger,
                .init(codingPath: container.codingPath, debugDescription: "a popup campaign needs a trigger")
            )
        }
        self.limitMode = try container.decodeIfPresent(Bool.self, forKey: .limitMode) ?? false
        self.controlGroup = try container.decodeIfPresent(Bool.self, forKey: .controlGroup) ?? false
        self.title = try container.decodeIfPresent(String.self, forKey: .title)
        self.body = try container.decodeIfPresent(String.self, forKey: .body)
        self.html = try container.decodeIfPresent(String.self, forKey: .html)
        self.links = try container.decodeIfPresent([Link].self, forKey: .links) ?? []
        self.variables = try container.decodeIfPresent([Variable].self, forKey: .variables) ?? []
        self.delayMs = try container.decodeIfPresent(Int.self, forKey: .delayMs) ?? 0
        self.ageS = try container.decodeIfPresent(Double.self, forKey: .ageS) ?? 0
        self.times = try container.decodeIfPresent(Int.self, forKey: .times)
        guard self.delayMs >= 0, self.ageS >= 0, (self.times ?? 0) >= 0 else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: container.codingPath, debugDescription: "delay_ms, age_s and times must not be negative")
            )
        }
    }

    /// A JSON array of campaigns; the error names the campaign and key at fault. `source` names where the
    /// text came from (a file, a control request) for the message.
    package static func list(fromJSON bytes: [UInt8], source: String) throws(SimulatorError) -> [KarteCampaign] {
        do {
            return try JSONDecoder().decode([KarteCampaign].self, from: Data(bytes))
        } catch let error as DecodingError {
            throw SimulatorError(.karteCampaigns, "\(source): \(Self.describe(error)); expected a JSON array of campaigns (see attendant-sim --help)")
        } catch {
            throw SimulatorError(.karteCampaigns, "\(source): \(error)")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "the top level" : String(keys.drop { $0 == "." })
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)) lacks \"\(key.stringValue)\" (\(context.debugDescription))"
        case .typeMismatch(let type, let context): return "\(path(context)) is not a \(type)"
        case .valueNotFound(let type, let context): return "\(path(context)) is null, expected a \(type)"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

extension KarteCampaign {
    /// The demo's campaigns: a welcome popup on every `view`, and variables on `native_app_open`.
    package static let demo: [KarteCampaign] = {
        var welcome = KarteCampaign(id: "welcome-popup", shortenID: "wlcm", kind: .popup, trigger: Trigger(eventName: "view"))
        welcome.title = "Welcome back"
        welcome.body = "Your refund is on its way. Questions? Chat with us or call."
        welcome.links = [
            Link(label: "Track refund", url: "https://example.com/refund", target: "_self"),
            Link(label: "Open in new window", url: "https://example.com/help", target: "_blank"),
        ]
        var variables = KarteCampaign(id: "app-variables", shortenID: "vars", kind: .remoteConfig, trigger: Trigger(eventName: "native_app_open"))
        variables.variables = [Variable(name: "greeting", value: "Hello from KARTE"), Variable(name: "theme", value: "dark")]
        return [welcome, variables]
    }()
}
