package import AttendantPluginAPI
import AttendantPluginKit

// The user's requests (``KarteCommand``), each as request `id` of the kit's driver.
extension KarteSession {
    /// Starts `command` as request `id`; refused input throws and changes nothing.
    package mutating func perform(_ command: KarteCommand, _ id: UInt64, now: UnixTime) throws(ChannelError) -> [Action] {
        switch command {
        case .view(let name, let title, let values):
            return try self.track(id, now: now) { tracking, now throws(KarteFieldError) in
                try tracking.view(name: name, title: title, values: values, now: now)
            } reply: { keys in
                ["event": KarteEventName.view, "pv_id": keys.pvID, "original_pv_id": keys.originalPVID]
            }
        case .track(let event):
            return try self.track(id, now: now) { tracking, now throws(KarteFieldError) in
                try tracking.track(event, now: now)
            } reply: { keys in
                ["event": event.name, "pv_id": keys.pvID]
            }
        case .identify(let user, let values):
            return try self.track(id, now: now) { tracking, now throws(KarteFieldError) in
                try tracking.identify(userID: user, values: values, now: now)
            } reply: { keys in
                ["event": KarteEventName.identify, "pv_id": keys.pvID]
            }
        case .attribute(let values):
            return try self.track(id, now: now) { tracking, now throws(KarteFieldError) in
                try tracking.attribute(values, now: now)
            } reply: { keys in
                ["event": KarteEventName.attribute, "pv_id": keys.pvID]
            }
        case .boundary:
            return try self.track(id, now: now) { tracking, _ in
                tracking.markBoundary()
            } reply: { keys in
                ["pv_id": keys.pvID]
            }
        case .list:
            return [.replied(id, .success(.fields(self.listFields)))]
        case .click(let actionID, let choice):
            return try self.click(id, actionID: actionID, choice, now: now)
        case .variables(let fetch):
            return self.variables(id, fetch: fetch, timeout: self.settings.fetchTimeout, now: now)
        case .dismiss(let actionID):
            return try self.dismiss(id, actionID: actionID, now: now)
        case .suppress:
            return self.suppress(id, now: now)
        case .unsuppress:
            return self.unsuppress(id)
        }
    }

    /// Follows a link of a shown action: the host opens it first (``Work/open(requestID:url:)``: the
    /// `[links]` policy, then the URL handler as the SDKs' `shouldOpenURL`, then the opener), and only a link
    /// the policy let through is a click (``opened(_:_:now:)``). A refused link changes nothing: no
    /// `message_click`, the action stays shown, and the caller hears why.
    mutating func click(_ id: UInt64, actionID wanted: String?, _ choice: KarteCommand.LinkChoice, now: UnixTime) throws(ChannelError) -> [Action] {
        let (action, link) = try Self.link(of: self.actions.shown, actionID: wanted, choice)
        self.opening[id] = ["action": action.message.actionID, "url": link.url, "target": link.target]
        return [.work(.open(requestID: id, url: link.url))]
    }

    /// The host opened (or did not open) the link of click `id`. Opened, claimed by a URL handler, or
    /// failed in the opener: the person did follow the link, so `message_click`, then a soft reset unless
    /// the target is `_blank` (the SDKs: iOS `IAMWebView.openURL` resets and lets the app claim the URL).
    /// Refused by the policy: not a click.
    package mutating func opened(_ id: UInt64, _ outcome: LinkOpenOutcome, now: UnixTime) -> [Action] {
        guard var fields = self.opening.removeValue(forKey: id), let actionID = fields["action"], let url = fields["url"],
            let target = fields["target"]
        else { return [] }
        fields["opened"] = outcome.name
        fields["detail"] = outcome.detail
        if case .refused = outcome {
            fields["reset"] = "false"
            return [.replied(id, .success(.fields(fields)))]
        }
        fields["reset"] = target == "_blank" ? "false" : "true"
        return self.linkClicked(actionID: actionID, url: url, target: target, now: now) + [.replied(id, .success(.fields(fields)))]
    }

    /// The shown action (the last one unless `wanted` names another) and the link a click follows.
    static func link(
        of shown: [KarteActionsMachine.ShownAction],
        actionID wanted: String?,
        _ choice: KarteCommand.LinkChoice
    ) throws(ChannelError) -> (KarteActionsMachine.ShownAction, KarteActionContent.Link) {
        guard let action = wanted.map({ id in shown.first { $0.message.actionID == id } }) ?? shown.last else {
            throw ChannelError(.illegalState, wanted.map { "no action \($0) is shown; see attendantctl actions list" } ?? "no action is shown")
        }
        let (id, links) = (action.message.actionID, action.content.links)
        switch choice {
        case .url(let url):
            guard let link = links.first(where: { $0.url == url }) else { throw KarteCommand.invalid("action \(id) has no link to \(url)") }
            return (action, link)
        case .index(let text):
            guard let index = Int(text), links.indices.contains(index) else {
                throw KarteCommand.invalid(
                    links.isEmpty ? "action \(id) has no links" : "action \(id) has links 0 to \(links.count - 1), not \(text)"
                )
            }
            return (action, links[index])
        }
    }
}
