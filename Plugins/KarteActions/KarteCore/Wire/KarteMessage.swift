#if canImport(AttendantPluginKit)
package import AttendantPluginKit
#endif

/// One of `response.messages`: an action, the campaign it belongs to and the trigger that fired it. The
/// typed fields are the ones the SDKs read (karte.md §1, "Message keys the SDKs actually read"); the whole
/// message is kept in ``json``.
package struct KarteMessage: Sendable, Hashable {
    package var action: Action
    package var campaign: Campaign
    /// `trigger`, kept whole (`event_hashes` goes back on `_message_ready`).
    package var trigger: JSONValue?
    /// The message as it came, unknown fields included.
    package var json: JSONValue

    package struct Action: Sendable, Hashable {
        /// `_id`
        package var id: String?
        package var shortenID: String?
        package var campaignID: String?
        /// `"control"` marks a control-group action, never shown.
        package var type: String?
        /// `response_timestamp`, such as `2019-11-24T02:05:12.616Z` (see ``KarteTimestamp``).
        package var responseTimestamp: String?
        package var pluginType: String?
        /// `content`, kept whole: its schema is not public (see ``KarteActionContent``).
        package var content: [String: JSONValue]
        /// The action as it came, the JSON offered to D-Bus viewers.
        package var json: JSONValue
    }

    package struct Campaign: Sendable, Hashable {
        /// `_id`
        package var id: String?
        /// `remote_config` for variables; `webpopup` and others for in-app actions.
        package var serviceActionType: String?
        /// `native_app_display_limit_mode`: show only on the screen (pv) that sent the event.
        package var displayLimitMode: Bool
        package var json: JSONValue
    }

    package init(json: JSONValue, path: String = "message") throws(KarteDecodeError) {
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
    package var campaignID: String { self.campaign.id ?? self.action.campaignID ?? "" }
    package var shortenID: String { self.action.shortenID ?? "" }
    /// The action's id (`action._id`), else `campaign_id/shorten_id`: the contact id of the shown action.
    package var actionID: String { self.action.id ?? "\(self.campaignID)/\(self.shortenID)" }
    package var isRemoteConfig: Bool { self.campaign.serviceActionType == "remote_config" }
    package var isControlGroup: Bool { self.action.type == "control" }
}
