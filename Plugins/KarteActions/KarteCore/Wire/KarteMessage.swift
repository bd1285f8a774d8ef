#if canImport(AttendantPluginKit)
public import AttendantPluginKit
#endif

/// One of `response.messages`: an action, the campaign it belongs to and the trigger that fired it. The
/// typed fields are the ones the SDKs read (karte.md §1, "Message keys the SDKs actually read"); the whole
/// message is kept in ``json``.
public struct KarteMessage: Sendable, Hashable {
    public var action: Action
    public var campaign: Campaign
    /// `trigger`, kept whole (`event_hashes` goes back on `_message_ready`).
    public var trigger: JSONValue?
    /// The message as it came, unknown fields included.
    public var json: JSONValue

    public struct Action: Sendable, Hashable {
        /// `_id`
        public var id: String?
        public var shortenID: String?
        public var campaignID: String?
        /// `"control"` marks a control-group action, never shown.
        public var type: String?
        /// `response_timestamp`, such as `2019-11-24T02:05:12.616Z` (see ``KarteTimestamp``).
        public var responseTimestamp: String?
        public var pluginType: String?
        /// `content`, kept whole: its schema is not public (see ``KarteActionContent``).
        public var content: [String: JSONValue]
        /// The action as it came, the JSON offered to D-Bus viewers.
        public var json: JSONValue
    }

    public struct Campaign: Sendable, Hashable {
        /// `_id`
        public var id: String?
        /// `remote_config` for variables; `webpopup` and others for in-app actions.
        public var serviceActionType: String?
        /// `native_app_display_limit_mode`: show only on the screen (pv) that sent the event.
        public var displayLimitMode: Bool
        public var json: JSONValue
    }

    public init(json: JSONValue, path: String = "message") throws(KarteDecodeError) {
        guard case .object(let message) = json else { throw .wrong(path, json, expected: "an object") }
        guard let actionValue = message["action"], case .object(let action) = actionValue else {
            throw .wrong("\(path).action", message["action"], expected: "an object")
        }
        guard let campaignValue = message["campaign"], case .object(let campaign) = campaignValue else {
            throw .wrong("\(path).campaign", message["campaign"], expected: "an object")
        }
        let a = "\(path).action"
        self.action = Action(
            id: try JSONFields.string(action, "_id", path: "\(a)._id"),
            shortenID: try JSONFields.string(action, "shorten_id", path: "\(a).shorten_id"),
            campaignID: try JSONFields.string(action, "campaign_id", path: "\(a).campaign_id"),
            type: try JSONFields.string(action, "type", path: "\(a).type"),
            responseTimestamp: try JSONFields.string(action, "response_timestamp", path: "\(a).response_timestamp"),
            pluginType: try JSONFields.string(action, "plugin_type", path: "\(a).plugin_type"),
            content: try JSONFields.object(action, "content", path: "\(a).content") ?? [:],
            json: actionValue
        )
        let c = "\(path).campaign"
        self.campaign = Campaign(
            id: try JSONFields.string(campaign, "_id", path: "\(c)._id"),
            serviceActionType: try JSONFields.string(campaign, "service_action_type", path: "\(c).service_action_type"),
            displayLimitMode: try JSONFields.bool(campaign, "native_app_display_limit_mode", path: "\(c).native_app_display_limit_mode") ?? false,
            json: campaignValue
        )
        self.trigger = message["trigger"]
        self.json = json
    }

    /// The campaign's id: `campaign._id`, else `action.campaign_id`, else empty.
    public var campaignID: String { self.campaign.id ?? self.action.campaignID ?? "" }
    public var shortenID: String { self.action.shortenID ?? "" }
    /// The action's id (`action._id`), else `campaign_id/shorten_id`: the contact id of the shown action.
    public var actionID: String { self.action.id ?? "\(self.campaignID)/\(self.shortenID)" }
    public var isRemoteConfig: Bool { self.campaign.serviceActionType == "remote_config" }
    public var isControlGroup: Bool { self.action.type == "control" }
}
