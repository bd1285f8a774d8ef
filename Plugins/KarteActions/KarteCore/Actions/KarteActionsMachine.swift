package import AttendantPluginAPI
package import AttendantPluginKit

/// What becomes of KARTE's answers, with no I/O: which messages are shown, which are variables, which
/// are held back and why, and what is tracked back. Time comes in as `now: UnixTime`.
///
/// Routing, per message of a response to a non-retried request (karte.md §1 "How a response is routed",
/// §2 "Reset / dismiss / suppress" and "Show only on the screen where the event was sent"):
/// 1. `campaign.service_action_type == "remote_config"`: a variables message (needs `campaign._id` and
///    `action.shorten_id`). Its `content.inlined_variables` are kept unless it is a control group, and
///    `_message_ready` is tracked either way. Never suppressed, never shown.
/// 2. `action.type == "control"`: a control group, never shown.
/// 3. Suppressed (``suppress()`` until ``unsuppress()``): not shown, `_message_suppressed` with
///    ``suppressedBySuppressMode`` (iOS's order: suppression before the pv filter).
/// 4. `campaign.native_app_display_limit_mode`: kept only if the request's pv_id is the current pv_id or
///    the original one, else `_message_suppressed` with ``suppressedByDisplayLimitMode``.
/// 5. Shown, and `message_open` tracked unless the action's `response_timestamp` is older than
///    ``Configuration/messageOpenExpiry``.
///
/// Presentation: a soft reset (a `view` after the first, a marked boundary, a link click without
/// `_blank`) closes every shown action without `message_close`; ``dismiss(actionID:)`` and ``suppress()``
/// close with `message_close`. The window is presented when the first action opens and dismissed when the
/// last closes.
package struct KarteActionsMachine: Sendable {
    package struct Configuration: Sendable, Hashable {
        /// A `message_open` for an action older than this is dropped (iOS `ExpiredMessageOpenEventFilterRule`).
        package var messageOpenExpiry: Duration = .seconds(180)
        package init() {}
    }

    package static let suppressedBySuppressMode = "The display is suppressed by suppress mode."
    package static let suppressedByDisplayLimitMode = "The display is suppressed by native_app_display_limit_mode."

    /// Why an action closed.
    package enum CloseReason: String, Sendable, Hashable, CustomStringConvertible {
        /// A screen boundary (a `view` or a marked boundary): no `message_close`.
        case soft
        /// A link without target `_blank` was followed: a soft reset, no `message_close`.
        case click
        /// Dismissed (all, or one by the person): `message_close`.
        case dismiss
        /// A hard reset by ``suppress()``: `message_close`.
        case hard

        package var description: String { self.rawValue }
    }

    /// Which action a signal is about.
    package struct ActionRef: Sendable, Hashable {
        package var actionID: String
        package var campaignID: String
        package var shortenID: String

        package init(actionID: String, campaignID: String, shortenID: String) {
            self.actionID = actionID
            self.campaignID = campaignID
            self.shortenID = shortenID
        }
    }

    /// An action on screen: its message (whole JSON in ``KarteMessage/json``) and what is shown of it.
    package struct ShownAction: Sendable, Hashable {
        package var message: KarteMessage
        package var content: KarteActionContent

        package init(message: KarteMessage, content: KarteActionContent) {
            self.message = message
            self.content = content
        }

        package var ref: ActionRef {
            ActionRef(actionID: self.message.actionID, campaignID: self.message.campaignID, shortenID: self.message.shortenID)
        }

        package var inAppAction: InAppAction {
            self.content.inAppAction(
                id: self.message.actionID,
                campaignID: self.message.campaignID,
                onlyOnSendingScreen: self.message.campaign.displayLimitMode
            )
        }
    }

    /// A remote_config variable (`content.inlined_variables[]`) and the campaign that set it.
    package struct Variable: Sendable, Hashable {
        package var name: String
        package var value: JSONValue
        package var campaignID: String
        package var shortenID: String

        package init(name: String, value: JSONValue, campaignID: String, shortenID: String) {
            self.name = name
            self.value = value
            self.campaignID = campaignID
            self.shortenID = shortenID
        }
    }

    package enum Action: Sendable, Hashable {
        case show(ShownAction)
        case close(actionID: String, reason: CloseReason)
        /// Track this event (through the tracking machine, with the keys of the moment).
        case track(KarteEvent)
        case willAppear(ActionRef)
        case didAppear(ActionRef)
        case willDisappear(ActionRef, reason: CloseReason)
        case didDisappear(ActionRef, reason: CloseReason)
        /// The first action opened.
        case windowPresented
        /// The last action closed.
        case windowDismissed
        /// The variables now (all of them).
        case variablesChanged([String: Variable])
        /// An action shown without `message_open`, because its response is older than the expiry.
        case messageOpenExpired(ActionRef, age: Duration)
        /// A message neither shown nor suppressed (control group, already shown, remote_config without ids).
        case skipped(ActionRef, reason: String)
    }

    package let configuration: Configuration
    package internal(set) var isSuppressed = false
    /// Shown actions, oldest first.
    package internal(set) var shown: [ShownAction] = []
    package private(set) var variables: [String: Variable] = [:]

    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// A response and the request it answers, with the keys tracked events get now (for the pv filter).
    /// A response to a retried request shows nothing and changes nothing.
    package mutating func receive(_ response: KarteTrackResponse, for request: KarteTrackRequest, current: KarteKeys, now: UnixTime) -> [Action] {
        guard !request.isRetry else { return [] }
        var actions: [Action] = []
        let variablesBefore = self.variables
        if request.eventNames.contains(KarteEventName.fetchVariables) { self.variables = [:] }
        for message in response.messages where message.isRemoteConfig {
            actions += self.receiveVariables(message)
        }
        if self.variables != variablesBefore { actions.append(.variablesChanged(self.variables)) }
        for message in response.messages where !message.isRemoteConfig {
            actions += self.route(message, requestPVID: request.keys.pvID, current: current, now: now)
        }
        return actions
    }

    mutating func receiveVariables(_ message: KarteMessage) -> [Action] {
        let ref = ActionRef(actionID: message.actionID, campaignID: message.campaignID, shortenID: message.shortenID)
        guard message.campaign.id != nil, message.action.shortenID != nil else {
            return [.skipped(ref, reason: "remote_config without campaign._id or action.shorten_id")]
        }
        if !message.isControlGroup {
            for item in message.action.content["inlined_variables"]?.arrayValue ?? [] {
                guard let name = item["name"]?.stringValue, let value = item["value"] else { continue }
                self.variables[name] = Variable(name: name, value: value, campaignID: ref.campaignID, shortenID: ref.shortenID)
            }
        }
        var values: [String: JSONValue] = ["campaign_id": .string(ref.campaignID), "shorten_id": .string(ref.shortenID)]
        if let timestamp = message.action.responseTimestamp {
            values["response_timestamp"] = .string(timestamp)
            values["response_id"] = .string("\(timestamp)_\(ref.shortenID)")
        }
        if let trigger = message.trigger { values["trigger"] = trigger }
        return [.track(KarteEvent(name: KarteEventName.messageReady, values: ["message": .object(values)]))]
    }

    mutating func route(_ message: KarteMessage, requestPVID: String, current: KarteKeys, now: UnixTime) -> [Action] {
        let ref = ActionRef(actionID: message.actionID, campaignID: message.campaignID, shortenID: message.shortenID)
        if message.isControlGroup { return [.skipped(ref, reason: "control group")] }
        if self.isSuppressed { return [Self.suppressed(ref, reason: Self.suppressedBySuppressMode)] }
        if message.campaign.displayLimitMode, requestPVID != current.pvID, requestPVID != current.originalPVID {
            return [Self.suppressed(ref, reason: Self.suppressedByDisplayLimitMode)]
        }
        if self.shown.contains(where: { $0.message.actionID == ref.actionID }) { return [.skipped(ref, reason: "already shown")] }
        return self.show(message, ref: ref, now: now)
    }

    static func suppressed(_ ref: ActionRef, reason: String) -> Action {
        .track(KarteEvent(name: KarteEventName.messageSuppressed, values: ["reason": .string(reason), "message": ref.messageValue]))
    }
}

extension KarteActionsMachine.ActionRef {
    /// `{"campaign_id","shorten_id"}`, the `message` of the events tracked back.
    package var messageValue: JSONValue {
        .object(["campaign_id": .string(self.campaignID), "shorten_id": .string(self.shortenID)])
    }
}

// MARK: Variables kept across restarts

extension KarteActionsMachine {
    /// The variables as `{"name": {"value": …, "campaign_id": …, "shorten_id": …}}`: what the driver
    /// stores, and what `attendantctl actions variables` shows.
    package static func json(of variables: [String: Variable]) -> JSONValue {
        .object(
            variables.mapValues { variable in
                .object(["value": variable.value, "campaign_id": .string(variable.campaignID), "shorten_id": .string(variable.shortenID)])
            }
        )
    }

    /// Takes back variables stored with ``json(of:)``; entries of another shape are skipped.
    package mutating func restoreVariables(fromJSON text: String) {
        guard case .object(let entries)? = try? JSONValue.parse(Array(text.utf8)) else { return }
        for (name, entry) in entries {
            guard let value = entry["value"] else { continue }
            self.variables[name] = Variable(
                name: name,
                value: value,
                campaignID: entry["campaign_id"]?.stringValue ?? "",
                shortenID: entry["shorten_id"]?.stringValue ?? ""
            )
        }
    }
}
